// Builds the timeline's track tree from the trace and lays out its drawn rows.
#include "gui/model/TimelineTrackModel.h"

#include "gui/model/TimelineSliceCache.h"
#include "trace_db/TraceReader.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace pto::gui {
namespace {

constexpr std::int64_t kGroupId = -2;

TimelineTrackKind kindOf(tracedb::TrackKind kind) {
    switch (kind) {
    case tracedb::TrackKind::Chip:
        return TimelineTrackKind::Chip;
    case tracedb::TrackKind::Core:
        return TimelineTrackKind::Core;
    case tracedb::TrackKind::Pipe:
        return TimelineTrackKind::Pipe;
    case tracedb::TrackKind::Task:
        return TimelineTrackKind::Task;
    case tracedb::TrackKind::Counter:
        return TimelineTrackKind::Counter;
    }
    return TimelineTrackKind::Pipe;
}

struct Extent {
    std::int64_t count = 0, minTs = 0, maxEnd = 0, maxDepth = 0;
};

std::unordered_map<std::int64_t, Extent> readExtents(const tracedb::TraceReader& reader) {
    std::unordered_map<std::int64_t, Extent> extents;
    reader.query("SELECT track_id, slice_count, min_ts, max_end, max_depth FROM track_summary",
                 [&](auto, auto row) {
                     auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
                     extents[v(0)] = {v(1), v(2), v(3), v(4)};
                     return true;
                 });
    reader.query("SELECT track_id, count(*), min(ts), max(ts) FROM counter GROUP BY track_id",
                 [&](auto, auto row) {
                     auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
                     extents[v(0)] = {v(1), v(2), v(3), 0};
                     return true;
                 });
    return extents;
}

} // namespace

TimelineTrackModel::TimelineTrackModel(QObject* parent) : QAbstractItemModel(parent) {}

void TimelineTrackModel::load(const tracedb::TraceReader* reader) {
    install(reader ? read(*reader) : TimelineTrackTree{});
}

TimelineTrackTree TimelineTrackModel::read(const tracedb::TraceReader& reader) {
    TimelineTrackTree tree;
    auto& tracks = tree.tracks;
    const auto strings = reader.strings();
    const auto extents = readExtents(reader);
    auto rows = reader.tracks();
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.sortIndex < b.sortIndex; });
    std::unordered_map<std::int64_t, int> indexOfId;
    for (const tracedb::TrackRow& row : rows) {
        TimelineTrack track;
        track.id = row.id;
        track.kind = kindOf(row.kind);
        const auto name = strings.find(row.nameId);
        track.name = QString::fromStdString(name == strings.end() ? "" : name->second);
        track.pipe = QString::fromStdString(row.pipe);
        if (auto e = extents.find(row.id); e != extents.end()) {
            track.sliceCount = e->second.count;
            track.minTs = e->second.minTs;
            track.maxEnd = e->second.maxEnd;
            track.maxDepth = static_cast<int>(
                std::clamp<std::int64_t>(e->second.maxDepth, 0, TimelineSlice::kMaxDepth));
        }
        indexOfId[row.id] = static_cast<int>(tracks.size());
        tracks.push_back(std::move(track));
    }
    // At --trace tasks no pipe has a slice: their lanes would be empty rows under every core.
    const bool tasksOnly = reader.meta("trace_level").value_or("") == "tasks";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (tasksOnly && tracks[i].kind == TimelineTrackKind::Pipe && tracks[i].sliceCount == 0) {
            ++tree.hiddenPipes;
            continue;
        }
        const auto parent = rows[i].parentId ? indexOfId.find(*rows[i].parentId) : indexOfId.end();
        auto& siblings =
            parent == indexOfId.end() ? tree.roots : tracks[std::size_t(parent->second)].children;
        tracks[i].parent = parent == indexOfId.end() ? -1 : parent->second;
        tracks[i].row = static_cast<int>(siblings.size());
        siblings.push_back(static_cast<int>(i));
    }
    // A core with no slices in its whole subtree starts collapsed.
    for (TimelineTrack& core : tracks) {
        if (core.kind != TimelineTrackKind::Core) continue;
        std::int64_t slices = 0;
        std::vector<int> pending = core.children;
        while (!pending.empty()) {
            const TimelineTrack& t = tracks[std::size_t(pending.back())];
            pending.pop_back();
            slices += t.sliceCount;
            pending.insert(pending.end(), t.children.begin(), t.children.end());
        }
        core.expanded = slices + core.sliceCount > 0;
    }
    return tree;
}

void TimelineTrackModel::install(TimelineTrackTree tree) {
    beginResetModel();
    m_tracks = std::move(tree.tracks);
    m_roots = std::move(tree.roots);
    m_hiddenPipes = tree.hiddenPipes;
    updateBounds();
    relayout();
    endResetModel();
    emit rowsChanged();
}

void TimelineTrackModel::updateBounds() {
    m_minTs = std::numeric_limits<std::int64_t>::max();
    m_maxEnd = std::numeric_limits<std::int64_t>::min();
    for (const TimelineTrack& t : m_tracks) {
        if (t.sliceCount == 0) continue;
        m_minTs = std::min(m_minTs, t.minTs);
        m_maxEnd = std::max(m_maxEnd, t.maxEnd);
    }
    if (m_minTs > m_maxEnd) m_minTs = m_maxEnd = 0;
}

std::optional<std::pair<std::int64_t, std::int64_t>> TimelineTrackModel::coreExtent() const {
    std::optional<std::pair<std::int64_t, std::int64_t>> extent;
    for (const TimelineTrack& t : m_tracks) {
        if (t.kind != TimelineTrackKind::Core || t.sliceCount == 0) continue;
        if (!extent) extent.emplace(t.minTs, t.maxEnd);
        extent->first = std::min(extent->first, t.minTs);
        extent->second = std::max(extent->second, t.maxEnd);
    }
    return extent;
}

int TimelineTrackModel::groupIndex() {
    for (int root : m_roots)
        if (m_tracks[std::size_t(root)].id == kGroupId) return root;
    const int index = static_cast<int>(m_tracks.size());
    beginInsertRows({}, static_cast<int>(m_roots.size()), static_cast<int>(m_roots.size()));
    TimelineTrack group;
    group.id = kGroupId;
    group.kind = TimelineTrackKind::Group;
    group.name = tr("Queries");
    group.row = static_cast<int>(m_roots.size());
    m_tracks.push_back(std::move(group));
    m_roots.push_back(index);
    endInsertRows();
    return index;
}

int TimelineTrackModel::addQueryTrack(std::shared_ptr<const QueryTrack> query) {
    const int group = groupIndex();
    auto& siblings = m_tracks[std::size_t(group)].children;
    const int row = static_cast<int>(siblings.size());
    beginInsertRows(indexOf(group), row, row);
    TimelineTrack track;
    track.id = kGroupId - 1 - static_cast<std::int64_t>(m_tracks.size());
    track.kind = TimelineTrackKind::Query;
    track.name = query->title;
    track.parent = group;
    track.row = row;
    track.sliceCount = static_cast<std::int64_t>(query->items.size());
    if (!query->items.empty()) {
        track.minTs = query->items.front().ts;
        for (const auto& item : query->items) {
            track.minTs = std::min(track.minTs, item.ts);
            track.maxEnd = std::max(track.maxEnd, item.ts + item.dur);
            track.maxDepth = std::max(track.maxDepth, item.depth);
        }
    }
    track.query = std::move(query);
    const int index = static_cast<int>(m_tracks.size());
    m_tracks.push_back(std::move(track));
    m_tracks[std::size_t(group)].children.push_back(index);
    endInsertRows();
    updateBounds();
    relayout();
    emit rowsChanged();
    return index;
}

void TimelineTrackModel::renameQueryTrack(int track, const QString& name) {
    TimelineTrack& t = m_tracks[std::size_t(track)];
    if (t.kind != TimelineTrackKind::Query || name.trimmed().isEmpty()) return;
    t.name = name.trimmed();
    const QModelIndex index = indexOf(track);
    emit dataChanged(index, index);
    emit rowsChanged();
}

void TimelineTrackModel::removeQueryTrack(int track) {
    TimelineTrack& t = m_tracks[std::size_t(track)];
    if (t.kind != TimelineTrackKind::Query || t.parent < 0) return;
    auto& siblings = m_tracks[std::size_t(t.parent)].children;
    const int row = t.row;
    beginRemoveRows(indexOf(t.parent), row, row);
    siblings.erase(siblings.begin() + row);
    for (std::size_t i = std::size_t(row); i < siblings.size(); ++i)
        m_tracks[std::size_t(siblings[i])].row = static_cast<int>(i);
    // The entry stays (track indexes are positions) but belongs to nothing and draws nothing.
    t.parent = -1;
    t.query.reset();
    t.sliceCount = 0;
    t.pinned = false;
    endRemoveRows();
    updateBounds();
    relayout();
    emit rowsChanged();
}

int TimelineTrackModel::indexOfTrackId(std::int64_t id) const {
    for (std::size_t i = 0; i < m_tracks.size(); ++i)
        if (m_tracks[i].id == id) return static_cast<int>(i);
    return -1;
}

std::vector<int> TimelineTrackModel::subtree(int track) const {
    std::vector<int> out{track};
    for (std::size_t i = 0; i < out.size(); ++i)
        for (int child : m_tracks[std::size_t(out[i])].children) out.push_back(child);
    return out;
}

void TimelineTrackModel::setExpanded(int track, bool expanded) {
    if (track < 0 || std::size_t(track) >= m_tracks.size()) return;
    if (m_tracks[std::size_t(track)].expanded == expanded) return;
    m_tracks[std::size_t(track)].expanded = expanded;
    const QModelIndex at = indexOf(track);
    emit dataChanged(at, at, {ExpandedRole});
    relayout();
    emit rowsChanged();
}

void TimelineTrackModel::setAllExpanded(bool expanded) {
    for (std::size_t i = 0; i < m_tracks.size(); ++i)
        if (!m_tracks[i].children.empty()) m_tracks[i].expanded = expanded;
    if (!m_tracks.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, 0), {ExpandedRole});
    relayout();
    emit rowsChanged();
}

void TimelineTrackModel::setPinned(int track, bool pinned) {
    if (track < 0 || std::size_t(track) >= m_tracks.size()) return;
    if (m_tracks[std::size_t(track)].pinned == pinned) return;
    m_tracks[std::size_t(track)].pinned = pinned;
    const QModelIndex at = indexOf(track);
    emit dataChanged(at, at, {PinnedRole});
    relayout();
    emit rowsChanged();
}

int TimelineTrackModel::heightOf(const TimelineTrack& track) const {
    switch (track.kind) {
    case TimelineTrackKind::Counter:
        return kCounterHeight;
    case TimelineTrackKind::Group:
        return kGroupHeight;
    default:
        return kLaneHeight * (track.maxDepth + 1) + 4;
    }
}

void TimelineTrackModel::appendRows(int track, int indent, std::vector<TimelineRow>& out, int& y,
                                    bool pinned) const {
    const TimelineTrack& t = m_tracks[std::size_t(track)];
    if (t.pinned == pinned) {
        out.push_back({track, y, heightOf(t), indent});
        y += heightOf(t);
    }
    if (!t.expanded && !pinned) return;
    for (int child : t.children) appendRows(child, indent + 1, out, y, pinned);
}

void TimelineTrackModel::relayout() {
    m_rows.clear();
    m_pinnedRows.clear();
    int y = 0;
    for (int root : m_roots) appendRows(root, 0, m_rows, y, false);
    y = 0;
    for (int root : m_roots) appendRows(root, 0, m_pinnedRows, y, true);
}

int TimelineTrackModel::pinnedHeight() const {
    return m_pinnedRows.empty() ? 0 : m_pinnedRows.back().y + m_pinnedRows.back().height;
}

int TimelineTrackModel::rowsHeight() const {
    return m_rows.empty() ? 0 : m_rows.back().y + m_rows.back().height;
}

QModelIndex TimelineTrackModel::indexOf(int track, int column) const {
    if (track < 0 || std::size_t(track) >= m_tracks.size()) return {};
    return createIndex(m_tracks[std::size_t(track)].row, column, quintptr(track));
}

QModelIndex TimelineTrackModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    const auto& siblings =
        parent.isValid() ? m_tracks[std::size_t(parent.internalId())].children : m_roots;
    return createIndex(row, column, quintptr(siblings[std::size_t(row)]));
}

QModelIndex TimelineTrackModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    return indexOf(m_tracks[std::size_t(child.internalId())].parent);
}

int TimelineTrackModel::rowCount(const QModelIndex& parent) const {
    if (parent.column() > 0) return 0;
    if (!parent.isValid()) return static_cast<int>(m_roots.size());
    return static_cast<int>(m_tracks[std::size_t(parent.internalId())].children.size());
}

int TimelineTrackModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant TimelineTrackModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const TimelineTrack& t = m_tracks[std::size_t(index.internalId())];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn) return t.name;
        return QVariant::fromValue<qlonglong>(t.sliceCount);
    case TrackIdRole:
        return QVariant::fromValue<qlonglong>(t.id);
    case KindRole:
        return static_cast<int>(t.kind);
    case ExpandedRole:
        return t.expanded;
    case PinnedRole:
        return t.pinned;
    default:
        return {};
    }
}

bool TimelineTrackModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid()) return false;
    const int track = static_cast<int>(index.internalId());
    if (role == ExpandedRole)
        setExpanded(track, value.toBool());
    else if (role == PinnedRole)
        setPinned(track, value.toBool());
    else
        return false;
    return true;
}

Qt::ItemFlags TimelineTrackModel::flags(const QModelIndex& index) const {
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags;
}

QVariant TimelineTrackModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == NameColumn ? tr("Track") : tr("Slices");
}

} // namespace pto::gui
