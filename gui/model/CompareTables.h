// The tables of the compare view: per-op and per-core deltas of two runs, and simulated ops
// next to measured kernels, as sortable rows that each name what a click selects.
#pragma once

#include "gui/model/RowTable.h"

namespace pto::prof {
struct Profile;
struct RunComparison;
struct SimRealComparison;
} // namespace pto::prof

namespace pto::gui {

/// Per Tensor op: span and instruction cycles of the baseline and the current run, the change,
/// and the bound class of each. A click selects the op in the current run's root stage.
RowTable opDeltaTable(const prof::RunComparison& c, const prof::Profile& current);
/// Per core busy in either run: busy cycles and tasks of each, the change. A click selects the
/// core's track in the current run.
RowTable coreDeltaTable(const prof::RunComparison& c, const prof::Profile& current);
/// Per simulated op (or the whole run): the measured kernels paired with it, both times, their
/// ratio and each pipe's busy fraction side by side. A click selects the simulated op when
/// `selectSimOps` (the open trace is the simulated one).
RowTable simRealTable(const prof::SimRealComparison& c, const prof::Profile& sim,
                      bool selectSimOps);

} // namespace pto::gui
