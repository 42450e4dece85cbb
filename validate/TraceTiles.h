// The tiling of a run's output as its trace records it: the region each tstore wrote into the
// output, and the task and core that ran the store (for the error-pattern diagnosis).
#pragma once

#include "trace_db/TraceReader.h"
#include "validate/Diagnosis.h"

#include <string>

namespace pto {

/// The tiles stored into output `%name` (of shape `shape`) in the last Tile stage, with the
/// core and task of the slice that executed each TSTORE (unknown: core -1, task ""). Empty
/// when the trace holds no Tile stage or no store into it.
TileLayout traceTileLayout(const tracedb::TraceReader& reader, const std::string& name,
                           const Shape& shape);

} // namespace pto
