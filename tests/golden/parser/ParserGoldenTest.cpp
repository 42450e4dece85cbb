// Golden tests of the .pto parser and printer: every *.pto case in this folder.
#include "tests/golden/GoldenRunner.h"

#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"

#include <stdexcept>

namespace {

// Prints `m` with `options`, parses the text back and checks that printing again gives the same.
std::string printStable(const pto::Module& m, pto::PrintOptions options) {
    std::string text = pto::printModule(m, options);
    pto::Module again = pto::parseModule(text, "<reprint>");
    std::string second = pto::printModule(again, options);
    if (second != text)
        throw std::runtime_error("printing is not stable:\n" + text + "\n--- reprinted ---\n" +
                                 second);
    return text;
}

// RUN specs: "roundtrip" (canonical text, checked stable with and without locs/ids),
// "print-locs" (text with locs and ids), "parse" (parse only, for diagnostics).
std::string runPipeline(const std::string& spec, pto::Module& m) {
    if (spec == "parse") return {};
    if (spec == "print-locs") return printStable(m, {.locs = true, .ids = true});
    if (spec == "roundtrip") {
        printStable(m, {.locs = true, .ids = true});
        return printStable(m, {});
    }
    throw std::invalid_argument("unknown RUN spec '" + spec + "'");
}

} // namespace

PTO_GOLDEN_SUITE(ParserGolden, PTO_SOURCE_DIR "/tests/golden/parser", runPipeline);
