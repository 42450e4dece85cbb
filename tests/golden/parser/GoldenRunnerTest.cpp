// The golden runner itself: directive parsing, CHECK matching and expected-error handling, on
// small in-memory case files (so a broken runner cannot make every golden test pass).
#include "tests/golden/GoldenRunner.h"

#include "compiler/ir/Printer.h"

#include <gtest/gtest.h>

namespace pto::golden {
namespace {

std::vector<Check> checks(std::initializer_list<std::pair<CheckKind, std::string>> items) {
    std::vector<Check> out;
    int line = 1;
    for (auto& [kind, text] : items) out.push_back({kind, text, line++});
    return out;
}

TEST(GoldenRunner, MatchesChecksInOrder) {
    const std::string out = "alpha\nbeta gamma\n\ndelta\nepsilon\n";
    using K = CheckKind;
    EXPECT_TRUE(matchChecks(out, checks({{K::Check, "alpha"},
                                         {K::Next, "beta"},
                                         {K::Same, "gamma"},
                                         {K::Empty, ""},
                                         {K::Next, "delta"}}))
                    .empty());
    EXPECT_TRUE(
        matchChecks(out, checks({{K::Check, "beta"}, {K::Not, "alpha"}, {K::Check, "epsilon"}}))
            .empty());
    EXPECT_FALSE(matchChecks(out, checks({{K::Check, "delta"}, {K::Check, "alpha"}})).empty());
    EXPECT_FALSE(matchChecks(out, checks({{K::Check, "alpha"}, {K::Next, "delta"}})).empty());
    EXPECT_FALSE(
        matchChecks(out, checks({{K::Check, "alpha"}, {K::Not, "beta"}, {K::Check, "delta"}}))
            .empty());
    EXPECT_FALSE(matchChecks(out, checks({{K::Check, "beta"}, {K::Same, "delta"}})).empty());
    EXPECT_FALSE(matchChecks(out, checks({{K::Check, "zeta"}})).empty());
    EXPECT_FALSE(matchChecks(out, checks({{K::Check, "delta"}, {K::Not, "epsilon"}})).empty());
}

TEST(GoldenRunner, ParsesDirectivesAndChunks) {
    GoldenFile f = parseGoldenFile("case.pto", R"(// RUN: roundtrip
// RUN: other spec
func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x
}
// CHECK-LABEL: func @f
// CHECK-NEXT: return %x
// -----
// expected-error@+1 {{unknown op}}
%y = bad %x  // expected-error@-3:7 {{two}}
// expected-error@bogus {{x}}
)");
    EXPECT_EQ(f.runSpecs, (std::vector<std::string>{"roundtrip", "other spec"}));
    ASSERT_EQ(f.chunks.size(), 2u);
    ASSERT_EQ(f.chunks[0].checks.size(), 2u);
    EXPECT_EQ(f.chunks[0].checks[1].kind, CheckKind::Next);
    EXPECT_EQ(f.chunks[0].checks[1].text, "return %x");
    ASSERT_EQ(f.chunks[1].errors.size(), 2u);
    EXPECT_EQ(f.chunks[1].errors[0].line, 10);
    EXPECT_EQ(f.chunks[1].errors[0].message, "unknown op");
    EXPECT_EQ(f.chunks[1].errors[1].line, 7);
    EXPECT_EQ(f.chunks[1].errors[1].col, 7);
    EXPECT_EQ(f.problems.size(), 1u);
    // Chunks keep the file's line numbers.
    EXPECT_EQ(f.chunks[1].text.substr(0, 8), std::string(8, '\n'));
}

std::string print(const std::string&, Module& m) {
    return printModule(m);
}

TEST(GoldenRunner, ReportsWrongAndMissingErrors) {
    const std::string good = R"(// RUN: print
func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = softmx %x  // expected-error {{unknown op 'softmx'}}
  return %y
}
)";
    EXPECT_TRUE(runGoldenFile(parseGoldenFile("g.pto", good), print).empty());
    std::string wrongLine = good;
    wrongLine.replace(wrongLine.find("expected-error"), 14, "expected-error@+1");
    EXPECT_EQ(runGoldenFile(parseGoldenFile("g.pto", wrongLine), print).size(), 1u);
    std::string wrongText = good;
    wrongText.replace(wrongText.find("softmx'}}"), 6, "other");
    EXPECT_EQ(runGoldenFile(parseGoldenFile("g.pto", wrongText), print).size(), 1u);
    const std::string noError = R"(// RUN: print
func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = exp %x  // expected-error {{nothing}}
  return %y
}
)";
    EXPECT_EQ(runGoldenFile(parseGoldenFile("g.pto", noError), print).size(), 1u);
    const std::string unexpected = "// RUN: print\nfunc @f(%x: tensor<4xf32>) {\n";
    EXPECT_EQ(runGoldenFile(parseGoldenFile("g.pto", unexpected), print).size(), 1u);
    EXPECT_EQ(runGoldenFile(parseGoldenFile("g.pto", "func"), print).size(), 1u); // no RUN line
}

} // namespace
} // namespace pto::golden
