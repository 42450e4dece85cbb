# Runs with `cmake -P`: the layer rule and the GUI's never-reaches rule of cmake/Layers.cmake on
# fake graphs, then on tiny projects whose trace_db library links the IR library (a layer above
# it) or whose profiler links the driver, which must fail to configure with a message naming both.
cmake_minimum_required(VERSION 3.25) # the project's policies (IN_LIST) in script mode
include(${PTO_SOURCE_DIR}/cmake/Layers.cmake)

function(expect_violations expected)
  pto_layer_violations(found ${ARGN})
  list(LENGTH found count)
  if(NOT count EQUAL expected)
    message(FATAL_ERROR "expected ${expected} violation(s) for '${ARGN}', found ${count}: ${found}")
  endif()
endfunction()

# Downward links, same-layer links, and targets outside the layers (tests) pass.
expect_violations(0
  "pto_pipeline@compiler>pto_passes@compiler/passes"
  "pto_simulator@simulator/engine>pto_trace_db@trace_db"
  "pto_whatif@driver>pto_tensor_io@validate"
  "pto_whatif@driver>pto_profiler@profiler"
  "pto_bisect@driver>pto_session@driver"
  "pto_session@driver>pto_simulator@simulator/engine"
  "pto@cli>pto_bisect@driver"
  "pto_gui_model@gui/model>pto_validate@validate"
  "unit_ir@tests/unit/ir>pto_ir@compiler/ir"
  "pto_ir@compiler/ir>fmt@"
  "pto_trace_db@trace_db>pto_atomic_file@base"
  "pto_npy@validate>pto_atomic_file@base")
# A link to a layer above fails, and says which layers.
expect_violations(1 "pto_trace_db@trace_db>pto_ir@compiler/ir")
expect_violations(1 "pto_atomic_file@base>pto_trace_db@trace_db")
# The importer sits just above trace_db: it may link trace_db, nothing above it.
expect_violations(0 "pto_importer@importer>pto_trace_db@trace_db")
expect_violations(1 "pto_importer@importer>pto_profiler@profiler")
pto_layer_violations(found "pto_sim_arch@simulator/arch>pto_session@driver")
if(NOT found MATCHES "pto_sim_arch \\(simulator/arch, layer 6 'simulator/arch\\|simulator/numerics'\\) links pto_session \\(driver, layer 9 'driver'\\), a layer above it")
  message(FATAL_ERROR "unexpected message: ${found}")
endif()
# Nothing below the driver may link it (bisection and what-if were once in validate and
# profiler); the driver links nothing of the tools.
expect_violations(1 "pto_validate@validate>pto_session@driver")
expect_violations(1 "pto_profiler@profiler>pto_whatif@driver")
expect_violations(1 "pto_golden_diff@validate>pto_bisect@driver")
expect_violations(1 "pto_session@driver>pto_gui_model@gui/model")

# The GUI reaches the IR library through validate, but never the compiler's passes, the
# simulator or the driver — neither directly nor through a chain of links.
function(expect_reaches expected)
  pto_reach_violations(found ${ARGN})
  list(LENGTH found count)
  if(NOT count EQUAL expected)
    message(FATAL_ERROR "expected ${expected} reach violation(s) for '${ARGN}', found ${count}: ${found}")
  endif()
endfunction()
expect_reaches(0
  "pto_gui_widgets@gui/widgets>pto_gui_model@gui/model"
  "pto_gui_model@gui/model>pto_validate@validate"
  "pto_validate@validate>pto_tensor_io@validate"
  "pto_tensor_io@validate>pto_ir@compiler/ir"
  "pto@cli>pto_whatif@driver")
expect_reaches(1 "pto_gui_model@gui/model>pto_whatif@driver")
pto_reach_violations(found
  "pto_gui_widgets@gui/widgets>pto_gui_model@gui/model"
  "pto_gui_model@gui/model>pto_validate@validate"
  "pto_validate@validate>pto_pipeline@compiler"
  "pto_pipeline@compiler>pto_passes@compiler/passes")
list(LENGTH found count)
if(NOT count EQUAL 4) # each GUI target reaches both the pipeline and the passes
  message(FATAL_ERROR "expected 4 reach violations, found ${count}: ${found}")
endif()
if(NOT found MATCHES "pto_gui_widgets \\(gui/widgets\\) reaches pto_passes: pto_gui_widgets -> pto_gui_model -> pto_validate -> pto_pipeline -> pto_passes")
  message(FATAL_ERROR "unexpected message: ${found}")
endif()

# Real configures of a tiny project: one C library per folder of `libs` ("folder=name"), with the
# links "from>to"; returns the configure's exit code and its stderr.
function(configure_tiny out_result out_err libs links)
  set(project ${WORK_DIR}/tiny)
  file(REMOVE_RECURSE ${project})
  set(top "cmake_minimum_required(VERSION 3.25)\nproject(tiny LANGUAGES C)\n"
          "include(${PTO_SOURCE_DIR}/cmake/Layers.cmake)\n")
  foreach(lib IN LISTS libs)
    string(REPLACE "=" ";" parts "${lib}")
    list(GET parts 0 folder)
    list(GET parts 1 name)
    file(MAKE_DIRECTORY ${project}/${folder})
    file(WRITE ${project}/${folder}/${name}.c "int ${name}(void) { return 0; }\n")
    set(text "add_library(${name} STATIC ${name}.c)\n")
    foreach(link IN LISTS links)
      if(link MATCHES "^${name}>(.*)$")
        string(APPEND text "target_link_libraries(${name} PRIVATE ${CMAKE_MATCH_1})\n")
      endif()
    endforeach()
    file(WRITE ${project}/${folder}/CMakeLists.txt "${text}")
    list(APPEND top "add_subdirectory(${folder})\n")
  endforeach()
  list(APPEND top "pto_check_layers()\n")
  list(JOIN top "" top)
  file(WRITE ${project}/CMakeLists.txt "${top}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build
                  RESULT_VARIABLE result OUTPUT_VARIABLE ignored ERROR_VARIABLE err)
  set(${out_result} ${result} PARENT_SCOPE)
  set(${out_err} "${err}" PARENT_SCOPE)
endfunction()

function(expect_configure_fails libs links pattern)
  configure_tiny(result err "${libs}" "${links}")
  if(result EQUAL 0)
    message(FATAL_ERROR "the wrong link ${links} configured without error")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "the configure failed without naming the wrong link ${links}:\n${err}")
  endif()
endfunction()

set(libs "compiler/ir=pto_ir" "trace_db=pto_trace_db" "profiler=pto_profiler"
         "driver=pto_session" "gui/model=pto_gui_model" "cli=pto")
# trace_db links compiler/ir; the profiler links the driver; the GUI links the driver.
expect_configure_fails("${libs}" "pto_trace_db>pto_ir"
  "pto_trace_db \\(trace_db, layer 1 'trace_db'\\) links pto_ir \\(compiler/ir, layer 3")
expect_configure_fails("${libs}" "pto_profiler>pto_session"
  "pto_profiler \\(profiler, layer 8 'validate\\|profiler'\\) links pto_session \\(driver, layer 9 'driver'\\)")
expect_configure_fails("${libs}" "pto_gui_model>pto_session"
  "pto_gui_model \\(gui/model\\) reaches pto_session: pto_gui_model -> pto_session")
# With the right links it configures.
configure_tiny(result err "${libs}"
  "pto_ir>pto_trace_db;pto_session>pto_profiler;pto>pto_session;pto_gui_model>pto_profiler")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the right links did not configure:\n${err}")
endif()
message(STATUS "layering check: ok")
