// What-if: re-simulate the run recorded in a trace file with changed arch parameters (from
// the file alone: program text, entry, arch config, compile options and stored inputs) and
// compare the two runs per Tensor op and per core.
#pragma once

#include "compiler/ResourceBudget.h"
#include "profiler/Profile.h"
#include "profiler/RunCompare.h"
#include "simulator/arch/ArchConfig.h"
#include "trace_db/TraceReader.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto::prof {

struct WhatIfOptions {
    std::vector<std::string> overrides; ///< "hbm.bandwidth=2x", "clock.freq=1.5 GHz"
    /// The arch to re-run on, in place of the recorded one (the overrides apply to it); empty =
    /// the recorded arch (meta arch_config). pto calibrate re-runs on the file it writes.
    std::string archFile;
    std::string outputPath;  ///< trace of the re-run; empty = a temp file, removed
    bool timingOnly = false; ///< skip the numerics (timing does not depend on data)
    std::function<void(const std::string&)> onPhase; ///< progress: "compiling + simulating"…
    ResourceBudget budget; ///< limits of the re-compile and re-run (compiler/ResourceBudget.h)
};

struct WhatIfResult {
    Profile base, changed;
    RunComparison comparison;
    std::vector<std::string> notes; ///< what could not be reproduced exactly
};

/// Throws std::invalid_argument for a trace without the program (meta program_text) or an
/// outputPath that is the trace itself (by filesystem identity), ArchError for a bad override,
/// and whatever compiling the program throws. Its scratch files (the stored inputs as .npy, the
/// re-run's trace when no outputPath is given) are removed also on SIGINT/SIGTERM/SIGHUP.
WhatIfResult runWhatIf(const std::filesystem::path& trace, const WhatIfOptions& options);

/// The arch a traced run was simulated on: meta arch_config over the embedded default, named
/// by meta arch_name; nullopt when the trace records none. A parameter this build does not know
/// is skipped with a note in `notes`; a bad value is an ArchError naming the trace.
std::optional<sim::ArchConfig> recordedArchConfig(const tracedb::TraceReader& reader,
                                                  std::vector<std::string>& notes);

} // namespace pto::prof
