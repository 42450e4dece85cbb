// Reads the timeline's track tree, then runs buildTimelineLod, on a worker thread and hands both
// to the GUI thread.
#pragma once

#include "gui/model/TimelineLod.h"
#include "gui/model/TimelineTrackModel.h"

#include <QObject>
#include <QString>

#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

namespace pto::gui {

class CancelToken;

/// One build at a time: start() cancels and joins the previous one (cancelling interrupts its
/// SQLite statements, so that takes milliseconds even on a hostile file). The track tree comes
/// first, through tracksLoaded() (the counter extents of a big run are a GROUP BY over 200 k
/// samples: 60–200 ms, too long for the GUI thread); the summary then arrives through
/// finished() on the loader's thread (queued), or failed() with the reason. busy() holds from
/// start() until finished() or failed().
class TimelineLoader : public QObject {
    Q_OBJECT
public:
    /// How the summary is built once the tracks are read: buildTimelineLod, or what a test
    /// puts in its place (a slow build, to check who waits for it).
    using Build = std::function<std::shared_ptr<const TimelineLod>(const std::filesystem::path&,
                                                                   CancelToken&)>;

    explicit TimelineLoader(QObject* parent = nullptr);
    ~TimelineLoader() override;

    /// Used by the next start().
    void setBuild(Build build) { m_build = std::move(build); }

    void start(const std::filesystem::path& trace);
    void cancel();
    bool busy() const { return m_busy; }
    const std::shared_ptr<const TimelineLod>& result() const { return m_result; }
    /// The tree tracksLoaded() announced (taken once by the view).
    TimelineTrackTree takeTracks() { return std::move(m_tracks); }

signals:
    /// The track tree of the trace being loaded is ready (before finished()).
    void tracksLoaded();
    void finished();
    void failed(const QString& reason);

private:
    void deliver(std::uint64_t generation, std::shared_ptr<const TimelineLod> lod,
                 const QString& error);
    void deliverTracks(std::uint64_t generation, std::shared_ptr<TimelineTrackTree> tracks);

    Build m_build;
    std::thread m_thread;
    std::shared_ptr<CancelToken> m_cancel;
    std::uint64_t m_generation = 0;
    bool m_busy = false;
    std::shared_ptr<const TimelineLod> m_result;
    TimelineTrackTree m_tracks;
};

} // namespace pto::gui
