// The extent of each track's slices (table track_summary), kept while the slices are inserted.
#pragma once

#include "trace_db/Rows.h"

#include <cstdint>
#include <unordered_map>

namespace pto::tracedb {

class SqliteDb;

/// Updated in memory for every slice the writer inserts (a hash lookup per slice, instead of
/// a GROUP BY over the whole slice table at commit), then written by commit.
class TrackSummary {
public:
    void add(const SliceRow& slice);
    /// Starts from the rows already in the file (when appending).
    void load(SqliteDb& db);
    /// Replaces the rows of track_summary.
    void write(SqliteDb& db) const;

private:
    struct Extent {
        std::int64_t sliceCount = 0;
        std::int64_t minTs = 0;
        std::int64_t maxEnd = 0;
        std::int64_t maxDur = 0;
        std::int64_t maxDepth = 0;
    };

    std::unordered_map<std::int64_t, Extent> m_tracks;
};

} // namespace pto::tracedb
