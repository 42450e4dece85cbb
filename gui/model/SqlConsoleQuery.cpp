// Runs a console query on a worker's reader with a row limit and cancel token; query → track.
#include "gui/model/SqlConsoleQuery.h"

#include "gui/model/WorkerResult.h"
#include "trace_db/TraceReader.h"

#include <QElapsedTimer>
#include <QRegularExpression>

#include <algorithm>

namespace pto::gui {
namespace {

std::optional<std::int64_t> integerOf(const tracedb::SqlValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
    if (const auto* d = std::get_if<double>(&value)) return static_cast<std::int64_t>(*d);
    return std::nullopt;
}

QString textOf(const tracedb::SqlValue& value) {
    if (const auto* s = std::get_if<std::string>(&value)) return QString::fromStdString(*s);
    if (const auto i = integerOf(value)) return QString::number(*i);
    return {};
}

int columnIndex(const QStringList& columns, const QString& name) {
    for (int i = 0; i < columns.size(); ++i)
        if (columns[i].compare(name, Qt::CaseInsensitive) == 0) return i;
    return -1;
}

QString shortTitle(const QString& sql) {
    QString title = sql.simplified();
    if (title.size() > 60) title = title.left(57) + QStringLiteral("...");
    return title;
}

/// Puts each item (sorted by ts) in the first lane free at its start, up to kMaxLanes; the
/// rest share the last lane.
void stackItems(std::vector<QueryTrack::Item>& items) {
    constexpr std::size_t kMaxLanes = 256;
    std::vector<std::int64_t> laneEnds;
    for (QueryTrack::Item& item : items) {
        const std::int64_t end = item.ts + std::max<std::int64_t>(item.dur, 1);
        auto lane = std::find_if(laneEnds.begin(), laneEnds.end(),
                                 [&](std::int64_t busyUntil) { return busyUntil <= item.ts; });
        if (lane == laneEnds.end()) {
            if (laneEnds.size() < kMaxLanes)
                lane = laneEnds.insert(laneEnds.end(), end);
            else
                lane = laneEnds.end() - 1;
        }
        *lane = std::max(*lane, end);
        item.depth = static_cast<int>(lane - laneEnds.begin());
    }
}

} // namespace

SqlConsoleResult runConsoleQuery(const tracedb::TraceReader& reader, const QString& sql,
                                 CancelToken& cancel, std::size_t maxRows) {
    SqlConsoleResult result;
    result.sql = sql;
    QElapsedTimer timer;
    timer.start();
    std::vector<std::string> current;
    try {
        const auto watch = cancel.watch(reader); // cancel() interrupts the running statement
        reader.query(sql.toStdString(), [&](auto columns, auto row) {
            if (cancel.cancelled()) {
                result.cancelled = true;
                return false;
            }
            if (!std::equal(columns.begin(), columns.end(), current.begin(), current.end())) {
                current.assign(columns.begin(), columns.end());
                result.rows.clear();
            }
            if (result.rows.size() >= maxRows) {
                result.truncated = true;
                return false;
            }
            result.rows.emplace_back(row.begin(), row.end());
            return true;
        });
    } catch (...) {
        if (cancel.cancelled()) { // interrupted mid-statement: keep the rows read so far
            result.cancelled = true;
        } else {
            result.error = currentErrorText();
            result.refused = result.error.contains(QStringLiteral("read-only"));
            result.errorOffset = sqlErrorOffset(sql, result.error, &result.errorLength);
            result.rows.clear();
        }
    }
    for (const std::string& name : current) result.columns << QString::fromStdString(name);
    result.seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
    return result;
}

int sqlErrorOffset(const QString& sql, const QString& message, int* length) {
    static const QRegularExpression kNear(QStringLiteral("near \"([^\"]*)\""));
    const QRegularExpressionMatch match = kNear.match(message);
    if (!match.hasMatch() || match.captured(1).isEmpty()) return -1;
    const QString token = match.captured(1);
    // SQLite does not say where; take the token's first whole-word occurrence.
    const bool word = token.front().isLetterOrNumber() || token.front() == QLatin1Char('_');
    const QString pattern = word ? QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(token))
                                 : QRegularExpression::escape(token);
    const QRegularExpressionMatch at =
        QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption).match(sql);
    if (!at.hasMatch()) return -1;
    if (length) *length = static_cast<int>(at.capturedLength());
    return static_cast<int>(at.capturedStart());
}

bool hasTimeColumns(const QStringList& columns) {
    return columnIndex(columns, QStringLiteral("ts")) >= 0 &&
           columnIndex(columns, QStringLiteral("dur")) >= 0;
}

EntityRef cellEntity(const SqlConsoleResult& result, std::size_t row, int column) {
    if (row >= result.rows.size() || column < 0 || column >= int(result.columns.size()) ||
        std::size_t(column) >= result.rows[row].size())
        return {};
    const auto& cells = result.rows[row];
    const auto id = integerOf(cells[std::size_t(column)]);
    if (!id) return {};
    const auto is = [&](const char* name) {
        return result.columns[column].compare(QLatin1String(name), Qt::CaseInsensitive) == 0;
    };
    if (is("slice_id")) return EntityRef::slice(*id);
    if (is("instr_id")) return EntityRef::instr(*id);
    if (is("track_id")) return EntityRef::track(*id);
    if (is("node_id")) {
        const int stage = columnIndex(result.columns, QStringLiteral("stage_id"));
        const auto stageId = stage >= 0 ? integerOf(cells[std::size_t(stage)]) : std::nullopt;
        return stageId ? EntityRef::node(*stageId, *id) : EntityRef{};
    }
    if (!is("id")) return {};
    if (hasTimeColumns(result.columns) &&
        columnIndex(result.columns, QStringLiteral("track_id")) >= 0)
        return EntityRef::slice(*id);
    if (columnIndex(result.columns, QStringLiteral("opcode")) >= 0) return EntityRef::instr(*id);
    return {};
}

EntityRef rowEntity(const SqlConsoleResult& result, std::size_t row) {
    using Kind = EntityRef::Kind;
    for (const auto& [column, kind] :
         {std::pair{"slice_id", Kind::Slice}, {"id", Kind::Slice}, {"instr_id", Kind::Instr}}) {
        const EntityRef ref =
            cellEntity(result, row, columnIndex(result.columns, QString::fromLatin1(column)));
        if (ref.kind == kind) return ref;
    }
    return {};
}

std::optional<QueryTrack> queryTrackOf(const SqlConsoleResult& result) {
    if (!result.ok() || !hasTimeColumns(result.columns)) return std::nullopt;
    const int ts = columnIndex(result.columns, QStringLiteral("ts"));
    const int dur = columnIndex(result.columns, QStringLiteral("dur"));
    int name = columnIndex(result.columns, QStringLiteral("name"));
    const int track = columnIndex(result.columns, QStringLiteral("track_id"));
    QueryTrack out;
    out.title = shortTitle(result.sql);
    std::optional<std::int64_t> oneTrack;
    bool manyTracks = false;
    for (const auto& row : result.rows) {
        if (name < 0)
            for (int c = 0; c < static_cast<int>(row.size()) && name < 0; ++c)
                if (std::holds_alternative<std::string>(row[static_cast<std::size_t>(c)])) name = c;
        const auto start = integerOf(row[static_cast<std::size_t>(ts)]);
        if (!start) continue;
        QueryTrack::Item item;
        item.ts = *start;
        item.dur =
            std::max<std::int64_t>(0, integerOf(row[static_cast<std::size_t>(dur)]).value_or(0));
        if (name >= 0) item.name = textOf(row[static_cast<std::size_t>(name)]);
        out.items.push_back(std::move(item));
        if (track >= 0) {
            const auto id = integerOf(row[static_cast<std::size_t>(track)]);
            if (id && oneTrack && *id != *oneTrack) manyTracks = true;
            if (id && !oneTrack) oneTrack = id;
        }
    }
    if (oneTrack && !manyTracks) out.trackId = *oneTrack;
    std::stable_sort(out.items.begin(), out.items.end(),
                     [](const auto& a, const auto& b) { return a.ts < b.ts; });
    stackItems(out.items);
    return out;
}

} // namespace pto::gui
