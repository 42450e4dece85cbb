// Raw slices of the visible time window per track, for zoom levels where single slices show.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <unordered_map>
#include <vector>

struct sqlite3;

namespace pto::gui {

/// One slice as the canvas draws it.
struct TimelineSlice {
    enum class Category : std::uint8_t { Instr, Task, Stall, Wait };
    /// The deepest nesting drawn (a row each): far beyond real traces (host Python stacks nest
    /// some 40 deep), and it bounds a lane's height whatever a forged file claims. Deeper
    /// slices are not read at all rather than drawn on a row of another depth.
    static constexpr int kMaxDepth = 1023;
    std::int64_t id = 0;
    std::int64_t ts = 0;
    std::int64_t dur = 0;
    std::int64_t instrId = -1; ///< -1 when the slice has no instruction
    std::int32_t nameId = 0;
    std::int16_t depth = 0;
    Category category = Category::Instr;
    std::int64_t end() const { return ts + dur; }
};

/// Keeps, per track, the slices of a window around the last requested range (one view width
/// of margin on each side, so panning rarely reads), read with its own connection through the
/// (track_id, ts) index. Used by the GUI thread only.
class TimelineSliceCache {
public:
    static constexpr std::chrono::milliseconds kDefaultReadBudget{3000};

    TimelineSliceCache();
    ~TimelineSliceCache();

    /// Opens `trace` (empty path: closes). Throws tracedb::TraceError when it cannot.
    void open(const std::filesystem::path& trace);
    void clear();

    /// Slices of `trackId` overlapping [t0, t1), by ts then depth (a superset: the window).
    const std::vector<TimelineSlice>& slices(std::int64_t trackId, std::int64_t t0,
                                             std::int64_t t1);
    /// The cached window of `trackId` when it covers [t0, t1) and is not much wider (the
    /// condition under which slices() would not read), otherwise null.
    const std::vector<TimelineSlice>* find(std::int64_t trackId, std::int64_t t0,
                                           std::int64_t t1) const;
    /// Reads [t0, t1) of a track without caching it.
    std::vector<TimelineSlice> read(std::int64_t trackId, std::int64_t t0, std::int64_t t1);
    /// Time a single read may take before it fails with a TraceError (0: no limit). The GUI
    /// thread's cache keeps the default: legitimate reads take milliseconds through the index.
    void setReadBudget(std::chrono::milliseconds budget) { m_budget = budget; }
    /// The open connection (null when closed), for a worker's CancelToken.
    sqlite3* connection() const;
    /// How many window reads happened (for tests and the benchmark).
    std::int64_t reads() const { return m_reads; }

private:
    struct Window {
        std::int64_t lo = 0, hi = 0;
        std::vector<TimelineSlice> slices;
    };
    class Connection;

    std::unique_ptr<Connection> m_connection;
    std::unordered_map<std::int64_t, Window> m_windows;
    std::int64_t m_reads = 0;
    std::chrono::milliseconds m_budget{kDefaultReadBudget};
};

} // namespace pto::gui
