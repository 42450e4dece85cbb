// A finding: a rule's verdict on the run with its evidence and estimated gain, as Nsight
// Compute's rules give a message plus an estimated speedup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto::prof {

enum class Severity { Info, Warning, Critical };
std::string_view severityName(Severity s);

struct Finding {
    std::string rule; ///< stable id, e.g. "double_buffering"
    Severity severity = Severity::Info;
    std::string title;                 ///< one line: what is wrong
    std::string advice;                ///< what to do about it
    std::vector<std::string> evidence; ///< numbers and where they come from
    std::string entity;                ///< run, core, task or tensor_op
    std::optional<std::int64_t> entityId;
    /// Estimated run-time saving in the run's time unit (cycles; ns for a measured trace):
    /// the expected value and its range.
    double gainCycles = 0, gainLow = 0, gainHigh = 0;
    double gainFraction = 0; ///< gainCycles ÷ run cycles
};

/// Severity from the expected gain: ≥ 30 % of the run critical, ≥ 5 % warning, else info.
Severity severityForGain(double fraction);

} // namespace pto::prof
