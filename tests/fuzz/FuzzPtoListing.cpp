// Fuzz harness of the PTO listing (.ptoasm) parser: any text either parses (and then prints and
// re-parses to the same listing) or throws CompileError — never a crash or another exception.
#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "tests/fuzz/FuzzSupport.h"

#include <exception>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kHarness = "fuzz_pto_listing";

void checkRoundTrip(const pto::PtoProgram& program) {
    const std::string printed = pto::printPtoProgram(program);
    try {
        if (pto::printPtoProgram(pto::parsePtoProgram(printed, "printed.ptoasm")) != printed)
            pto::fuzz::fail(kHarness, "printing the re-parsed listing differs:\n" + printed);
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness, std::string("printed listing does not parse back: ") + e.what() +
                                      "\n--- printed ---\n" + printed);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    pto::PtoProgram program;
    try {
        program = pto::parsePtoProgram(text, "fuzz.ptoasm");
    } catch (const pto::CompileError&) {
        return 0;
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness, std::string("exception other than CompileError: ") + e.what());
    }
    checkRoundTrip(program);
    return 0;
}
