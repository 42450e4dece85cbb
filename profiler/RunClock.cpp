// The one clock rule of a trace's readers (RunClock.h).
#include "profiler/RunClock.h"

#include "profiler/ArchPeaks.h"
#include "trace_db/TraceReader.h"

namespace pto::prof {

double runClockHz(const tracedb::TraceReader& reader, const ArchPeaks& arch) {
    return reader.clockHz().value_or(arch.clockHz);
}

double runClockHz(const tracedb::TraceReader& reader) {
    if (const auto hz = reader.clockHz()) return *hz; // no arch_config to parse
    return parseArchPeaks(reader.meta("arch_config").value_or("")).clockHz;
}

} // namespace pto::prof
