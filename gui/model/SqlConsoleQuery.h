// One read-only query of the SQL console, run to completion, cancelled or refused, as a plain
// result a worker thread hands to the GUI thread; and its rows as a timeline track.
#pragma once

#include "gui/model/QueryTrack.h"
#include "gui/model/SelectionModel.h"
#include "trace_db/QueryResult.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <optional>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

class CancelToken;

struct SqlConsoleResult {
    QString sql;
    QStringList columns;
    std::vector<std::vector<tracedb::SqlValue>> rows;
    QString error;        ///< empty on success; the reader's message otherwise
    int errorOffset = -1; ///< character offset in `sql` the error points at, -1 unknown
    int errorLength = 0;
    bool refused = false;   ///< the statement would write: refused before anything ran
    bool truncated = false; ///< stopped at the row limit
    bool cancelled = false; ///< stopped by the cancel token (Cancel, or the time limit)
    double seconds = 0;
    bool ok() const { return error.isEmpty(); }
};

/// Runs `sql` through TraceReader::query, streaming rows until `maxRows` or until `cancel` is
/// cancelled (from any thread: it interrupts the running statement, so an aggregate stops
/// before its first row too; the rows read so far stay). Never throws: errors land in the
/// result. The rows are those of the last statement that returned any.
SqlConsoleResult runConsoleQuery(const tracedb::TraceReader& reader, const QString& sql,
                                 CancelToken& cancel, std::size_t maxRows);

/// Where SQLite's message points: the token after `near "` found in `sql` (-1 when none).
int sqlErrorOffset(const QString& sql, const QString& message, int* length = nullptr);

/// True when the columns include `ts` and `dur` (case-insensitive).
bool hasTimeColumns(const QStringList& columns);
/// The rows as a track: ts, dur (cycles), name (or the first text column), track_id when all
/// rows share one. nullopt without ts/dur columns. Rows whose ts is not a number are skipped.
std::optional<QueryTrack> queryTrackOf(const SqlConsoleResult& result);
/// What a result row names, for clicking through to the other views: a `slice_id` column, or
/// `id` next to ts/dur/track_id (rows of slice or slice_named), is a slice; else an `instr_id`
/// column an instruction; else None.
EntityRef rowEntity(const SqlConsoleResult& result, std::size_t row);

// The entity an id cell names — the links of the result table: `slice_id`, `instr_id`,
// `track_id`, `node_id` (with a `stage_id` in the row), and `id` of a slice-like result (ts, dur,
// track_id) or of an instruction-like one (opcode). None for other cells and non-integers.
EntityRef cellEntity(const SqlConsoleResult& result, std::size_t row, int column);

} // namespace pto::gui
