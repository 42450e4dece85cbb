// The timeline view: wires the canvas to the document, the shared selection, search, area
// aggregation, slice details and the background summary build.
#include "gui/widgets/TimelineView.h"
#include "gui/widgets/StatusLine.h"

#include "gui/model/LinkResolver.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/TimelineAggregateModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineFlows.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineSearchModel.h"
#include "gui/model/TimelineSliceCache.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/model/WorkerPool.h"
#include "gui/widgets/TimelineBookmarks.h"
#include "gui/widgets/TimelineCanvas.h"

#include <fmt/format.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <utility>

namespace pto::gui {
namespace {

QString noRunText() {
    return TimelineView::tr("No timeline: this trace has no simulation run.\n"
                            "Run it with `pto run` to see slices here.");
}

} // namespace

TimelineView::TimelineView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_tracks(std::make_unique<TimelineTrackModel>()),
      m_slices(std::make_unique<TimelineSliceCache>()),
      m_loader(std::make_unique<TimelineLoader>()),
      m_search(std::make_unique<TimelineSearchModel>()),
      m_aggregate(std::make_unique<TimelineAggregateModel>()),
      m_details(std::make_unique<TimelineDetailsModel>()),
      m_detailsWatcher(new QFutureWatcher<Loaded<TimelineDetails>>(this)),
      m_flowsWatcher(new QFutureWatcher<Loaded<std::vector<TimelineFlow>>>(this)) {
    connect(m_flowsWatcher, &QFutureWatcher<Loaded<std::vector<TimelineFlow>>>::finished, this,
            [this] { showFlows(m_flowsWatcher->result()); }); // never throws: runLoaded
    connect(m_detailsWatcher, &QFutureWatcher<Loaded<TimelineDetails>>::finished, this,
            [this] { showDetails(m_detailsWatcher->result()); }); // never throws: runLoaded
    buildLayout();
    connectContext();
    initialize();
}

TimelineView::~TimelineView() = default;

void TimelineView::buildLayout() {
    m_canvas = new TimelineCanvas(*m_tracks, *m_slices, this);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_searchBox = new QLineEdit(this);
    m_searchBox->setPlaceholderText(tr("Search slices by name (Return: next)"));
    m_searchBox->setClearButtonEnabled(true);
    // Tool buttons: a push button is at least ~80 px wide whatever its text, and the toolbar's
    // minimum then exceeded a docked timeline's width, squeezing the match count to one digit.
    auto* previous = new QToolButton(this);
    auto* next = new QToolButton(this);
    previous->setText(tr("◀"));
    next->setText(tr("▶"));
    previous->setToolTip(tr("Previous match"));
    next->setToolTip(tr("Next match"));
    m_matchLabel = new StatusLine(this); // plain text: slice names from the trace
    m_matchLabel->setObjectName(QStringLiteral("searchMatches"));
    m_colouring = new QComboBox(this);
    m_colouring->addItems({tr("Colour by Tensor op"), tr("Colour by pipe")});
    m_allFlows = new QCheckBox(tr("All flows"), this);
    m_allFlows->setToolTip(tr("Draw every flag and dependency arrow in view (otherwise only "
                              "those of the selected slice)"));
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    m_searchBox->setMinimumWidth(m_searchBox->fontMetrics().averageCharWidth() * 12);
    m_status = new StatusLine(this);

    // Room for "searching…" and "123456/123456 (cap)"; longer texts are elided (tooltip whole).
    // A fixed policy: a status line's own (Ignored) lets the toolbar take its room when the
    // dock is narrow, and the colour combo covered all but the count's first digit.
    m_matchLabel->setFixedWidth(m_matchLabel->fontMetrics().horizontalAdvance(
        QStringLiteral("%1/%2 +").arg(999999).arg(999999)));
    m_matchLabel->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(m_searchBox, 2);
    toolbar->addWidget(previous);
    toolbar->addWidget(next);
    toolbar->addWidget(m_matchLabel);
    toolbar->addWidget(m_colouring);
    toolbar->addWidget(m_allFlows);
    toolbar->addWidget(fit);
    toolbar->addWidget(m_status, 3);

    auto* canvasBox = new QWidget(this);
    auto* canvasLayout = new QHBoxLayout(canvasBox);
    canvasLayout->setContentsMargins(0, 0, 0, 0);
    canvasLayout->setSpacing(0);
    canvasLayout->addWidget(m_canvas, 1);
    canvasLayout->addWidget(m_scrollBar);

    m_detailsTable = new QTableView(this);
    m_detailsTable->setModel(m_details.get());
    m_aggregateTable = new QTableView(this);
    m_aggregateTable->setModel(m_aggregate.get());
    for (QTableView* table : {m_detailsTable, m_aggregateTable}) {
        table->horizontalHeader()->setStretchLastSection(true);
        table->verticalHeader()->hide();
        table->setWordWrap(true);
    }
    m_side = new QTabWidget(this);
    m_side->addTab(m_detailsTable, tr("Slice"));
    m_side->addTab(m_aggregateTable, tr("Area"));
    m_bookmarks = new TimelineBookmarks(this);
    m_side->addTab(m_bookmarks, tr("Bookmarks"));

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(canvasBox);
    splitter->addWidget(m_side);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    splitter->setSizes({1000, 420});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(toolbar);
    layout->addWidget(splitter, 1);

    connect(m_searchBox, &QLineEdit::returnPressed, this, [this] {
        if (m_search->searching()) return;
        if (m_searchBox->text() != m_search->text())
            startSearch(m_searchBox->text());
        else
            nextMatch();
    });
    connect(m_search.get(), &TimelineSearchModel::searchFinished, this,
            [this](int count, const QString& error) {
                if (!error.isEmpty())
                    m_matchLabel->setText(tr("search failed: %1").arg(error));
                else if (count == 0)
                    m_matchLabel->setText(m_search->text().isEmpty() ? QString() : tr("no match"));
                else
                    goToMatch(m_search->next(std::int64_t(m_canvas->viewport().begin()) - 1));
            });
    connect(next, &QToolButton::clicked, this, [this] { nextMatch(); });
    connect(previous, &QToolButton::clicked, this, [this] { previousMatch(); });
    connect(m_colouring, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_canvas->setColouring(index == 1 ? TimelineColouring::ByPipe
                                          : TimelineColouring::ByTensorOp);
    });
    connect(m_allFlows, &QCheckBox::toggled, this, [this] { updateFlows(); });
    connect(fit, &QToolButton::clicked, this, [this] {
        m_canvas->viewport().showAll();
        m_canvas->update();
        updateFlows();
    });
    connect(m_scrollBar, &QScrollBar::valueChanged, m_canvas, &TimelineCanvas::setScrollY);
    connect(m_canvas, &TimelineCanvas::viewChanged, this, [this] {
        updateScrollBar();
        if (m_allFlows->isChecked()) updateFlows();
    });
    connect(m_tracks.get(), &TimelineTrackModel::rowsChanged, this, [this] { updateScrollBar(); });
    connect(m_canvas, &TimelineCanvas::trackMenuRequested, this,
            [this](int track, QPoint at) { trackMenu(track)->popup(at); });
    connect(m_canvas, &TimelineCanvas::sliceClicked, this,
            [this](std::int64_t slice, std::int64_t) { selectSlice(slice, false); });
    connect(m_canvas, &TimelineCanvas::emptyClicked, this, [this] {
        m_canvas->setSelectedSlice(-1);
        requestDetails(-1);
        updateFlows();
        selection().select({}, this);
    });
    connect(m_canvas, &TimelineCanvas::bookmarkRequested, this, &TimelineView::bookmarkHere);
    connect(m_bookmarks, &TimelineBookmarks::activated, this, [this](const Bookmark& b) {
        if (b.slice >= 0) {
            selectSlice(b.slice, true);
            return;
        }
        const double half = m_canvas->viewport().span() / 2;
        m_canvas->viewport().setRange(double(b.cycle) - half, double(b.cycle) + half);
        m_canvas->update();
    });
    connect(m_canvas, &TimelineCanvas::areaSelected, this,
            [this](const TimelineArea& area) { showArea(area); });
    connect(m_aggregate.get(), &TimelineAggregateModel::computed, this,
            [this](const QString& error) {
                if (!error.isEmpty())
                    m_status->setText(tr("Cannot aggregate the area: %1").arg(error));
            });
    connect(m_loader.get(), &TimelineLoader::tracksLoaded, this, [this] { tracksReady(); });
    connect(m_loader.get(), &TimelineLoader::finished, this, [this] { summaryReady(); });
    connect(m_loader.get(), &TimelineLoader::failed, this, [this](const QString& reason) {
        const bool tracksRead = !m_tracksLoading;
        m_tracksLoading = false;
        m_pendingFollow.reset();
        if (tracksRead && m_tracks->tracks().empty()) return; // compile only: nothing to sum
        m_status->setText(tr("Summary failed: %1").arg(reason));
    });
}

void TimelineView::connectContext() {
    connect(&selection(), &SelectionModel::selectionChanged, this,
            [this](const EntityRef& ref, const QObject* origin) { followSelection(ref, origin); });
    connect(&context(), &StudioContext::revealTimeRequested, this,
            [this](qint64 begin, qint64 end) {
                m_canvas->viewport().reveal(begin, end);
                m_canvas->update();
            });
    connect(&context(), &StudioContext::queryTrackRequested, this,
            [this](std::shared_ptr<const QueryTrack> track) { addQueryTrack(std::move(track)); });
    connect(&context(), &StudioContext::documentClosing, this,
            [this] { m_bookmarks->saveView(viewState()); });
}

TimelineViewState TimelineView::viewState() const {
    const TimelineViewport& v = m_canvas->viewport();
    return {v.begin(), v.end(), m_canvas->scrollY(), m_canvas->selectedSlice()};
}

void TimelineView::restoreView(const TimelineViewState& view) {
    m_canvas->viewport().setRange(view.begin, view.end);
    m_canvas->setScrollY(view.scrollY);
    if (view.selectedSlice >= 0) selectSlice(view.selectedSlice, false);
    m_canvas->update();
}

bool TimelineView::hasPendingWork() const {
    return m_loader->busy() || m_detailsLoading || m_flowsLoading;
}

QString TimelineView::statusText() const {
    return m_status->text();
}

void TimelineView::bookmarkHere() {
    const TraceDocument* doc = document();
    if (!doc) return;
    const std::int64_t slice = m_canvas->selectedSlice();
    if (slice < 0) {
        const auto middle =
            std::int64_t(m_canvas->viewport().begin() + m_canvas->viewport().span() / 2);
        m_bookmarks->add({middle, -1, tr("mark in time")});
        return;
    }
    const auto r = doc->reader().query(fmt::format(
        "SELECT s.ts, s.name, s.track_name, p.name FROM slice_named s JOIN track t ON t.id = "
        "s.track_id LEFT JOIN track_named p ON p.id = t.parent_id WHERE s.id = {}",
        slice));
    if (r.rows.empty()) return;
    const auto text = [](const tracedb::SqlValue& v) {
        const auto* s = std::get_if<std::string>(&v);
        return s ? QString::fromStdString(*s) : QString();
    };
    const QString where = text(r.rows[0][3]).isEmpty()
                              ? text(r.rows[0][2])
                              : text(r.rows[0][3]) + QStringLiteral(" ") + text(r.rows[0][2]);
    m_bookmarks->add({std::get<std::int64_t>(r.rows[0][0]), slice,
                      tr("%1 on %2").arg(text(r.rows[0][1]), where)});
    m_side->setCurrentWidget(m_bookmarks);
}

void TimelineView::documentChanged() {
    m_loader->cancel();
    m_links.reset();
    m_linkWorker.reset();
    requestDetails(-1);
    updateFlows(); // none until a slice is selected (cancels a read for the previous trace)
    m_aggregate->clear();
    m_searchBox->clear(); // a query of the previous trace would name slices this one lacks
    m_matchLabel->setText({});
    m_names.clear();
    const TraceDocument* doc = document();
    try {
        m_slices->open(doc ? doc->path() : std::filesystem::path());
    } catch (const std::exception& e) {
        m_status->setText(tr("Cannot read slices: %1").arg(QString::fromUtf8(e.what())));
    }
    m_tracks->load(nullptr); // the trace's tracks are read on the loader's thread
    const bool hasRun = doc && doc->summary().hasRun(); // trackCount > 0
    m_tracksLoading = hasRun;
    m_pendingFollow.reset();
    m_search->setReader(doc ? &doc->reader() : nullptr);
    if (doc) {
        for (const auto& [id, text] : doc->reader().strings())
            m_names.emplace(id, QString::fromStdString(text));
        m_links = std::make_unique<LinkResolver>(doc->reader());
        m_linkWorker = std::make_shared<LinkWorker>(doc->path());
    }
    m_canvas->reset(m_names, doc ? doc->summary().clockHz : 0, doc && doc->summary().measured);
    m_aggregate->setTimeUnit(m_canvas->timeUnit());
    m_bookmarks->setTimeUnit(m_canvas->timeUnit());
    m_bookmarks->setTrace(doc ? doc->path() : std::filesystem::path());
    m_canvas->setFlows({});
    m_canvas->setEmptyText(hasRun ? tr("Loading the tracks…")
                           : doc  ? noRunText()
                                  : context().noTraceText());
    if (hasRun) {
        m_status->setText(tr("Loading the tracks…"));
        m_loader->start(doc->path());
    } else if (doc) {
        m_status->setText(tr("No simulation in this trace (compile only): nothing to draw"));
    } else {
        m_status->setText(context().noTraceStatus());
    }
    updateScrollBar();
}

void TimelineView::tracksReady() {
    const TraceDocument* doc = document();
    if (!doc) return;
    m_tracks->install(m_loader->takeTracks());
    m_tracksLoading = false;
    m_canvas->reset(m_names, doc->summary().clockHz, doc->summary().measured);
    // Idle cores come first in the tree (collapsed): start at the first busy one.
    for (const TimelineRow& row : m_tracks->rows()) {
        const TimelineTrack& track = m_tracks->track(row.track);
        if (track.kind == TimelineTrackKind::Core && track.expanded) {
            m_canvas->setScrollY(row.y);
            break;
        }
    }
    if (const auto& saved = m_bookmarks->savedView()) restoreView(*saved);
    m_canvas->setEmptyText(noRunText());
    if (m_tracks->tracks().empty()) {
        m_status->setText(tr("No simulation in this trace (compile only): nothing to draw"));
    } else {
        std::int64_t slices = 0;
        for (const auto& t : m_tracks->tracks()) slices += t.hasSlices() ? t.sliceCount : 0;
        m_status->setText(
            tr("%1 tracks, %2 slices; summarising…").arg(m_tracks->tracks().size()).arg(slices) +
            hiddenPipesNote());
    }
    updateScrollBar();
    // A selection made while the tracks were read is revealed now.
    if (const auto pending = std::exchange(m_pendingFollow, std::nullopt))
        followSelection(*pending, nullptr);
}

void TimelineView::summaryReady() {
    if (m_tracks->tracks().empty()) return; // compile only: the status says so
    const auto& lod = m_loader->result();
    m_canvas->setLod(lod);
    m_status->setText(tr("%1 tracks, %2 slices; summary built in %3 s")
                          .arg(m_tracks->tracks().size())
                          .arg(lod->slicesScanned)
                          .arg(lod->seconds, 0, 'f', 2) +
                      hiddenPipesNote());
}

QString TimelineView::hiddenPipesNote() const {
    if (m_tracks->hiddenPipes() == 0) return {};
    return tr(" — %1 empty pipe lanes hidden: --trace tasks records no instructions (pto run "
              "--trace instructions shows them)")
        .arg(m_tracks->hiddenPipes());
}

void TimelineView::updateScrollBar() {
    const QSignalBlocker block(m_scrollBar);
    m_scrollBar->setRange(0, m_canvas->maxScrollY());
    m_scrollBar->setPageStep(std::max(1, m_canvas->height() - TimelineCanvas::kRulerHeight));
    m_scrollBar->setSingleStep(TimelineTrackModel::kLaneHeight);
    m_scrollBar->setValue(m_canvas->scrollY());
}

void TimelineView::startSearch(const QString& text) {
    const TraceDocument* doc = document();
    if (!doc) return;
    if (m_searchBox->text() != text) m_searchBox->setText(text);
    m_matchLabel->setText(text.trimmed().isEmpty() ? QString() : tr("searching…"));
    m_search->searchInBackground(doc->path(), text);
}

int TimelineView::searchFor(const QString& text) {
    if (m_searchBox->text() != text) m_searchBox->setText(text);
    int count = 0;
    try {
        count = m_search->search(text);
    } catch (const std::exception& e) {
        m_matchLabel->setText(tr("search failed: %1").arg(QString::fromUtf8(e.what())));
        return 0;
    }
    if (count == 0) {
        m_matchLabel->setText(text.isEmpty() ? QString() : tr("no match"));
        return 0;
    }
    goToMatch(m_search->next(std::int64_t(m_canvas->viewport().begin()) - 1));
    return count;
}

int TimelineView::nextMatch() {
    const int row = m_search->next();
    goToMatch(row);
    return row;
}

int TimelineView::previousMatch() {
    const int row = m_search->previous();
    goToMatch(row);
    return row;
}

void TimelineView::goToMatch(int row) {
    if (row < 0 || std::size_t(row) >= m_search->matches().size()) return;
    m_matchLabel->setText(QStringLiteral("%1/%2%3")
                              .arg(row + 1)
                              .arg(m_search->matches().size())
                              .arg(m_search->truncated() ? QStringLiteral("+") : QString()));
    selectSlice(m_search->matches()[std::size_t(row)].sliceId, true);
}

void TimelineView::selectSlice(std::int64_t sliceId, bool reveal) {
    try {
        showSlice(sliceId, reveal);
    } catch (const std::exception& e) {
        m_status->setText(
            tr("Cannot read slice %1: %2").arg(sliceId).arg(QString::fromUtf8(e.what())));
        return;
    }
    selection().select(EntityRef::slice(sliceId), this);
}

std::int64_t TimelineView::taskSliceOf(const EntityRef& ref) const {
    const tracedb::TraceReader& reader = document()->reader();
    const auto first = [&](const std::string& sql) {
        std::int64_t slice = -1;
        reader.query(sql, [&](auto, auto row) {
            if (const auto* id = std::get_if<std::int64_t>(&row[0])) slice = *id;
            return false;
        });
        return slice;
    };
    // A task of the last Exec stage is itself; a block function (a node of a Block stage) leads
    // to its first task: the task whose parent chain, walked up stage by stage, meets it.
    const std::int64_t lastExec = first("SELECT max(id) FROM stage WHERE level = 'exec'");
    const bool isBlock = first(fmt::format("SELECT id FROM stage WHERE id = {} AND level = "
                                           "'block'",
                                           ref.stageId)) >= 0;
    std::int64_t taskId = -1;
    if (ref.stageId == lastExec)
        taskId = first(fmt::format("SELECT id FROM node WHERE stage_id = {} AND id = {} AND kind "
                                   "= 'task'",
                                   ref.stageId, ref.id));
    else if (isBlock && lastExec >= 0)
        taskId = first(fmt::format(
            "WITH RECURSIVE up(task, stage_id, id, steps) AS (SELECT id, stage_id, id, 0 FROM "
            "node WHERE stage_id = {0} AND kind = 'task' UNION ALL SELECT u.task, "
            "st.parent_stage_id, n.parent_id, u.steps + 1 FROM up u JOIN node n ON n.stage_id = "
            "u.stage_id AND n.id = u.id JOIN stage st ON st.id = u.stage_id WHERE n.parent_id IS "
            "NOT NULL AND u.stage_id <> {1} AND u.steps < 64) SELECT task FROM up WHERE stage_id = "
            "{1} AND id = {2} ORDER BY task LIMIT 1",
            lastExec, ref.stageId, ref.id));
    if (taskId < 0) return -1;
    // Every instruction slice of a task carries its task_id (15 k per task of a big run), so
    // the slice_task index alone reads them all to find the one 'task' slice: 0.1 s. A task's
    // slice lies on its core's lane (no pipe lane holds one in a simulated run): the few
    // slices of the tracks that are not pipes are read first, the whole index only when none
    // is there.
    const std::string task = fmt::format("+s.task_id = {} AND s.category = 'task'", taskId);
    const std::int64_t slice =
        first("SELECT s.id FROM track t CROSS JOIN slice s ON s.track_id = t.id WHERE t.kind <> "
              "'pipe' AND " +
              task + " ORDER BY s.ts LIMIT 1");
    if (slice >= 0) return slice;
    return first(fmt::format("SELECT s.id FROM slice s WHERE s.task_id = {} AND s.category = "
                             "'task' ORDER BY s.ts LIMIT 1",
                             taskId));
}

void TimelineView::revealTrack(int track, int depth) {
    for (int up = track >= 0 ? m_tracks->track(track).parent : -1; up >= 0;
         up = m_tracks->track(up).parent)
        m_tracks->setExpanded(up, true);
    m_canvas->scrollToTrack(track, depth);
}

void TimelineView::showSlice(std::int64_t sliceId, bool reveal) {
    const TraceDocument* doc = document();
    if (!doc || !m_links) return;
    m_canvas->setSelectedSlice(sliceId);
    requestDetails(sliceId);
    m_side->setCurrentWidget(m_detailsTable);
    if (reveal) {
        doc->reader().query(
            fmt::format("SELECT ts, dur, track_id, depth FROM slice WHERE id = {}", sliceId),
            [&](auto, auto row) {
                const auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
                auto& vp = m_canvas->viewport();
                if (double(v(0)) < vp.begin() || double(v(0) + v(1)) > vp.end() ||
                    double(v(1)) < vp.cyclesPerPixel())
                    vp.reveal(v(0), v(0) + v(1));
                revealTrack(m_tracks->indexOfTrackId(v(2)), int(v(3)));
                return false;
            });
    }
    updateFlows();
}

void TimelineView::requestDetails(std::int64_t sliceId) {
    ++m_detailsGeneration;
    m_detailsTokens.cancel();
    m_detailsLoading = false;
    const TraceDocument* doc = document();
    if (sliceId < 0 || !doc || !m_linkWorker) {
        m_details->clear();
        return;
    }
    // The provenance chain of a big run's slice takes 0.1–0.5 s to read: never on the GUI
    // thread. The previous slice's details stay until these arrive.
    m_detailsLoading = true;
    m_detailsWatcher->setFuture(QtConcurrent::run(
        &workerPool(), [links = m_linkWorker, sliceId, clockHz = doc->summary().clockHz,
                        generation = m_detailsGeneration, token = m_detailsTokens.next()] {
            return runLoaded<TimelineDetails>(generation, *token, [&] {
                return links->run(*token, [&](WorkerLinks& l) {
                    return TimelineDetailsModel::read(l.reader, l.links, sliceId, clockHz);
                });
            });
        }));
}

void TimelineView::showDetails(const Loaded<TimelineDetails>& loaded) {
    if (loaded.generation != m_detailsGeneration) return;
    m_detailsLoading = false;
    if (!loaded.value) {
        m_details->clear();
        m_status->setText(tr("Cannot read the slice: %1").arg(loaded.error));
        return;
    }
    m_canvas->setHighlightedOp(loaded.value->programOp);
    m_details->setDetails(std::move(*loaded.value));
}

void TimelineView::updateFlows() {
    ++m_flowsGeneration;
    m_flowsTokens.cancel();
    m_flowsLoading = false;
    const bool all = m_allFlows->isChecked();
    const std::int64_t slice = m_canvas->selectedSlice();
    if (!document() || !m_linkWorker || (!all && slice < 0)) {
        m_canvas->setFlows({});
        return;
    }
    // Every flow of a wide range of a big run: a scan of 0.1–0.4 s, never on the GUI thread.
    m_flowsLoading = true;
    const auto& vp = m_canvas->viewport();
    m_flowsWatcher->setFuture(QtConcurrent::run(
        &workerPool(), [links = m_linkWorker, all, slice, t0 = std::int64_t(vp.begin()),
                        t1 = std::int64_t(vp.end()) + 1, generation = m_flowsGeneration,
                        token = m_flowsTokens.next()] {
            return runLoaded<std::vector<TimelineFlow>>(generation, *token, [&] {
                return links->run(*token, [&](WorkerLinks& l) {
                    return all ? flowsIn(l.reader, t0, t1) : flowsOfSlice(l.reader, slice);
                });
            });
        }));
}

void TimelineView::showFlows(const Loaded<std::vector<TimelineFlow>>& loaded) {
    if (loaded.generation != m_flowsGeneration) return;
    m_flowsLoading = false;
    if (!loaded.value) {
        m_canvas->setFlows({});
        m_status->setText(tr("Cannot read flows: %1").arg(loaded.error));
        return;
    }
    m_canvas->setFlows(std::move(*loaded.value));
}

void TimelineView::followSelection(const EntityRef& ref, const QObject* origin) {
    if (origin == this || !m_links) return;
    if (m_tracksLoading) {
        m_pendingFollow = ref; // revealed once the tracks arrive
        return;
    }
    try {
        follow(ref);
    } catch (const std::exception& e) {
        m_status->setText(tr("Cannot follow the selection: %1").arg(QString::fromUtf8(e.what())));
    }
}

void TimelineView::follow(const EntityRef& ref) {
    switch (ref.kind) {
    case EntityRef::Kind::Slice:
        showSlice(ref.id, true);
        return;
    case EntityRef::Kind::Node:
        if (const std::int64_t task = taskSliceOf(ref); task >= 0) {
            // A task, or a block function's first task: its slice, on its core's track.
            m_canvas->setHighlightedOp({});
            showSlice(task, true);
            return;
        }
        m_canvas->setSelectedSlice(-1);
        requestDetails(-1); // the details were of a slice no longer selected
        m_canvas->setHighlightedOp(m_links->programOpOfNode(ref.stageId, ref.id));
        return;
    case EntityRef::Kind::Instr:
        m_canvas->setSelectedSlice(-1);
        requestDetails(-1);
        m_canvas->setHighlightedOp(m_links->programOpOfInstr(ref.id));
        return;
    case EntityRef::Kind::Track:
        revealTrack(m_tracks->indexOfTrackId(ref.id));
        return;
    case EntityRef::Kind::None:
        m_canvas->setSelectedSlice(-1);
        m_canvas->setHighlightedOp({});
        return;
    }
}

void TimelineView::showArea(const TimelineArea& area) {
    const TraceDocument* doc = document();
    if (!doc) return;
    // Read on a worker: an area over every track of a large trace reads millions of slices.
    m_aggregate->computeInBackground(
        doc->path(), area,
        std::make_shared<const std::unordered_map<std::int64_t, QString>>(m_names));
    if (!area.isEmpty()) m_side->setCurrentWidget(m_aggregateTable);
}

QMenu* TimelineView::trackMenu(int track) {
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const TimelineTrack& t = m_tracks->track(track);
    menu->addAction(t.pinned ? tr("Unpin") : tr("Pin to the top"), this,
                    [this, track, pinned = t.pinned] { m_tracks->setPinned(track, !pinned); });
    if (!t.children.empty())
        menu->addAction(
            t.expanded ? tr("Collapse") : tr("Expand"), this,
            [this, track, expanded = t.expanded] { m_tracks->setExpanded(track, !expanded); });
    if (t.kind == TimelineTrackKind::Query) {
        menu->addSeparator();
        menu->addAction(tr("Rename…"), this, [this, track] {
            bool ok = false;
            const QString name =
                QInputDialog::getText(this, tr("Rename track"), tr("Track name:"),
                                      QLineEdit::Normal, m_tracks->track(track).name, &ok);
            if (ok) m_tracks->renameQueryTrack(track, name);
        });
        menu->addAction(tr("Remove"), this, [this, track] { m_tracks->removeQueryTrack(track); });
    }
    return menu;
}

void TimelineView::addQueryTrack(std::shared_ptr<const QueryTrack> track) {
    if (!track) return;
    const int index = m_tracks->addQueryTrack(std::move(track));
    m_canvas->scrollToTrack(index);
}

} // namespace pto::gui
