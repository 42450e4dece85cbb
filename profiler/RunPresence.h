// Whether a trace holds a run to profile: the one refusal, in one wording, of a compile-only
// trace (or one recorded with --trace none) by the report, compare, what-if and the exports.
#pragma once

namespace pto::tracedb {
class TraceReader;
}

namespace pto::prof {

/// Throws tracedb::TraceError saying why the trace holds no run to show and what to do: a
/// compile-only trace ("holds no simulated run … run it with `pto run` first"), a run recorded
/// with --trace none, or a measured trace imported from step times alone.
[[noreturn]] void failNoRun(const tracedb::TraceReader& reader);

/// failNoRun unless the trace has a core track (what every timeline, report and comparison
/// is made of).
void requireRun(const tracedb::TraceReader& reader);

} // namespace pto::prof
