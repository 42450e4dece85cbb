// The slice events of the Chrome trace export: the bulk of the output, formatted in parallel.
#pragma once

#include "profiler/export/ChromeExport.h"
#include "profiler/export/ChromeJson.h"

#include <string>
#include <unordered_map>

namespace pto::prof::chrome {

/// Writes one "X" (or "i") event per slice that overlaps `window`, in slice id order, to `sink`;
/// adds to counts.slices and counts.outOfOrder; reports progress up to 0.95.
void writeSlices(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                 const std::unordered_map<std::int64_t, std::string>& names, const Clock& clock,
                 const TimeWindow& window, const ProgressFn& progress, ExportCounts& counts);

} // namespace pto::prof::chrome
