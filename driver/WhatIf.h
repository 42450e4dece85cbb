// What-if: re-simulate the run recorded in a trace file with changed arch parameters (from
// the file alone: program text, entry, arch config, compile options and stored inputs) and
// compare the two runs per Tensor op and per core.
#pragma once

#include "compiler/ResourceBudget.h"
#include "profiler/Profile.h"
#include "profiler/RunCompare.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace pto::prof {

struct WhatIfOptions {
    std::vector<std::string> overrides; ///< "hbm.bandwidth=2x", "clock.freq=1.5 GHz"
    std::string outputPath;             ///< trace of the re-run; empty = a temp file, removed
    bool timingOnly = false;            ///< skip the numerics (timing does not depend on data)
    std::function<void(const std::string&)> onPhase; ///< progress: "compiling + simulating"…
    ResourceBudget budget; ///< limits of the re-compile and re-run (compiler/ResourceBudget.h)
};

struct WhatIfResult {
    Profile base, changed;
    RunComparison comparison;
    std::vector<std::string> notes; ///< what could not be reproduced exactly
};

/// Throws std::invalid_argument for a trace without the program (meta program_text), ArchError
/// for a bad override, and whatever compiling the program throws.
WhatIfResult runWhatIf(const std::filesystem::path& trace, const WhatIfOptions& options);

} // namespace pto::prof
