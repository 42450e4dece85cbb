// The timeline view of pto-studio: the canvas with its toolbar (search, colouring, flows),
// a track scroll bar, and a side panel with the clicked slice's details and the aggregate
// table of the area selection.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/TimelineSession.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QMenu;
class QScrollBar;
class QTabWidget;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

class StatusLine;

class LinkResolver;
class LinkWorker;
struct TimelineDetails;
struct TimelineFlow;
class TimelineAggregateModel;
class TimelineCanvas;
class TimelineDetailsModel;
class TimelineLoader;
class TimelineSearchModel;
class TimelineSliceCache;
class TimelineTrackModel;
struct QueryTrack;
struct TimelineArea;

class TimelineBookmarks;

class TimelineView : public StudioView {
    Q_OBJECT
public:
    explicit TimelineView(StudioContext& context, QWidget* parent = nullptr);
    ~TimelineView() override;

    QString viewId() const override { return QStringLiteral("timeline"); }
    QString viewTitle() const override { return tr("Timeline"); }

    TimelineCanvas& canvas() { return *m_canvas; }
    TimelineTrackModel& tracks() { return *m_tracks; }
    TimelineSearchModel& search() { return *m_search; }
    TimelineAggregateModel& aggregate() { return *m_aggregate; }
    TimelineDetailsModel& details() { return *m_details; }
    /// The selected slice's details are being read (on a worker; details() shows them after).
    bool detailsLoading() const { return m_detailsLoading; }
    /// The flows to draw (the selected slice's, or all in view) are being read on a worker.
    bool flowsLoading() const { return m_flowsLoading; }
    TimelineLoader& loader() { return *m_loader; }
    /// The tracks or the summary (on the loader's thread), a slice's details or flows are read.
    bool hasPendingWork() const override;
    QLineEdit* searchBox() const { return m_searchBox; }
    QComboBox* colouringBox() const { return m_colouring; }
    QCheckBox* allFlowsBox() const { return m_allFlows; }
    QString statusText() const;
    /// The Bookmarks tab (kept beside the trace in <trace>.session.json).
    TimelineBookmarks& bookmarks() { return *m_bookmarks; }
    /// Bookmarks the selected slice, or the middle of the view when none is selected.
    void bookmarkHere();

    /// What Return in the search box does: searches on a worker thread, then goes to the
    /// first match at or after the view's start (search().searching() until then).
    void startSearch(const QString& text);
    /// The same on the calling thread; returns the number of matches.
    int searchFor(const QString& text);
    /// Steps to the next / previous match and selects it; returns its row (-1 for none).
    int nextMatch();
    int previousMatch();
    /// Selects a slice as a click would: details, flows, shared selection.
    void selectSlice(std::int64_t sliceId, bool reveal);
    /// The right-click menu of a track's header: pin, expand/collapse, and for a query track
    /// rename and remove. The caller shows it (it deletes itself when closed).
    QMenu* trackMenu(int track);
    /// Where the timeline is: range, first row shown, selected slice (kept in the sidecar).
    TimelineViewState viewState() const;

protected:
    void documentChanged() override;

private:
    void buildLayout();
    void connectContext();
    void goToMatch(int row);
    void followSelection(const EntityRef& ref, const QObject* origin);
    void follow(const EntityRef& ref);
    void showSlice(std::int64_t sliceId, bool reveal);
    /// Reads the details of `sliceId` on a worker (-1: clears them at once).
    void requestDetails(std::int64_t sliceId);
    void showDetails(const Loaded<TimelineDetails>& loaded);
    /// The task slice of an Exec-stage task node (the last Exec stage's), or of a Block-stage
    /// block function's first task; -1 for any other node.
    std::int64_t taskSliceOf(const EntityRef& ref) const;
    /// Expands the track's parents and scrolls it (its row of nesting `depth`) into view.
    void revealTrack(int track, int depth = 0);
    void showArea(const TimelineArea& area);
    void addQueryTrack(std::shared_ptr<const QueryTrack> track);
    /// Reads the flows to draw on a worker (the canvas keeps the previous ones until then).
    void updateFlows();
    void showFlows(const Loaded<std::vector<TimelineFlow>>& loaded);
    void updateScrollBar();
    void tracksReady();
    void summaryReady();
    /// What the status adds when a `--trace tasks` run's empty pipe lanes are hidden ("" else).
    QString hiddenPipesNote() const;
    void restoreView(const TimelineViewState& view);

    std::unique_ptr<TimelineTrackModel> m_tracks;
    std::unique_ptr<TimelineSliceCache> m_slices;
    std::unique_ptr<TimelineLoader> m_loader;
    std::unique_ptr<TimelineSearchModel> m_search;
    std::unique_ptr<TimelineAggregateModel> m_aggregate;
    std::unique_ptr<TimelineDetailsModel> m_details;
    std::unique_ptr<LinkResolver> m_links;
    std::shared_ptr<LinkWorker> m_linkWorker; ///< reads the slice details, on a worker
    std::unordered_map<std::int64_t, QString> m_names;
    bool m_tracksLoading = false;             ///< the loader reads the open trace's tracks
    std::optional<EntityRef> m_pendingFollow; ///< a selection made before the tracks arrived

    TimelineCanvas* m_canvas = nullptr;
    QScrollBar* m_scrollBar = nullptr;
    QLineEdit* m_searchBox = nullptr;
    StatusLine* m_matchLabel = nullptr;
    QComboBox* m_colouring = nullptr;
    QCheckBox* m_allFlows = nullptr;
    StatusLine* m_status = nullptr;
    QTabWidget* m_side = nullptr;
    TimelineBookmarks* m_bookmarks = nullptr;
    QTableView* m_detailsTable = nullptr;
    QTableView* m_aggregateTable = nullptr;
    QFutureWatcher<Loaded<TimelineDetails>>* m_detailsWatcher = nullptr;
    WorkerTokens m_detailsTokens; ///< destroyed before m_detailsWatcher (a child): waits
    int m_detailsGeneration = 0;
    bool m_detailsLoading = false;
    QFutureWatcher<Loaded<std::vector<TimelineFlow>>>* m_flowsWatcher = nullptr;
    WorkerTokens m_flowsTokens; ///< destroyed before m_flowsWatcher (a child): waits
    int m_flowsGeneration = 0;
    bool m_flowsLoading = false;
};

} // namespace pto::gui
