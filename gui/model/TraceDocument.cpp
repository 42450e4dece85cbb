// Opens a trace for pto-studio and reads the summary facts shown in the status bar.
#include "gui/model/TraceDocument.h"

#include "profiler/CompileNotes.h"
#include "profiler/RunClock.h"
#include "profiler/SqlRows.h"

#include <string_view>
#include <vector>

namespace pto::gui {
namespace {

std::int64_t countOf(const tracedb::TraceReader& reader, std::string_view sql) {
    const std::vector<std::int64_t> counts = prof::intColumn(reader, sql);
    return counts.empty() ? 0 : counts.front();
}

double numberOr(const std::optional<std::string>& text, double fallback) {
    if (!text || text->empty()) return fallback;
    try {
        return std::stod(*text);
    } catch (const std::exception&) {
        return fallback;
    }
}

TraceSummary readSummary(const tracedb::TraceReader& reader) {
    TraceSummary summary;
    summary.programPath = reader.meta("program_path").value_or("");
    summary.program = reader.meta("entry").value_or(
        std::filesystem::path(summary.programPath).filename().string());
    summary.arch = reader.meta("arch_name").value_or("");
    summary.clockHz = prof::runClockHz(reader);
    summary.totalCycles = static_cast<std::int64_t>(numberOr(reader.meta("sim_total_cycles"), 0));
    summary.stageCount = countOf(reader, "SELECT count(*) FROM stage");
    summary.trackCount = countOf(reader, "SELECT count(*) FROM track");
    summary.coreCount = countOf(reader, "SELECT count(*) FROM track WHERE kind = 'core'");
    // One index probe per core track (slice_track_ts), not a scan of the slices.
    summary.coresUsed = countOf(reader, "SELECT count(*) FROM track t WHERE t.kind = 'core' AND "
                                        "EXISTS (SELECT 1 FROM slice s WHERE s.track_id = t.id)");
    summary.stoppedByFault = !reader.meta("sim_fault").value_or("").empty();
    summary.measured = reader.meta("trace_source").value_or("") == "measured";
    summary.compileNotes =
        prof::groupedNotes(prof::notesFromJson(reader.meta("compile_notes").value_or("")));
    // A measured run is its kernels (the core tracks): ns from the first kernel start to the
    // last end, as `pto report` counts it — the file's ts 0 is its earliest host op or counter.
    if (summary.measured && summary.totalCycles == 0)
        summary.totalCycles =
            countOf(reader, "SELECT coalesce(max(s.max_end) - min(s.min_ts), 0) FROM "
                            "track_summary s JOIN track t ON t.id = s.track_id WHERE t.kind = "
                            "'core'");
    return summary;
}

} // namespace

std::unique_ptr<TraceDocument> TraceDocument::open(const std::filesystem::path& path) {
    auto reader = tracedb::TraceReader::open(path);
    return std::unique_ptr<TraceDocument>(new TraceDocument(path, std::move(reader)));
}

TraceDocument::TraceDocument(std::filesystem::path path, tracedb::TraceReader reader)
    : m_path(std::move(path)), m_reader(std::move(reader)), m_summary(readSummary(m_reader)) {}

tracedb::TraceReader TraceDocument::openReader() const {
    return tracedb::TraceReader::open(m_path);
}

double TraceDocument::micros(std::int64_t cycles) const {
    if (m_summary.clockHz <= 0) return static_cast<double>(cycles);
    return static_cast<double>(cycles) * 1e6 / m_summary.clockHz;
}

} // namespace pto::gui
