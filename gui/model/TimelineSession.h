// Bookmarks of a trace's timeline and the view they were made in, kept in a sidecar file beside
// the trace ("run.db.session.json") so they survive closing pto-studio and travel with the file.
#pragma once

#include <QString>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace pto::gui {

struct Bookmark {
    std::int64_t cycle = 0;  ///< where it points
    std::int64_t slice = -1; ///< the slice it was made on, -1 for a point in time
    QString note;
    bool operator==(const Bookmark&) const = default;
};

/// Where the timeline was when the trace was closed: its cycle range, the first track row shown
/// and the selected slice (-1: none).
struct TimelineViewState {
    double begin = 0;
    double end = 0;
    int scrollY = 0;
    std::int64_t selectedSlice = -1;
    bool operator==(const TimelineViewState&) const = default;
};

/// The sidecar of a trace: the trace path with ".session.json" appended.
std::filesystem::path sessionPath(const std::filesystem::path& trace);

struct TimelineSession {
    std::vector<Bookmark> bookmarks;
    std::optional<TimelineViewState> view;
    QString error; ///< why the sidecar could not be read (it is then left alone)
};

/// No sidecar: no bookmarks and no error. A sidecar that is not ours (bad JSON, a newer
/// version, wrong fields) gives an error naming the file and nothing else.
TimelineSession loadSession(const std::filesystem::path& trace);
/// Writes the sidecar whole or not at all; returns why it failed ("" on success). No
/// bookmarks removes the sidecar: a view state alone is not worth a file beside the trace.
QString saveSession(const std::filesystem::path& trace, const TimelineSession& session);

} // namespace pto::gui
