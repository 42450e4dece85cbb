// The worker thread of the timeline's track tree and summary and their hand-over to the GUI
// thread.
#include "gui/model/TimelineLoader.h"

#include "gui/model/CancelToken.h"
#include "gui/model/WorkerResult.h"
#include "trace_db/TraceReader.h"

#include <QMetaObject>
#include <QPointer>

#include <exception>

namespace pto::gui {

TimelineLoader::TimelineLoader(QObject* parent)
    : QObject(parent), m_build([](const std::filesystem::path& trace, CancelToken& cancel) {
          return buildTimelineLod(trace, cancel);
      }) {}

TimelineLoader::~TimelineLoader() {
    cancel();
}

void TimelineLoader::cancel() {
    cancelAndWait(m_cancel);
    if (m_thread.joinable()) m_thread.join();
    m_busy = false;
    ++m_generation; // a result already queued for delivery is dropped
}

void TimelineLoader::start(const std::filesystem::path& trace) {
    cancel();
    m_result.reset();
    m_tracks = {};
    m_busy = true;
    m_cancel = std::make_shared<CancelToken>();
    const std::uint64_t generation = m_generation;
    QPointer<TimelineLoader> self(this);
    m_thread = std::thread([self, trace, generation, cancel = m_cancel, build = m_build] {
        const FinishGuard finish(*cancel);
        std::shared_ptr<const TimelineLod> lod;
        QString error;
        try {
            auto tracks = std::make_shared<TimelineTrackTree>();
            {
                const auto reader = tracedb::TraceReader::open(trace);
                const auto watch = cancel->watch(reader);
                *tracks = TimelineTrackModel::read(reader);
            }
            cancel->check();
            // The loader joins this thread before it dies, so `self` is alive while queuing.
            QMetaObject::invokeMethod(
                self.data(),
                [self, generation, tracks] {
                    if (self) self->deliverTracks(generation, tracks);
                },
                Qt::QueuedConnection);
            lod = build(trace, *cancel);
        } catch (...) {
            error = currentErrorText();
        }
        if (cancel->cancelled()) return;
        // The loader joins this thread before it dies, so `self` is alive while queuing.
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, lod, error] {
                if (self) self->deliver(generation, lod, error);
            },
            Qt::QueuedConnection);
    });
}

void TimelineLoader::deliverTracks(std::uint64_t generation,
                                   std::shared_ptr<TimelineTrackTree> tracks) {
    if (generation != m_generation) return;
    m_tracks = std::move(*tracks);
    emit tracksLoaded();
}

void TimelineLoader::deliver(std::uint64_t generation, std::shared_ptr<const TimelineLod> lod,
                             const QString& error) {
    if (generation != m_generation) return;
    if (m_thread.joinable()) m_thread.join();
    m_busy = false;
    if (!error.isEmpty() || !lod) {
        emit failed(error.isEmpty() ? QStringLiteral("the timeline summary was cancelled") : error);
        return;
    }
    m_result = std::move(lod);
    emit finished();
}

} // namespace pto::gui
