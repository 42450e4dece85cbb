// The clock that turns a trace's cycles into time, the same for the report, the exports and the
// GUI.
#pragma once

namespace pto::tracedb {
class TraceReader;
}

namespace pto::prof {

struct ArchPeaks;

/// Hz of the run in `reader`: meta clock_hz; a trace without it (written by hand or by an
/// older tool) is timed by the clock.freq of its meta arch_config, else by the default
/// arch's clock (ArchPeaks) — the rule `pto report` always followed, so a Chrome or CSV export
/// of such a trace no longer shows other microseconds than the report (they assumed 1 GHz).
double runClockHz(const tracedb::TraceReader& reader);
/// The same, for a reader that parsed the trace's arch_config already (`arch`).
double runClockHz(const tracedb::TraceReader& reader, const ArchPeaks& arch);

} // namespace pto::prof
