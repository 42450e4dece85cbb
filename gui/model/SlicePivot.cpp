// Builds the slice table's rows from one streaming query over the trace's slices.
#include "gui/model/SlicePivot.h"

#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace pto::gui {
namespace {

/// One slice as the pivot reads it: numbers only, names looked up in small tables.
struct SliceFacts {
    std::int64_t id = 0, ts = 0, dur = 0, nameId = 0, trackId = 0, category = 0, line = 0;
};

const char* const kCategories[] = {"instr", "task", "wait", "stall"};

/// Names of the strings slices use and of every track (with its core), read once.
struct Names {
    std::unordered_map<std::int64_t, std::string> strings;
    std::unordered_map<std::int64_t, std::pair<std::string, std::string>> tracks; ///< track, core
    std::unordered_map<std::int64_t, std::int64_t> coreOf; ///< track → its core's number
};

struct Group {
    std::string key;
    std::vector<std::int64_t> durs;
    std::int64_t total = 0;
    std::int64_t longest = -1, longestDur = -1;
};

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string text(const tracedb::SqlValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    return {};
}

std::int64_t integer(const tracedb::SqlValue& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* d = std::get_if<double>(&v)) return std::int64_t(*d);
    return 0;
}

Names readNames(const tracedb::TraceReader& reader) {
    Names n;
    reader.query("SELECT id, str FROM string WHERE id IN (SELECT DISTINCT name_id FROM slice)",
                 [&](std::span<const std::string>, std::span<const tracedb::SqlValue> v) {
                     n.strings.emplace(integer(v[0]), text(v[1]));
                     return true;
                 });
    reader.query("SELECT t.id, t.name, CASE WHEN t.kind = 'core' THEN t.name ELSE p.name END "
                 "FROM track_named t LEFT JOIN track_named p ON p.id = t.parent_id",
                 [&](std::span<const std::string>, std::span<const tracedb::SqlValue> v) {
                     n.tracks.emplace(integer(v[0]), std::pair{text(v[1]), text(v[2])});
                     return true;
                 });
    std::unordered_map<std::string, std::int64_t> cores;
    for (const auto& [track, names] : n.tracks)
        n.coreOf[track] = cores.emplace(names.second, std::int64_t(cores.size())).first->second;
    return n;
}

std::string sqlOf(const SlicePivotQuery& q) {
    std::string sql = "SELECT s.id, s.ts, s.dur, s.name_id, s.track_id, CASE s.category WHEN "
                      "'instr' THEN 0 WHEN 'task' THEN 1 WHEN 'wait' THEN 2 ELSE 3 END, "
                      "i.src_line FROM slice s LEFT JOIN instr i ON i.id = s.instr_id";
    if (!q.filter.empty())
        sql += fmt::format(" WHERE s.name_id IN (SELECT id FROM string WHERE "
                           "instr(lower(str), lower({})) > 0)",
                           quoted(q.filter));
    if (q.grouping == SliceGrouping::None) sql += " ORDER BY s.ts, s.id";
    return sql;
}

/// The group of a slice as a number (the key's text is made once per group).
std::int64_t groupId(const SliceFacts& s, SliceGrouping g, const Names& names) {
    switch (g) {
    case SliceGrouping::Name:
        return s.nameId;
    case SliceGrouping::Track:
        return s.trackId;
    case SliceGrouping::Core: {
        const auto it = names.coreOf.find(s.trackId);
        return it == names.coreOf.end() ? -1 : it->second;
    }
    case SliceGrouping::Category:
        return s.category;
    case SliceGrouping::SourceLine:
        return s.line;
    case SliceGrouping::None:
        break;
    }
    return 0;
}

std::string groupKey(const SliceFacts& s, SliceGrouping g, const Names& names) {
    const auto track = names.tracks.find(s.trackId);
    const std::string trackName = track == names.tracks.end() ? "" : track->second.first;
    const std::string core = track == names.tracks.end() ? "" : track->second.second;
    switch (g) {
    case SliceGrouping::Name: {
        const auto it = names.strings.find(s.nameId);
        return it == names.strings.end() ? "" : it->second;
    }
    case SliceGrouping::Track:
        return core.empty() || core == trackName ? trackName : core + " / " + trackName;
    case SliceGrouping::Core:
        return core;
    case SliceGrouping::Category:
        return kCategories[std::clamp<std::int64_t>(s.category, 0, 3)];
    case SliceGrouping::SourceLine:
        return s.line > 0 ? "line " + std::to_string(s.line) : "";
    case SliceGrouping::None:
        break;
    }
    return {};
}

std::int64_t nearestRank(const std::vector<std::int64_t>& sorted, double p) {
    const auto n = double(sorted.size());
    const auto rank = std::size_t(std::max(1.0, std::ceil(p * n)));
    return sorted[std::min(rank, sorted.size()) - 1];
}

RowTable groupedTable(std::vector<Group> groups, SliceGrouping g) {
    RowTable t;
    t.headers = {groupingLabel(g),   QObject::tr("Count"), QObject::tr("Total"),
                 QObject::tr("Avg"), QObject::tr("Min"),   QObject::tr("p50"),
                 QObject::tr("p95"), QObject::tr("Max")};
    t.headerTips = {QObject::tr("The group; a click selects its longest slice"),
                    QObject::tr("Slices in the group"),
                    QObject::tr("Sum of their durations, cycles"),
                    QObject::tr("Mean duration, cycles"),
                    QObject::tr("Shortest, cycles"),
                    QObject::tr("Median (nearest rank), cycles"),
                    QObject::tr("95th percentile (nearest rank), cycles"),
                    QObject::tr("Longest, cycles")};
    std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
        return a.total != b.total ? a.total > b.total : a.key < b.key;
    });
    for (Group& group : groups) {
        std::sort(group.durs.begin(), group.durs.end());
        TableRow row;
        const QString key =
            group.key.empty() ? QObject::tr("(none)") : QString::fromStdString(group.key);
        const auto n = qint64(group.durs.size());
        addCell(row, key, key);
        addCell(row, n, QString::number(n));
        addCell(row, qint64(group.total), QString::number(group.total));
        const double avg = double(group.total) / double(n);
        addCell(row, avg, QString::number(avg, 'f', 1));
        for (const std::int64_t v : {group.durs.front(), nearestRank(group.durs, 0.5),
                                     nearestRank(group.durs, 0.95), group.durs.back()})
            addCell(row, qint64(v), QString::number(v));
        row.ref = EntityRef::slice(group.longest);
        t.rows.push_back(std::move(row));
    }
    return t;
}

RowTable sliceHeaders() {
    RowTable t;
    t.headers = {QObject::tr("Id"),       QObject::tr("Name"),     QObject::tr("Core"),
                 QObject::tr("Track"),    QObject::tr("Category"), QObject::tr("Start"),
                 QObject::tr("Duration"), QObject::tr("Line")};
    t.headerTips = {QObject::tr("Slice id (the slice table's primary key)"),
                    QObject::tr("Instruction opcode, task or wait name"),
                    QObject::tr("The core it ran on"),
                    QObject::tr("The track (pipe or core)"),
                    QObject::tr("instr, task, wait or stall"),
                    QObject::tr("Start, cycles"),
                    QObject::tr("Duration, cycles"),
                    QObject::tr("Source line of its instruction")};
    return t;
}

void addSliceRow(RowTable& t, const SliceFacts& s, const Names& names) {
    TableRow row;
    addCell(row, qint64(s.id), QString::number(s.id));
    const QString name = QString::fromStdString(groupKey(s, SliceGrouping::Name, names));
    const auto track = names.tracks.find(s.trackId);
    const QString core =
        track == names.tracks.end() ? QString() : QString::fromStdString(track->second.second);
    const QString trackName =
        track == names.tracks.end() ? QString() : QString::fromStdString(track->second.first);
    const QString category =
        QString::fromLatin1(kCategories[std::clamp<std::int64_t>(s.category, 0, 3)]);
    for (const QString& v : {name, core, trackName, category}) addCell(row, v, v);
    addCell(row, qint64(s.ts), QString::number(s.ts));
    addCell(row, qint64(s.dur), QString::number(s.dur));
    addCell(row, qint64(s.line), s.line > 0 ? QString::number(s.line) : QString());
    row.ref = EntityRef::slice(s.id);
    t.rows.push_back(std::move(row));
}

} // namespace

QString groupingLabel(SliceGrouping grouping) {
    switch (grouping) {
    case SliceGrouping::None:
        return QObject::tr("no grouping");
    case SliceGrouping::Name:
        return QObject::tr("name");
    case SliceGrouping::Track:
        return QObject::tr("track");
    case SliceGrouping::Core:
        return QObject::tr("core");
    case SliceGrouping::Category:
        return QObject::tr("category");
    case SliceGrouping::SourceLine:
        return QObject::tr("source line");
    }
    return {};
}

SlicePivot pivotSlices(const tracedb::TraceReader& reader, const SlicePivotQuery& query) {
    SlicePivot pivot;
    const Names names = readNames(reader);
    const bool grouped = query.grouping != SliceGrouping::None;
    if (!grouped) pivot.table = sliceHeaders();
    std::unordered_map<std::int64_t, std::size_t> index;
    std::vector<Group> groups;
    const auto onRow = [&](std::span<const std::string>, std::span<const tracedb::SqlValue> v) {
        const SliceFacts s{integer(v[0]), integer(v[1]), integer(v[2]), integer(v[3]),
                           integer(v[4]), integer(v[5]), integer(v[6])};
        ++pivot.slices;
        if (!grouped) {
            if (pivot.slices <= SlicePivot::kMaxListedSlices)
                addSliceRow(pivot.table, s, names);
            else
                pivot.truncated = true;
            return true;
        }
        auto [it, fresh] = index.emplace(groupId(s, query.grouping, names), groups.size());
        if (fresh) groups.push_back({groupKey(s, query.grouping, names), {}, 0, -1, -1});
        Group& g = groups[it->second];
        g.durs.push_back(s.dur);
        g.total += s.dur;
        if (s.dur > g.longestDur) g.longest = s.id, g.longestDur = s.dur;
        return true;
    };
    reader.query(sqlOf(query), onRow);
    if (grouped) pivot.table = groupedTable(std::move(groups), query.grouping);
    return pivot;
}

} // namespace pto::gui
