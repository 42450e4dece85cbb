// The slice table: every slice of a run, or slices grouped by name, track, core, category or
// source line with count, total, average, min, p50, p95 and max durations (Perfetto's pivot).
#pragma once

#include "gui/model/RowTable.h"

#include <cstdint>
#include <string>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

enum class SliceGrouping { None, Name, Track, Core, Category, SourceLine };

struct SlicePivotQuery {
    SliceGrouping grouping = SliceGrouping::Name;
    std::string filter; ///< case-insensitive substring of the slice name; empty: all
};

struct SlicePivot {
    RowTable table;
    std::int64_t slices = 0; ///< slices that passed the filter
    bool truncated = false;  ///< ungrouped and more than kMaxListedSlices
    static constexpr std::int64_t kMaxListedSlices = 200000;
};

/// Reads the slices (one pass over slice_named joined with its track, core and instruction)
/// and builds the rows. Grouped: one row per group, sorted by total duration, descending; a
/// click selects the group's longest slice. Ungrouped: one row per slice in time order (the
/// first kMaxListedSlices), a click selects it. Percentiles are nearest-rank: p of n sorted
/// durations is the ⌈p·n⌉-th. Throws tracedb::TraceError when the file cannot be read.
SlicePivot pivotSlices(const tracedb::TraceReader& reader, const SlicePivotQuery& query);

/// "name", "track", … as the group-by box lists them.
QString groupingLabel(SliceGrouping grouping);

} // namespace pto::gui
