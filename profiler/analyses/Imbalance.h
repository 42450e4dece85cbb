// Load imbalance between the cores of each type and the tail of the run (the end stretch in
// which fewer than half of the used cores are busy).
#pragma once

#include "profiler/RunModel.h"

#include <string>
#include <vector>

namespace pto::prof {

struct TypeBalance {
    std::string coreType; ///< AIC or AIV
    int available = 0;    ///< cores of the type on the chip
    int used = 0;         ///< cores that ran a task
    int tasks = 0;
    double meanBusy = 0; ///< over used cores, cycles
    std::int64_t maxBusy = 0;
    std::int64_t minBusy = 0;
    int slowestCore = -1; ///< index into RunModel::cores
    double imbalance = 0; ///< maxBusy / meanBusy - 1
};

struct Imbalance {
    std::vector<TypeBalance> types; ///< AIC, AIV (types with tasks)
    std::int64_t tailStart = 0;     ///< from here on fewer than half of the used cores are busy
    std::int64_t tailCycles = 0;    ///< the run's end - tailStart
};

Imbalance analyzeImbalance(const RunModel& model);
void appendMetrics(const Imbalance& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
