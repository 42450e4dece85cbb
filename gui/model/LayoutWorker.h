// Lays out graphs on the one thread that owns Graphviz: jobs are queued, superseded jobs
// dropped, results of cancelled jobs discarded, layouts cached; the UI thread never waits.
#pragma once

#include "gui/model/LayoutTypes.h"

#include <QObject>

#include <filesystem>
#include <memory>

namespace pto::gui {

struct LayoutClientState;

/// The UI side of the layout thread, one per view. All LayoutWorkers share one thread and its
/// Graphviz context (libgvc is not thread-safe). A worker has at most one job in flight: a
/// new submit() drops the pending one and discards the result of the running one.
/// Signals arrive on the worker's (UI) thread.
class LayoutWorker : public QObject {
    Q_OBJECT
public:
    explicit LayoutWorker(QObject* parent = nullptr);
    ~LayoutWorker() override;

    /// Layouts of this trace are cached in its sidecar (LayoutCache); empty: memory only.
    void setTrace(const std::filesystem::path& trace);
    /// Queues `job`; returns its id (ids increase).
    quint64 submit(LayoutJob job);
    /// Drops the pending job and discards the running one's result.
    void cancel();
    /// A job is queued or running whose result is still wanted.
    bool isBusy() const { return m_active != 0; }
    quint64 activeJob() const { return m_active; }

signals:
    void progress(quint64 job, const QString& phase);
    void finished(quint64 job, std::shared_ptr<const pto::gui::LayoutResult> result);
    /// The job was superseded or cancelled: no result will come.
    void dropped(quint64 job);

private:
    friend class LayoutThread;
    void deliver(quint64 job, std::shared_ptr<const LayoutResult> result);
    void drop(quint64 job);

    std::shared_ptr<LayoutClientState> m_state;
    std::filesystem::path m_trace;
    quint64 m_active = 0;
};

} // namespace pto::gui
