// Layouts kept between sessions in a sidecar SQLite file next to the trace
// (`<trace>.layout-cache`), keyed by stage, visible-set hash, rank direction and version.
#pragma once

#include "gui/model/LayoutTypes.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

struct sqlite3;

namespace pto::gui {

/// The key of a layout: stage id, hash of the visible set, rank direction, kLayoutVersion.
std::string layoutCacheKey(std::int64_t stageId, std::uint64_t visibleHash, bool leftToRight);

/// The sidecar path of a trace: "<trace>.layout-cache".
std::filesystem::path layoutCachePath(const std::filesystem::path& trace);

/// One connection, used by one thread (the layout thread). The trace itself stays read-only;
/// the cache notes the trace's size and modification time and empties itself when the trace
/// was rewritten. When the sidecar cannot be written, or holds anything but our two tables
/// (views, triggers: a shared file is untrusted), the cache keeps layouts in memory only.
class LayoutCache {
public:
    explicit LayoutCache(const std::filesystem::path& trace);
    ~LayoutCache();
    LayoutCache(const LayoutCache&) = delete;
    LayoutCache& operator=(const LayoutCache&) = delete;

    /// The layout stored under `key` when it has exactly `nodes` boxes and `edges` splines
    /// (the job's counts, which the trace's own graph bounds). A blob that does not parse, has
    /// other counts, more items than bytes or coordinates that are not finite is ignored (the
    /// caller lays the graph out again), so a forged sidecar cannot make us allocate.
    std::optional<LayoutResult> find(const std::string& key, std::size_t nodes, std::size_t edges);
    void store(const std::string& key, const LayoutResult& result);
    /// Empty when the sidecar is in use, else why layouts are kept in memory only.
    const std::string& problem() const { return m_problem; }

private:
    bool open(const std::filesystem::path& trace);

    sqlite3* m_db = nullptr;
    int m_progressCalls = 0; ///< progress-handler calls of the current statement
    std::string m_problem;
    std::unique_ptr<struct LayoutMemory> m_memory;
};

} // namespace pto::gui
