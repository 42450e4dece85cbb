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
# under a label (unit, integration, golden, gui, fuzz).
function(pto_test name label)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${PTO_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" PTO_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
