# The layering rule, read from the folders: a target may link targets of its own layer or of
# layers below it, never above. A target's layer is that of the longest folder below that holds
# its CMakeLists (trace_db/…, compiler/ir/…); targets outside these folders (tests, bench,
# third-party packages) are not checked. docs/ARCHITECTURE.md, "Dependencies", says the same.

# The layers, lowest first (folders of one layer separated by '|'). This is the one place the
# order is written.
set(PTO_LAYERS
  "base"                                             # atomic files: depends on nothing of ours
  "trace_db"                                         # the trace file
  "importer"                                         # Ascend profiler output → measured trace
  "compiler/ir"                                      # the IR, its text, verifier, scalar numerics
  "compiler/frontend|compiler/interp|compiler/passes"
  "compiler"                                         # pto_pipeline: passes in order, stage recording
  "simulator/arch|simulator/numerics"
  "simulator"                                        # pto_simulator (simulator/engine)
  "validate|profiler"                                # readers of tensors and trace files
  "driver"                                           # session (compile + simulate + record), bisection, what-if
  "cli|gui|samples"                                  # the tools
)

# (tests/unit/layers/LayeringTest.cmake checks the layer numbers in its messages: update them
# when a layer is added.)

# Links that go up on purpose, "from>to" by target name. Each says why. (None today.)
set(PTO_LAYER_EXCEPTIONS "")

# What a folder's targets may never reach, directly or through other targets: "folder:target".
# The GUI reads trace files and tensors; it links validate, the profiler and through them the
# IR library's value types (TensorData, DType, Shape, op kinds), but it never compiles, runs or
# re-runs a program (docs/ARCHITECTURE.md, "Decisions", pto-studio's shape).
set(PTO_NEVER_REACHES
  "gui:pto_frontend" "gui:pto_interp" "gui:pto_passes" "gui:pto_pipeline"
  "gui:pto_sim_arch" "gui:pto_sim_numerics" "gui:pto_simulator"
  "gui:pto_session" "gui:pto_bisect" "gui:pto_whatif")

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

# The violations of PTO_NEVER_REACHES among `edges` (as for pto_layer_violations): one message
# per target of a listed folder that reaches a forbidden target through any chain of links.
function(pto_reach_violations out)
  set(nodes "")
  foreach(edge IN LISTS ARGN)
    if(NOT edge MATCHES "^([^@]+)@([^>]*)>([^@]+)@(.*)$")
      message(FATAL_ERROR "pto_reach_violations: malformed edge '${edge}'")
    endif()
    list(APPEND nodes ${CMAKE_MATCH_1})
    set(folder_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    list(APPEND links_${CMAKE_MATCH_1} ${CMAKE_MATCH_3})
  endforeach()
  list(REMOVE_DUPLICATES nodes)
  set(messages "")
  foreach(rule IN LISTS PTO_NEVER_REACHES)
    string(REPLACE ":" ";" parts "${rule}")
    list(GET parts 0 ruleFolder)
    list(GET parts 1 forbidden)
    foreach(n IN LISTS nodes)
      if(NOT (folder_${n} STREQUAL ruleFolder OR folder_${n} MATCHES "^${ruleFolder}/"))
        continue()
      endif()
      # Breadth-first over the links, remembering the chain that reached each target.
      set(seen ${n})
      set(queue ${n})
      set(chain_${n} ${n})
      while(queue)
        list(POP_FRONT queue t)
        foreach(l IN LISTS links_${t})
          if(l IN_LIST seen)
            continue()
          endif()
          list(APPEND seen ${l})
          list(APPEND queue ${l})
          set(chain_${l} "${chain_${t}} -> ${l}")
          if(l STREQUAL forbidden)
            list(APPEND messages "${n} (${folder_${n}}) reaches ${forbidden}: ${chain_${l}}")
          endif()
        endforeach()
      endwhile()
    endforeach()
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
  pto_reach_violations(reaches ${edges})
  list(APPEND violations ${reaches})
  if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "layering (cmake/Layers.cmake):\n  ${text}")
  endif()
endfunction()
