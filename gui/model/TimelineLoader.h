// Runs buildTimelineLod on a worker thread and hands the result to the GUI thread.
#pragma once

#include "gui/model/TimelineLod.h"

#include <QObject>
#include <QString>

#include <filesystem>
#include <memory>
#include <thread>

namespace pto::gui {

class CancelToken;

/// One build at a time: start() cancels and joins the previous one (cancelling interrupts its
/// SQLite statements, so that takes milliseconds even on a hostile file). The result arrives
/// through finished() on the loader's thread (queued), or failed() with the reason.
class TimelineLoader : public QObject {
    Q_OBJECT
public:
    explicit TimelineLoader(QObject* parent = nullptr);
    ~TimelineLoader() override;

    void start(const std::filesystem::path& trace);
    void cancel();
    bool busy() const { return m_busy; }
    const std::shared_ptr<const TimelineLod>& result() const { return m_result; }

signals:
    void finished();
    void failed(const QString& reason);

private:
    void deliver(std::uint64_t generation, std::shared_ptr<const TimelineLod> lod,
                 const QString& error);

    std::thread m_thread;
    std::shared_ptr<CancelToken> m_cancel;
    std::uint64_t m_generation = 0;
    bool m_busy = false;
    std::shared_ptr<const TimelineLod> m_result;
};

} // namespace pto::gui
