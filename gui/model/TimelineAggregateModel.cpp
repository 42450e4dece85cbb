// Aggregates the slices of an area selection per name: count, total, self, average.
#include "gui/model/TimelineAggregateModel.h"

#include "gui/model/CancelToken.h"
#include "gui/model/WorkerResult.h"

#include "gui/model/TimelineSliceCache.h"

#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <map>
#include <unordered_map>

namespace pto::gui {
namespace {

// Self time of every slice of one track: its duration minus its direct children's.
std::unordered_map<std::int64_t, std::int64_t> selfTimes(const std::vector<TimelineSlice>& slices) {
    std::unordered_map<std::int64_t, std::int64_t> self;
    std::vector<const TimelineSlice*> open; // by depth
    for (const TimelineSlice& s : slices) {
        self[s.id] = s.dur;
        while (!open.empty() && (open.back()->depth >= s.depth || open.back()->end() <= s.ts))
            open.pop_back();
        if (!open.empty() && open.back()->depth == s.depth - 1) self[open.back()->id] -= s.dur;
        open.push_back(&s);
    }
    return self;
}

// The rows of `area`, sorted by total; stops early (partial rows) when `cancel` turns true.
std::vector<AggregateRow> aggregate(const TimelineArea& area, TimelineSliceCache& cache,
                                    const std::unordered_map<std::int64_t, QString>& names,
                                    const CancelToken& cancel) {
    std::map<std::int32_t, AggregateRow> byName;
    for (std::int64_t track : area.isEmpty() ? std::vector<std::int64_t>{} : area.trackIds) {
        if (cancel.cancelled()) break;
        const auto inArea = cache.read(track, area.begin, area.end);
        if (inArea.empty()) continue;
        // Children of these slices may lie outside the area: read the span they cover.
        std::int64_t lo = inArea.front().ts, hi = area.end;
        for (const TimelineSlice& s : inArea) hi = std::max(hi, s.end());
        const auto self = selfTimes(cache.read(track, lo, hi));
        for (const TimelineSlice& s : inArea) {
            AggregateRow& row = byName[s.nameId];
            ++row.count;
            row.total += s.dur;
            const auto it = self.find(s.id);
            row.self += it == self.end() ? s.dur : it->second;
        }
    }
    std::vector<AggregateRow> rows;
    for (auto& [nameId, row] : byName) {
        const auto name = names.find(nameId);
        row.name = name == names.end() ? QStringLiteral("#%1").arg(nameId) : name->second;
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const AggregateRow& a, const AggregateRow& b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    return rows;
}

} // namespace

void TimelineAggregateModel::clear() {
    stopWorker();
    beginResetModel();
    m_area = {};
    m_rows.clear();
    endResetModel();
}

TimelineAggregateModel::TimelineAggregateModel(QObject* parent) : QAbstractTableModel(parent) {}

TimelineAggregateModel::~TimelineAggregateModel() {
    stopWorker();
}

void TimelineAggregateModel::stopWorker() {
    cancelAndWait(m_cancel);
    if (m_worker.joinable()) m_worker.join();
    ++m_generation;
    m_computing = false;
}

void TimelineAggregateModel::show(const TimelineArea& area, std::vector<AggregateRow> rows) {
    beginResetModel();
    m_area = area;
    m_rows = std::move(rows);
    endResetModel();
}

void TimelineAggregateModel::compute(const TimelineArea& area, TimelineSliceCache& cache,
                                     const std::unordered_map<std::int64_t, QString>& names) {
    stopWorker();
    show(area, aggregate(area, cache, names, CancelToken()));
}

void TimelineAggregateModel::computeInBackground(
    const std::filesystem::path& trace, const TimelineArea& area,
    std::shared_ptr<const std::unordered_map<std::int64_t, QString>> names) {
    stopWorker();
    show(area, {});
    if (area.isEmpty()) {
        emit computed({});
        return;
    }
    m_computing = true;
    m_cancel = std::make_shared<CancelToken>();
    const std::uint64_t generation = m_generation;
    m_worker = std::thread([this, trace, area, names, generation, cancel = m_cancel] {
        const FinishGuard finish(*cancel);
        std::vector<AggregateRow> rows;
        QString error;
        try {
            TimelineSliceCache cache;
            cache.open(trace);
            cache.setReadBudget({}); // a big area takes long; Cancel (the token) stops it
            const auto watch = cancel->watch(cache.connection());
            rows = aggregate(area, cache, *names, *cancel);
        } catch (...) {
            error = currentErrorText();
        }
        if (cancel->cancelled()) return;
        // stopWorker() joins this thread before the model goes away; a queued call still
        // pending at destruction is dropped with its context object.
        QMetaObject::invokeMethod(
            this,
            [this, generation, area, error, rows = std::move(rows)]() mutable {
                if (generation != m_generation) return;
                if (m_worker.joinable()) m_worker.join();
                m_computing = false;
                show(area, std::move(rows));
                emit computed(error);
            },
            Qt::QueuedConnection);
    });
}

const AggregateRow* TimelineAggregateModel::row(const QString& name) const {
    for (const AggregateRow& row : m_rows)
        if (row.name == name) return &row;
    return nullptr;
}

int TimelineAggregateModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TimelineAggregateModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimelineAggregateModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const AggregateRow& row = m_rows[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    switch (index.column()) {
    case NameColumn:
        return row.name;
    case CountColumn:
        return QVariant::fromValue<qlonglong>(row.count);
    case TotalColumn:
        return QVariant::fromValue<qlonglong>(row.total);
    case SelfColumn:
        return QVariant::fromValue<qlonglong>(row.self);
    case AverageColumn:
        return role == Qt::DisplayRole ? QVariant(QString::number(row.average(), 'f', 1))
                                       : QVariant(row.average());
    default:
        return {};
    }
}

void TimelineAggregateModel::setTimeUnit(const QString& unit) {
    if (unit == m_unit) return;
    m_unit = unit;
    emit headerDataChanged(Qt::Horizontal, TotalColumn, AverageColumn);
}

QVariant TimelineAggregateModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case CountColumn:
        return tr("Count");
    case TotalColumn:
        return tr("Total (%1)").arg(m_unit);
    case SelfColumn:
        return tr("Self (%1)").arg(m_unit);
    case AverageColumn:
        return tr("Average (%1)").arg(m_unit);
    default:
        return {};
    }
}

} // namespace pto::gui
