# Runs with `cmake -P`: the layer rule of cmake/Layers.cmake on fake graphs, then on a tiny
# project whose trace_db library links the IR library (a layer above it), which must fail to
# configure with a message naming both.
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
  "pto_whatif@profiler/whatif>pto_tensor_io@validate"
  "unit_ir@tests/unit/ir>pto_ir@compiler/ir"
  "pto_ir@compiler/ir>fmt@")
# A link to a layer above fails, and says which layers.
expect_violations(1 "pto_trace_db@trace_db>pto_ir@compiler/ir")
# The importer sits just above trace_db: it may link trace_db, nothing above it.
expect_violations(0 "pto_importer@importer>pto_trace_db@trace_db")
expect_violations(1 "pto_importer@importer>pto_profiler@profiler")
pto_layer_violations(found "pto_sim_arch@simulator/arch>pto_session@cli/session")
if(NOT found MATCHES "pto_sim_arch \\(simulator/arch, layer 5 'simulator/arch\\|simulator/numerics'\\) links pto_session \\(cli/session, layer 8 'cli/session'\\), a layer above it")
  message(FATAL_ERROR "unexpected message: ${found}")
endif()
# The listed exceptions pass; the same link from another target does not.
expect_violations(0 "pto_bisect@validate>pto_session@cli/session")
expect_violations(1 "pto_validate@validate>pto_session@cli/session")

# A real configure: trace_db links compiler/ir.
set(project ${WORK_DIR}/wrong-link)
file(REMOVE_RECURSE ${project})
file(MAKE_DIRECTORY ${project}/trace_db ${project}/compiler/ir)
file(WRITE ${project}/trace_db/t.c "int t(void) { return 0; }\n")
file(WRITE ${project}/compiler/ir/i.c "int i(void) { return 0; }\n")
file(WRITE ${project}/compiler/ir/CMakeLists.txt "add_library(pto_ir STATIC i.c)\n")
file(WRITE ${project}/trace_db/CMakeLists.txt
  "add_library(pto_trace_db STATIC t.c)\ntarget_link_libraries(pto_trace_db PRIVATE pto_ir)\n")
file(WRITE ${project}/CMakeLists.txt
  "cmake_minimum_required(VERSION 3.25)\nproject(wrong_link LANGUAGES C)\n"
  "include(${PTO_SOURCE_DIR}/cmake/Layers.cmake)\n"
  "add_subdirectory(compiler/ir)\nadd_subdirectory(trace_db)\npto_check_layers()\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "the wrong link configured without error:\n${out}${err}")
endif()
if(NOT err MATCHES "pto_trace_db \\(trace_db, layer 0 'trace_db'\\) links pto_ir \\(compiler/ir, layer 2")
  message(FATAL_ERROR "the configure failed without naming the wrong link:\n${err}")
endif()
# Without the wrong link it configures.
file(WRITE ${project}/trace_db/CMakeLists.txt "add_library(pto_trace_db STATIC t.c)\n")
file(REMOVE_RECURSE ${project}/build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the right links did not configure:\n${out}${err}")
endif()
message(STATUS "layering check: ok")
