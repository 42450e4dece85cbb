// CSV of a trace file's slices, one row per slice with its track, core and pipe spelled out.
#pragma once

#include "profiler/export/ChromeExport.h"

namespace pto::prof {

/// Columns: id, ts, dur, ts_us, dur_us, track_id, track, core_type, core_id, pipe, name,
/// category, depth, instr_id, task_id. RFC 4180 quoting; NULL is an empty field. A text cell
/// beginning with = + - @, a tab or a carriage return (a name from the program or the trace)
/// gets a leading ' and quotes, so spreadsheets show it instead of running it as a formula.
std::int64_t exportSlicesCsv(const tracedb::TraceReader& reader, std::FILE* out,
                             const ProgressFn& progress = {});

} // namespace pto::prof
