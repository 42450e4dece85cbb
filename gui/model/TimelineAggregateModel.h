// The aggregate table of an area selection (time range × tracks): per slice name, the count,
// total, self and average duration.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

namespace pto::gui {

class CancelToken;

class TimelineSliceCache;

/// An area of the timeline: slices of these tracks that overlap [begin, end) cycles.
struct TimelineArea {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::vector<std::int64_t> trackIds;
    bool isEmpty() const { return end <= begin || trackIds.empty(); }
};

struct AggregateRow {
    QString name;
    std::int64_t count = 0;
    std::int64_t total = 0; ///< sum of the slices' whole durations, cycles
    std::int64_t self = 0;  ///< total minus the time of their direct children, cycles
    double average() const { return count ? double(total) / double(count) : 0.0; }
};

/// Rows sorted by total, descending (then name). Durations are whole slices, not clipped to
/// the area (as Perfetto's area selection does); self time subtracts the direct children
/// (depth + 1, same track, starting inside the slice) wherever they lie.
class TimelineAggregateModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, TotalColumn, SelfColumn, AverageColumn, ColumnCount };

    explicit TimelineAggregateModel(QObject* parent = nullptr);
    ~TimelineAggregateModel() override;

    /// Computes the rows of `area` from the cache's connection; `names` maps name ids.
    void compute(const TimelineArea& area, TimelineSliceCache& slices,
                 const std::unordered_map<std::int64_t, QString>& names);
    /// The same on a worker thread with its own connection to `trace`: the model shows the
    /// area with no rows now and fills when computed() arrives. A newer area, clear() or
    /// destruction cancels it.
    void
    computeInBackground(const std::filesystem::path& trace, const TimelineArea& area,
                        std::shared_ptr<const std::unordered_map<std::int64_t, QString>> names);
    bool computing() const { return m_computing; }
    /// The unit of the time columns' headers: "cycles", or "ns" for a measured trace.
    void setTimeUnit(const QString& unit);
    void clear();
    const TimelineArea& area() const { return m_area; }
    const std::vector<AggregateRow>& rows() const { return m_rows; }
    const AggregateRow* row(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    /// A background computation ended; `error` says why it failed, if it did.
    void computed(const QString& error);

private:
    void show(const TimelineArea& area, std::vector<AggregateRow> rows);
    void stopWorker();

    TimelineArea m_area;
    std::vector<AggregateRow> m_rows;
    QString m_unit = QStringLiteral("cycles");
    std::thread m_worker;
    std::shared_ptr<CancelToken> m_cancel;
    std::uint64_t m_generation = 0;
    bool m_computing = false;
};

} // namespace pto::gui
