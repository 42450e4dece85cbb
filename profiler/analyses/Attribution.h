// Cycles attributed to each Tensor op and source line of the program through provenance
// (slice → instr → tile op → … → parsed op → src_line); an op of an unrolled loop's body is
// an op of its own, and its loop the total of its body (TensorOpCost).
#pragma once

#include "profiler/RunModel.h"

#include <vector>

namespace pto::prof {

struct OpShare {
    std::size_t op = 0;      ///< index into RunModel::tensorOps
    std::int64_t cycles = 0; ///< instruction cycles, summed over pipes and cores
    double share = 0;        ///< of all attributed instruction cycles
};

struct Attribution {
    /// The ops that ran instructions, by cycles, descending: the ops of the program and of the
    /// bodies of unrolled loops, not the loops whose body ops are listed.
    std::vector<OpShare> ops;
    /// Those loops, by cycles, descending: each the total of its body ops (a group).
    std::vector<OpShare> loops;
    std::int64_t attributed = 0;   ///< instruction cycles with a Tensor op
    std::int64_t unattributed = 0; ///< instruction cycles without one (sync, hand-written)
};

Attribution analyzeAttribution(const RunModel& model);
void appendMetrics(const Attribution& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
