// The extent of each track's slices (table track_summary), kept while the slices are inserted.
#include "trace_db/TrackSummary.h"

#include "trace_db/Sqlite.h"

#include <algorithm>

namespace pto::tracedb {

void TrackSummary::add(const SliceRow& slice) {
    auto [entry, isNew] = m_tracks.try_emplace(slice.trackId);
    Extent& extent = entry->second;
    std::int64_t end = slice.ts + slice.dur;
    if (isNew) {
        extent = Extent{1, slice.ts, end, slice.dur, slice.depth};
        return;
    }
    ++extent.sliceCount;
    extent.minTs = std::min(extent.minTs, slice.ts);
    extent.maxEnd = std::max(extent.maxEnd, end);
    extent.maxDur = std::max(extent.maxDur, slice.dur);
    extent.maxDepth = std::max(extent.maxDepth, slice.depth);
}

void TrackSummary::load(SqliteDb& db) {
    Statement select(db, "SELECT track_id, slice_count, min_ts, max_end, max_dur, max_depth "
                         "FROM track_summary");
    while (select.step()) {
        std::int64_t trackId = 0;
        Extent extent;
        select.readAll(trackId, extent.sliceCount, extent.minTs, extent.maxEnd, extent.maxDur,
                       extent.maxDepth);
        m_tracks[trackId] = extent;
    }
}

void TrackSummary::write(SqliteDb& db) const {
    db.exec("DELETE FROM track_summary");
    Statement insert(db, "INSERT INTO track_summary(track_id, slice_count, min_ts, max_end, "
                         "max_dur, max_depth) VALUES(?, ?, ?, ?, ?, ?)");
    for (const auto& [trackId, extent] : m_tracks) {
        insert.bindAll(trackId, extent.sliceCount, extent.minTs, extent.maxEnd, extent.maxDur,
                       extent.maxDepth);
        insert.run();
    }
}

} // namespace pto::tracedb
