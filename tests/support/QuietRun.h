// Runs a test program under tests/integration/run/programs through the simulator with a fixed
// seed and no trace, for the run tests that compare its outputs with the interpreters.
#pragma once

#include "driver/Session.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pto::test {

inline std::string runProgramPath(const std::string& file) {
    return fmt::format("{}/tests/integration/run/programs/{}", PTO_SOURCE_DIR, file);
}

inline RunResult runQuietly(const std::string& file, std::uint64_t seed,
                            std::vector<std::string> inputFiles = {}) {
    RunOptions o;
    o.program = runProgramPath(file);
    o.seed = seed;
    o.inputFiles = std::move(inputFiles);
    o.sim.traceLevel = sim::TraceLevel::None;
    return runProgram(o);
}

} // namespace pto::test
