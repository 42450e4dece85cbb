// CSV of a trace file's slices, one row per slice with its track, core and pipe spelled out.
#pragma once

#include "profiler/export/ChromeExport.h"

namespace pto::prof {

/// Columns: id, ts, dur, ts_us, dur_us, track_id, track, core_type, core_id, pipe, name,
/// category, depth, instr_id, task_id, then what ties an instruction's slice to the program
/// (InstrSource.h; empty for other slices): src ("file.pto:22"), tensor_op (an unrolled loop's
/// body op, not the loop), tile_op, src_loop (the user loop's iteration: "kv, iter 0", the
/// slice's own round's for a counted loop of the program). RFC 4180 quoting; NULL is an empty
/// field. A text cell
/// beginning with = + - @, a tab or a carriage return (a name from the program or the trace)
/// gets a leading ' and quotes, so spreadsheets show it instead of running it as a formula.
/// `window`: only the slices that overlap it (TimeWindow).
std::int64_t exportSlicesCsv(const tracedb::TraceReader& reader, std::FILE* out,
                             const ProgressFn& progress = {}, const TimeWindow& window = {});

} // namespace pto::prof
