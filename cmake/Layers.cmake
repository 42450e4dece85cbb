# The layering rule, read from the folders: a target may link targets of its own layer or of
# layers below it, never above. A target's layer is that of the longest folder below that holds
# its CMakeLists (trace_db/…, compiler/ir/…); targets outside these folders (tests, bench,
# third-party packages) are not checked. docs/ARCHITECTURE.md, "Dependencies", says the same.

# The layers, lowest first (folders of one layer separated by '|'). This is the one place the
# order is written.
set(PTO_LAYERS
  "trace_db"                                         # the trace file: depends on nothing of ours
  "importer"                                         # Ascend profiler output → measured trace
  "compiler/ir"                                      # the IR, its text, verifier, scalar numerics
  "compiler/frontend|compiler/interp|compiler/passes"
  "compiler"                                         # pto_pipeline: passes in order, stage recording
  "simulator/arch|simulator/numerics"
  "simulator"                                        # pto_simulator (simulator/engine)
  "validate|profiler"                                # readers of tensors and trace files
  "cli/session"                                      # compile + simulate + record
  "cli|gui|samples"                                  # the tools
)

# (tests/unit/layers/LayeringTest.cmake checks the layer numbers in its messages: update them
# when a layer is added.)

# Links that go up on purpose, "from>to" by target name. Each says why.
set(PTO_LAYER_EXCEPTIONS
  # Bisection and what-if re-run a program through the session: to be moved to driver/ (issue 14),
  # a layer above compiler, simulator, validate and profiler and below cli and gui.
  "pto_bisect>pto_session"
  "pto_whatif>pto_session"
)

# The layer (index into PTO_LAYERS) of a folder relative to the repository root, or -1.
function(pto_layer_of folder out)
  set(best -1)
  set(bestLength 0)
  set(level 0)
  foreach(layer IN LISTS PTO_LAYERS)
    string(REPLACE "|" ";" folders "${layer}")
    foreach(f IN LISTS folders)
      string(LENGTH "${f}" length)
      if((folder STREQUAL f OR folder MATCHES "^${f}/") AND length GREATER bestLength)
        set(best ${level})
        set(bestLength ${length})
      endif()
    endforeach()
    math(EXPR level "${level} + 1")
  endforeach()
  set(${out} ${best} PARENT_SCOPE)
endfunction()

# The violations among `edges`, each "from@fromFolder>to@toFolder" (folders relative to the
# repository root): one message per link to a higher layer that is not an exception.
function(pto_layer_violations out)
  set(messages "")
  foreach(edge IN LISTS ARGN)
    if(NOT edge MATCHES "^([^@]+)@([^>]*)>([^@]+)@(.*)$")
      message(FATAL_ERROR "pto_layer_violations: malformed edge '${edge}'")
    endif()
    set(from ${CMAKE_MATCH_1})
    set(fromFolder ${CMAKE_MATCH_2})
    set(to ${CMAKE_MATCH_3})
    set(toFolder ${CMAKE_MATCH_4})
    pto_layer_of("${fromFolder}" fromLayer)
    pto_layer_of("${toFolder}" toLayer)
    if(fromLayer LESS 0 OR toLayer LESS 0 OR NOT toLayer GREATER fromLayer)
      continue()
    endif()
    if("${from}>${to}" IN_LIST PTO_LAYER_EXCEPTIONS)
      continue()
    endif()
    list(GET PTO_LAYERS ${fromLayer} fromName)
    list(GET PTO_LAYERS ${toLayer} toName)
    list(APPEND messages
      "${from} (${fromFolder}, layer ${fromLayer} '${fromName}') links ${to} (${toFolder}, layer ${toLayer} '${toName}'), a layer above it")
  endforeach()
  set(${out} "${messages}" PARENT_SCOPE)
endfunction()

# Every target defined under `dir` and its subdirectories.
function(pto_targets_under dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    pto_targets_under("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

# Checks the project's real target graph (direct links); a violation fails the configure.
function(pto_check_layers)
  pto_targets_under("${PROJECT_SOURCE_DIR}" targets)
  set(edges "")
  foreach(t IN LISTS targets)
    get_target_property(dir ${t} SOURCE_DIR)
    file(RELATIVE_PATH from "${PROJECT_SOURCE_DIR}" "${dir}")
    get_target_property(links ${t} LINK_LIBRARIES)
    if(NOT links)
      continue()
    endif()
    foreach(l IN LISTS links)
      if(NOT TARGET "${l}")
        continue()
      endif()
      get_target_property(imported ${l} IMPORTED)
      if(imported)
        continue()
      endif()
      get_target_property(linkedDir ${l} SOURCE_DIR)
      file(RELATIVE_PATH to "${PROJECT_SOURCE_DIR}" "${linkedDir}")
      list(APPEND edges "${t}@${from}>${l}@${to}")
    endforeach()
  endforeach()
  pto_layer_violations(violations ${edges})
  if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "layering (cmake/Layers.cmake):\n  ${text}")
  endif()
endfunction()
