// The timeline's track tree (chip → core → pipe, counters, query tracks) with collapse and pin
// state, as a Qt item model, and the flat list of rows the canvas draws.
#pragma once

#include "gui/model/QueryTrack.h"

#include <QAbstractItemModel>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

enum class TimelineTrackKind { Chip, Core, Pipe, Task, Counter, Query, Group };

/// One lane of the timeline. `id` is the trace's track id; query tracks and the group that
/// holds them have negative ids of their own.
struct TimelineTrack {
    std::int64_t id = -1;
    TimelineTrackKind kind = TimelineTrackKind::Pipe;
    QString name;
    QString pipe;
    int parent = -1;           ///< index in the model's track list, -1 for a root
    int row = 0;               ///< position among its siblings
    std::vector<int> children; ///< indexes, in display order
    std::int64_t sliceCount = 0;
    std::int64_t minTs = 0;
    std::int64_t maxEnd = 0;
    int maxDepth = 0;
    bool expanded = true;
    bool pinned = false;
    std::shared_ptr<const QueryTrack> query; ///< for Query tracks
    bool hasSlices() const {
        return kind != TimelineTrackKind::Counter && kind != TimelineTrackKind::Group;
    }
};

/// The track tree of a trace as read (on a worker: the counter extents are a GROUP BY over
/// every counter sample), installed into the model on the GUI thread.
struct TimelineTrackTree {
    std::vector<TimelineTrack> tracks;
    std::vector<int> roots;
    /// Pipe lanes left out of the tree: a run traced at `--trace tasks` records no instruction,
    /// so its pipe tracks are empty lanes under every core.
    int hiddenPipes = 0;
};

/// A drawn row: which track, where (pixels from the top of its area) and how tall.
struct TimelineRow {
    int track = -1;
    int y = 0;
    int height = 0;
    int indent = 0;
};

class TimelineTrackModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role { TrackIdRole = Qt::UserRole + 1, KindRole, ExpandedRole, PinnedRole };
    enum Column { NameColumn, SlicesColumn, ColumnCount };
    static constexpr int kLaneHeight = 18;
    static constexpr int kCounterHeight = 36;
    static constexpr int kGroupHeight = 20;

    explicit TimelineTrackModel(QObject* parent = nullptr);

    /// Reloads from a trace (no reader: empty). Cores without slices start collapsed.
    void load(const tracedb::TraceReader* reader);
    /// Empty pipe lanes of a `--trace tasks` run that the tree leaves out.
    int hiddenPipes() const { return m_hiddenPipes; }
    /// The tree `load` installs, read without touching a model (any thread).
    static TimelineTrackTree read(const tracedb::TraceReader& reader);
    /// Replaces the tracks with a tree `read` made.
    void install(TimelineTrackTree tree);
    /// Appends a query track under the "Queries" group; returns its track index.
    int addQueryTrack(std::shared_ptr<const QueryTrack> track);
    /// Renames / removes a query track (other kinds are left alone).
    void renameQueryTrack(int track, const QString& name);
    void removeQueryTrack(int track);

    const std::vector<TimelineTrack>& tracks() const { return m_tracks; }
    const TimelineTrack& track(int index) const { return m_tracks[std::size_t(index)]; }
    int indexOfTrackId(std::int64_t id) const;
    /// Time covered by the slices of every track, cycles; [0, 0) when there are none.
    std::int64_t minTs() const { return m_minTs; }
    std::int64_t maxEnd() const { return m_maxEnd; }
    /// Time covered by the slices on core tracks themselves (a measured trace's kernels: its
    /// run, as `pto report` counts it); nullopt when no core track has slices.
    std::optional<std::pair<std::int64_t, std::int64_t>> coreExtent() const;

    void setExpanded(int track, bool expanded);
    void setPinned(int track, bool pinned);
    void setAllExpanded(bool expanded);

    /// Rows of the pinned area (pinned tracks, in tree order) and of the scrolling area
    /// (the tree with collapsed children left out, pinned tracks left out).
    const std::vector<TimelineRow>& pinnedRows() const { return m_pinnedRows; }
    const std::vector<TimelineRow>& rows() const { return m_rows; }
    int pinnedHeight() const;
    int rowsHeight() const;
    /// Height of a track's row.
    int heightOf(const TimelineTrack& track) const;
    /// The track and its descendants, for area selection over a collapsed core.
    std::vector<int> subtree(int track) const;

    QModelIndex indexOf(int track, int column = 0) const;
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    /// The drawn rows changed (collapse, pin, load, new query track).
    void rowsChanged();

private:
    void relayout();
    void appendRows(int track, int indent, std::vector<TimelineRow>& out, int& y,
                    bool pinned) const;
    void updateBounds();
    int groupIndex();

    std::vector<TimelineTrack> m_tracks;
    std::vector<int> m_roots;
    int m_hiddenPipes = 0;
    std::vector<TimelineRow> m_pinnedRows;
    std::vector<TimelineRow> m_rows;
    std::int64_t m_minTs = 0;
    std::int64_t m_maxEnd = 0;
};

} // namespace pto::gui
