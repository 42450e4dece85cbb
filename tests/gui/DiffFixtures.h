// Bisection traces with a planted fault for the GUI tests, made once per build by the real CLI.
#pragma once

#include <filesystem>
#include <string>

namespace pto::test {

struct BisectTrace {
    std::filesystem::path trace;
    std::string report; ///< what `pto diff --bisect` printed (names the planted fault)
};

/// `pto diff --bisect samples/<sample>.pto --fault <fault> -o ...`, cached under
/// <build>/gui-fixtures (temp name, then rename). Fails the calling test on error.
BisectTrace bisectTrace(const std::string& sample, const std::string& fault);

} // namespace pto::test
