// Makes and caches `pto diff --bisect` traces (with their printed report) for GUI tests.
#include "tests/gui/DiffFixtures.h"

#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace pto::test {

BisectTrace bisectTrace(const std::string& sample, const std::string& fault) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(PTO_BINARY_DIR) / "gui-fixtures";
    fs::create_directories(dir);
    std::string key = fmt::format("bisect_{}_{}", sample, fault);
    for (char& c : key)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    BisectTrace out{dir / (key + ".db"), {}};
    const fs::path reportFile = dir / (key + ".txt");
    if (fixtureIsFresh(out.trace) && fs::exists(reportFile)) {
        std::ifstream in(reportFile);
        std::stringstream text;
        text << in.rdbuf();
        out.report = text.str();
        return out;
    }
    const fs::path temp = dir / fmt::format("{}.{}.tmp.db", key, ::getpid());
    const std::string command =
        fmt::format("{} diff --bisect {} --fault {} -o {}", PTO_CLI,
                    shellQuote(fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, sample)),
                    shellQuote(fault), shellQuote(temp.string()));
    const ProcessResult result = runCommand(command);
    // Exit code 1: a divergence was found, which is what a planted fault should give.
    if (result.exitCode != 1 || !fs::exists(temp)) {
        ADD_FAILURE() << command << " gave " << result.exitCode << ": " << result.err;
        return out;
    }
    out.report = result.out;
    std::ofstream(reportFile) << result.out;
    fs::rename(temp, out.trace);
    return out;
}

} // namespace pto::test
