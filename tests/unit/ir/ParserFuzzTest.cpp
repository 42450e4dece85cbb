// Deterministic mutation fuzzing of the .pto and PTO-listing parsers: thousands of damaged
// programs must either parse (and then print stably) or throw CompileError, never crash or
// throw anything else.
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace pto {
namespace {

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> seedPrograms(const std::string& extension) {
    std::vector<std::string> seeds;
    for (const char* dir : {PTO_SOURCE_DIR "/tests/golden/parser", PTO_SOURCE_DIR "/samples",
                            PTO_SOURCE_DIR "/tests/unit/ir"}) {
        std::vector<std::filesystem::path> paths;
        for (const auto& e : std::filesystem::directory_iterator(dir))
            if (e.path().extension() == extension) paths.push_back(e.path());
        std::sort(paths.begin(), paths.end());
        for (const auto& p : paths) {
            std::string text = readFile(p);
            if (text.find("expected-error") == std::string::npos) seeds.push_back(text);
        }
    }
    return seeds;
}

const std::vector<std::string> kTokens = {"%x",
                                          "%0",
                                          "@f",
                                          "(",
                                          ")",
                                          "{",
                                          "}",
                                          "[",
                                          "]",
                                          "<",
                                          ">",
                                          ",",
                                          ":",
                                          "=",
                                          "->",
                                          "<-",
                                          "#",
                                          "!",
                                          "/",
                                          "-",
                                          "return",
                                          "func @g(%a: tensor<4xf32>) -> tensor<4xf32> {",
                                          "tload",
                                          "tstore",
                                          "tmove",
                                          "gm_tensor",
                                          "matmul_acc",
                                          "softmax",
                                          "tile<16x16xf32, UB>",
                                          "tensor<0x4xf32>",
                                          "tensor<4xf64>",
                                          "tensor<1x1x1x1x1x1x1xf32>",
                                          "tensor<99999999999x99999999999xf32>",
                                          "99999999999999999999",
                                          "1e999",
                                          "-inf",
                                          "nan",
                                          "0x",
                                          "loc(",
                                          "loc(0:0)",
                                          "#3<-#",
                                          "origin(",
                                          "vec_tile [",
                                          "cube_tile [1, 2], [3, 4], [5, 6]",
                                          "{axis = -7}",
                                          "keepdim",
                                          "\"",
                                          "\\",
                                          "//",
                                          "\n",
                                          "TADD",
                                          "UB[0x",
                                          "GM[0xffffffffffffffff]",
                                          ":f32[16x",
                                          "/0]",
                                          "->V 9",
                                          "task 9 @k",
                                          "dep 0 -> 0 raw",
                                          "kernel @k aic {",
                                          "after 0 war %x",
                                          "{scalar = ",
                                          std::string("\0", 1),
                                          "\xff",
                                          "\xc3\xa9"};

// One random edit of `text`.
void mutate(std::string& text, std::mt19937& rng) {
    auto pick = [&](size_t n) {
        return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    };
    size_t at = pick(text.size() + 1);
    switch (pick(8)) {
    case 0: // delete a few characters
        text.erase(std::min(at, text.size()), 1 + pick(12));
        break;
    case 1: // insert a character
        text.insert(at, 1, char(pick(256)));
        break;
    case 2: // insert a token
        text.insert(at, kTokens[pick(kTokens.size())]);
        break;
    case 3: { // duplicate, delete or swap lines
        std::vector<std::string> lines;
        std::istringstream in(text);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        if (lines.size() < 2) break;
        size_t a = pick(lines.size()), b = pick(lines.size());
        int how = int(pick(3));
        if (how == 0)
            lines.insert(lines.begin() + long(a), lines[b]);
        else if (how == 1)
            lines.erase(lines.begin() + long(a));
        else
            std::swap(lines[a], lines[b]);
        text.clear();
        for (const std::string& l : lines) text += l + "\n";
        break;
    }
    case 4: { // change a number
        size_t d = text.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        const char* numbers[] = {"0", "-1", "1", "3", "65536", "4611686018427387904", "7"};
        text.replace(d, 1, numbers[pick(std::size(numbers))]);
        break;
    }
    case 5: // truncate
        text.resize(at);
        break;
    case 6: { // replace an identifier character
        size_t p = text.find_first_of("abcdefghijklmnopqrstuvwxyz", at);
        if (p != std::string::npos) text[p] = char('a' + pick(26));
        break;
    }
    default: // swap two characters
        if (text.size() > 1) std::swap(text[pick(text.size())], text[pick(text.size())]);
        break;
    }
}

// Parses `text` as .pto: must parse (then print stably and verify) or throw CompileError.
void checkIrText(const std::string& text) {
    Module m;
    try {
        m = parseModule(text, "fuzz.pto");
    } catch (const CompileError&) {
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "non-CompileError exception: " << e.what() << "\n--- input ---\n" << text;
        return;
    }
    for (PrintOptions options : {PrintOptions{}, PrintOptions{.locs = true, .ids = true}}) {
        std::string printed = printModule(m, options);
        try {
            Module again = parseModule(printed, "printed.pto");
            EXPECT_EQ(printModule(again, options), printed) << "--- input ---\n" << text;
            verifyModule(again);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "printed text does not parse: " << e.what() << "\n--- printed ---\n"
                          << printed << "\n--- input ---\n"
                          << text;
        }
    }
}

void checkPtoText(const std::string& text) {
    PtoProgram p;
    try {
        p = parsePtoProgram(text, "fuzz.ptoasm");
    } catch (const CompileError&) {
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "non-CompileError exception: " << e.what() << "\n--- input ---\n" << text;
        return;
    }
    std::string printed = printPtoProgram(p);
    try {
        EXPECT_EQ(printPtoProgram(parsePtoProgram(printed, "printed.ptoasm")), printed);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "printed listing does not parse: " << e.what() << "\n--- printed ---\n"
                      << printed;
    }
}

// The number of mutations per test: `fallback`, or PTO_FUZZ_ITERATIONS for longer campaigns.
int iterations(int fallback) {
    const char* env = std::getenv("PTO_FUZZ_ITERATIONS");
    return env ? std::max(1, std::atoi(env)) : fallback;
}

TEST(ParserFuzz, MutatedProgramsNeverCrash) {
    std::vector<std::string> seeds = seedPrograms(".pto");
    ASSERT_GT(seeds.size(), 5u);
    std::mt19937 rng(20240501);
    for (int i = 0, n = iterations(4000); i < n && !HasFailure(); ++i) {
        std::string text = seeds[size_t(i) % seeds.size()];
        int edits = 1 + int(rng() % 3);
        for (int e = 0; e < edits; ++e) mutate(text, rng);
        checkIrText(text);
    }
}

TEST(ParserFuzz, MutatedListingsNeverCrash) {
    std::vector<std::string> seeds = seedPrograms(".ptoasm");
    ASSERT_FALSE(seeds.empty());
    std::mt19937 rng(77);
    for (int i = 0, n = iterations(2000); i < n && !HasFailure(); ++i) {
        std::string text = seeds[size_t(i) % seeds.size()];
        int edits = 1 + int(rng() % 3);
        for (int e = 0; e < edits; ++e) mutate(text, rng);
        checkPtoText(text);
    }
}

} // namespace
} // namespace pto
