// Golden-file tests of IR text, MLIR style: each *.pto file in a directory is a test case with
// its input, the pipelines to run, and the expected output or errors written as comments.
#pragma once

// A case file:
//
//   // RUN: roundtrip
//   func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
//     %y = add %x, 1.0
//     return %y
//   }
//   // CHECK: %y = adds %x, 1.0
//   // CHECK-NEXT: return %y
//
// - `// RUN: <spec>` (one or more, anywhere): each spec is handed to the suite's pipeline
//   callback with the parsed module; the text it returns is matched against the CHECK lines.
// - `// CHECK: text` finds the next output line containing text, after the previous match;
//   `CHECK-NEXT` the line right after it, `CHECK-SAME` the same line, `CHECK-EMPTY` an empty
//   next line, `CHECK-NOT` no line containing text between the surrounding matches,
//   `CHECK-LABEL` is CHECK.
// - `// expected-error {{message}}` on a line, or `// expected-error@+1 {{message}}` (also @-N,
//   @+N:col to check the column) before it: parsing or the pipeline must throw a CompileError on
//   that line whose message contains `message`. One error per chunk.
// - `// -----` splits the file into chunks that run independently (line numbers stay those of
//   the file).
//
// A suite registers a directory and its callback:
//
//   std::string runPipeline(const std::string& spec, pto::Module& m);
//   PTO_GOLDEN_SUITE(ParserGolden, PTO_SOURCE_DIR "/tests/golden/parser", runPipeline);

#include "compiler/ir/Graph.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto::golden {

// Runs one RUN spec on a parsed module; returns the text to check. Throws CompileError for
// diagnostics, anything else for an unknown spec.
using PipelineFn = std::function<std::string(const std::string& spec, Module& module)>;

enum class CheckKind { Check, Next, Same, Not, Empty };

struct Check {
    CheckKind kind = CheckKind::Check;
    std::string text;
    int line = 0; // of the directive in the case file
};

struct ExpectedError {
    int line = 0;           // where the error must be reported
    std::optional<int> col; // and the column, when given
    std::string message;    // a substring of the message
    int directiveLine = 0;
};

struct Chunk {
    std::string text; // the chunk with the other chunks' lines blanked, so line numbers hold
    std::vector<Check> checks;
    std::vector<ExpectedError> errors;
};

struct GoldenFile {
    std::string path;
    std::vector<std::string> runSpecs;
    std::vector<Chunk> chunks;
    std::vector<std::string> problems; // malformed directives
};

GoldenFile parseGoldenFile(const std::string& path, const std::string& text);

// Matches `output` against checks; returns one message per failed check.
std::vector<std::string> matchChecks(const std::string& output, const std::vector<Check>& checks);

// Runs every chunk of the file with every RUN spec; returns the failures (empty = passed).
std::vector<std::string> runGoldenFile(const GoldenFile& file, const PipelineFn& pipeline);
std::vector<std::string> runGoldenFile(const std::string& path, const PipelineFn& pipeline);

// The *.pto files of a directory, sorted.
std::vector<std::string> discoverCases(const std::string& directory);
// A gtest parameter name from a case path: its file stem with non-alphanumerics as '_'.
std::string caseName(const testing::TestParamInfo<std::string>& info);

} // namespace pto::golden

// Defines a parameterised gtest suite with one test per case file of `directory`.
#define PTO_GOLDEN_SUITE(SuiteName, directory, pipeline)                                           \
    class SuiteName : public ::testing::TestWithParam<std::string> {};                             \
    TEST_P(SuiteName, Case) {                                                                      \
        for (const std::string& failure : ::pto::golden::runGoldenFile(GetParam(), pipeline))      \
            ADD_FAILURE() << failure;                                                              \
    }                                                                                              \
    GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SuiteName);                                      \
    INSTANTIATE_TEST_SUITE_P(Files, SuiteName,                                                     \
                             ::testing::ValuesIn(::pto::golden::discoverCases(directory)),         \
                             ::pto::golden::caseName)
