# Helpers that give every PTO Studio target the same warnings and test conventions.

set(PTO_WARNINGS -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(PTO_WERROR)
  list(APPEND PTO_WARNINGS -Werror)
endif()

# pto_library(NAME SOURCES... [DEPS ...]): a static library rooted at the repo top so that
# includes read "compiler/ir/Graph.h".
function(pto_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${PTO_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# pto_test(NAME LABEL SOURCES... [DEPS ...]): one GoogleTest executable registered with ctest
# under a label (unit, integration, golden, gui, fuzz). With PTO_TEST_LABELS set (a list), a
# test whose label is not in it is not built at all (CI's asan part runs only some labels).
# USES_CLI: the test runs the `pto` command (PTO_CLI names it; pto is built first).
# DEFINITIONS: extra compile definitions.
function(pto_test name label)
  if(PTO_TEST_LABELS AND NOT label IN_LIST PTO_TEST_LABELS)
    return()
  endif()
  cmake_parse_arguments(ARG "USES_CLI" "" "SOURCES;DEPS;DEFINITIONS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${PTO_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" PTO_BINARY_DIR="${PROJECT_BINARY_DIR}" ${ARG_DEFINITIONS})
  if(ARG_USES_CLI)
    target_compile_definitions(${name} PRIVATE PTO_CLI="$<TARGET_FILE:pto>")
    add_dependencies(${name} pto)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
