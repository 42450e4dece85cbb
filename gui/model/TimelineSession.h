// Bookmarks of a trace's timeline, kept in a sidecar file beside the trace
// ("run.db.session.json") so they survive closing pto-studio and travel with the file.
#pragma once

#include <QString>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace pto::gui {

struct Bookmark {
    std::int64_t cycle = 0;  ///< where it points
    std::int64_t slice = -1; ///< the slice it was made on, -1 for a point in time
    QString note;
    bool operator==(const Bookmark&) const = default;
};

/// The sidecar of a trace: the trace path with ".session.json" appended.
std::filesystem::path sessionPath(const std::filesystem::path& trace);

struct LoadedBookmarks {
    std::vector<Bookmark> bookmarks;
    QString error; ///< why the sidecar could not be read (it is then left alone)
};

/// No sidecar: no bookmarks and no error. A sidecar that is not ours (bad JSON, a newer
/// version, wrong fields) gives an error naming the file and no bookmarks.
LoadedBookmarks loadBookmarks(const std::filesystem::path& trace);
/// Writes the sidecar whole or not at all; returns why it failed ("" on success). No
/// bookmarks removes the sidecar.
QString saveBookmarks(const std::filesystem::path& trace, const std::vector<Bookmark>& marks);

} // namespace pto::gui
