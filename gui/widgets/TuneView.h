// The tune view of pto-studio: a tune file of `pto tune` — the candidates as a sortable table,
// cycles per candidate, cycles against on-chip memory with the Pareto front; double-clicking a
// candidate opens its trace (the kept best trace, or a re-run through `pto tune`).
#pragma once

#include "gui/widgets/StudioView.h"

#include <cstdint>

class QLabel;
class QProcess;
class QSortFilterProxyModel;
class QTableView;

namespace pto::gui {

class TuneChart;
class TuneTableModel;

class TuneView : public StudioView {
    Q_OBJECT
public:
    explicit TuneView(StudioContext& context, QWidget* parent = nullptr);
    ~TuneView() override;

    QString viewId() const override { return QStringLiteral("tune"); }
    QString viewTitle() const override { return tr("Tuning"); }

    /// Shows a tune file; returns the reason it cannot be read, empty on success.
    QString openTuneFile(const QString& path);
    /// Asks for candidate `id`'s trace: the kept best trace (meta best_trace) or an earlier
    /// re-run beside the tune file (<stem>.cand-<id>.db) at once, else re-runs it with
    /// `pto tune FILE --candidate ID -o …` and asks when that finishes (traceRequested).
    void openCandidate(int64_t id);
    /// The `pto` binary re-runs use: $PTO_CLI, else beside pto-studio, else the build tree's,
    /// else `pto` on PATH.
    static QString ptoExecutable();

    QTableView* table() const { return m_table; }
    const TuneTableModel& model() const { return *m_model; }
    TuneChart* cyclesChart() const { return m_cycles; }
    TuneChart* paretoChart() const { return m_pareto; }
    QString statusText() const;
    bool rerunning() const;

signals:
    /// Open this trace file (the main window opens it as the current document).
    void traceRequested(const QString& path);

protected:
    void documentChanged() override {}

private:
    void fillCharts();
    void selectCandidate(int64_t id);
    int64_t idAtRow(const QModelIndex& proxyIndex) const;

    QString m_path;
    TuneTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    TuneChart* m_cycles = nullptr;
    TuneChart* m_pareto = nullptr;
    QLabel* m_header = nullptr;
    QLabel* m_status = nullptr;
    QProcess* m_process = nullptr;
};

} // namespace pto::gui
