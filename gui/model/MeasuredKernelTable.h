// The kernels of a measured trace by time, as `pto report` lists them: the bottleneck view's
// table in place of the cost per Tensor op, which a measured trace (no IR) does not have.
#pragma once

#include "gui/model/RowTable.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace pto::prof {
struct Profile;
}

namespace pto::gui {

/// One row per kernel run from profiler/report's topKernelsJson (the same numbers as `pto report`'s
/// "top kernels by time (measured)"), longest first, and each row's time range on the trace's
/// clock (what a click reveals on the timeline).
struct MeasuredKernelTable {
    RowTable table;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
};

/// Empty for a simulated run.
MeasuredKernelTable measuredKernelTable(const prof::Profile& profile);

} // namespace pto::gui
