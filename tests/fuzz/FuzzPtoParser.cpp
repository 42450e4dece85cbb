// Fuzz harness of the .pto parser: any text either parses (and then prints, re-parses to the
// same text and verifies) or throws CompileError — never a crash or another exception.
#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

#include <exception>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kHarness = "fuzz_pto_parser";

void checkRoundTrip(const pto::Module& module, pto::PrintOptions options) {
    const std::string printed = pto::printModule(module, options);
    try {
        pto::Module again = pto::parseModule(printed, "printed.pto");
        if (pto::printModule(again, options) != printed)
            pto::fuzz::fail(kHarness, "printing the re-parsed module differs:\n" + printed);
        pto::verifyModule(again);
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness, std::string("printed text does not parse back: ") + e.what() +
                                      "\n--- printed ---\n" + printed);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    pto::Module module;
    try {
        module = pto::parseModule(text, "fuzz.pto");
    } catch (const pto::CompileError&) {
        return 0;
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness, std::string("exception other than CompileError: ") + e.what());
    }
    checkRoundTrip(module, pto::PrintOptions{});
    checkRoundTrip(module, pto::PrintOptions{.locs = true, .ids = true});
    return 0;
}
