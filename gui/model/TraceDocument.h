// An open trace file as pto-studio sees it: the reader plus the facts every view shows.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace pto::gui {

/// What the status bar and the views need to know about a trace before drawing anything.
struct TraceSummary {
    std::string program;     ///< entry function or program file name
    std::string programPath; ///< meta program_path (may be empty)
    std::string arch;        ///< meta arch_name (may be empty for a compile-only trace)
    double clockHz = 0;      ///< the run's clock (prof::runClockHz)
    /// The run's time: a simulated run's cycles; a measured trace's ns from the first kernel
    /// start to the last kernel end.
    std::int64_t totalCycles = 0;
    std::int64_t stageCount = 0;
    std::int64_t trackCount = 0;
    std::int64_t coreCount = 0;
    std::int64_t coresUsed = 0;  ///< core tracks holding a slice (the cores the run used)
    bool stoppedByFault = false; ///< meta sim_fault: the simulator stopped the run
    bool measured = false;       ///< imported from a real profiler (meta trace_source): no IR
    /// The compiler's notes (meta compile_notes), grouped as `pto report` lists them.
    std::vector<std::string> compileNotes;
    bool hasRun() const { return trackCount > 0; }
};

/// What the graph and IR views say about a measured trace.
inline constexpr const char* kMeasuredNoIr =
    "This is a measured trace (imported with pto import from a real profiler): it has no IR, "
    "so there are no compiler stages to show. Its kernels are in the timeline, the bottleneck "
    "view and the SQL console.";

/// Owns the reader of one trace file. The reader belongs to the GUI thread; a worker thread
/// opens its own with openReader() (SQLite connections are used by one thread at a time).
class TraceDocument {
public:
    /// Opens and checks the file; throws tracedb::TraceError naming the file and the reason
    /// (not SQLite, truncated, newer schema, not a PTO Studio trace).
    static std::unique_ptr<TraceDocument> open(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return m_path; }
    const TraceSummary& summary() const { return m_summary; }
    const tracedb::TraceReader& reader() const { return m_reader; }
    /// A second read-only connection to the same file, for a worker thread.
    tracedb::TraceReader openReader() const;

    /// Cycles → microseconds at the trace's clock (cycles themselves when it has none).
    double micros(std::int64_t cycles) const;

private:
    TraceDocument(std::filesystem::path path, tracedb::TraceReader reader);

    std::filesystem::path m_path;
    tracedb::TraceReader m_reader;
    TraceSummary m_summary;
};

} // namespace pto::gui
