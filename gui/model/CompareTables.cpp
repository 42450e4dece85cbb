// Rows of the compare view's tables, built from profiler/RunCompare and profiler/SimVsReal.
#include "gui/model/CompareTables.h"

#include "profiler/Profile.h"
#include "profiler/RunCompare.h"
#include "profiler/SimVsReal.h"

#include <cmath>

namespace pto::gui {
namespace {

QString number(double v) {
    return QString::number(static_cast<qint64>(std::llround(v)));
}

/// "+12.5 %", "new", "gone" or "0 %": the change of `d` relative to the baseline a.
QString percent(const prof::Delta& d) {
    if (d.a == 0) return d.b == 0 ? QStringLiteral("0 %") : QStringLiteral("new");
    if (d.b == 0) return QStringLiteral("gone");
    return QStringLiteral("%1%2 %")
        .arg(d.b >= d.a ? QStringLiteral("+") : QString())
        .arg(100 * (d.b - d.a) / d.a, 0, 'f', 1);
}

void deltaCells(TableRow& row, const prof::Delta& d) {
    addCell(row, d.a, number(d.a));
    addCell(row, d.b, number(d.b));
    addCell(row, d.diff(), (d.diff() > 0 ? QStringLiteral("+") : QString()) + number(d.diff()));
    addCell(row, d.a != 0 ? (d.b - d.a) / d.a : (d.b != 0 ? 1e300 : 0.0), percent(d));
}

QString fraction(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 2) : QStringLiteral("-");
}

} // namespace

RowTable opDeltaTable(const prof::RunComparison& c, const prof::Profile& current) {
    RowTable t;
    t.headers = {QObject::tr("Line"),
                 QObject::tr("Op"),
                 QObject::tr("Span baseline"),
                 QObject::tr("Span current"),
                 QObject::tr("Δ span"),
                 QObject::tr("Δ %"),
                 QObject::tr("Instr cycles baseline"),
                 QObject::tr("Instr cycles current"),
                 QObject::tr("Δ instr"),
                 QObject::tr("Δ instr %"),
                 QObject::tr("Bound baseline"),
                 QObject::tr("Bound current")};
    t.headerTips = {QObject::tr("Source line of the Tensor op"),
                    QObject::tr("The Tensor op (kind and result name)"),
                    QObject::tr("First instruction start to last end in the baseline, cycles"),
                    QObject::tr("The same in the open run, cycles"),
                    QObject::tr("Span of the open run minus the baseline's (negative: faster)"),
                    QObject::tr("Δ span relative to the baseline"),
                    QObject::tr("Instruction cycles over all pipes and cores, baseline"),
                    QObject::tr("Instruction cycles over all pipes and cores, open run"),
                    QObject::tr("Instruction cycles of the open run minus the baseline's"),
                    QObject::tr("Δ instr relative to the baseline"),
                    QObject::tr("Bound class of the op in the baseline"),
                    QObject::tr("Bound class of the op in the open run")};
    t.deltaColumns = {{4}, {5}, {8}, {9}};
    for (const prof::OpDelta& d : c.ops) {
        TableRow row;
        addCell(row, qint64(d.line), d.line ? QString::number(d.line) : QString());
        QString name = QString::fromStdString(d.op);
        if (d.onlyInA) name += QObject::tr(" (baseline only)");
        if (d.onlyInB) name += QObject::tr(" (open run only)");
        addCell(row, name, name);
        deltaCells(row, d.span);
        deltaCells(row, d.cycles);
        addCell(row, QString::fromStdString(d.boundA), QString::fromStdString(d.boundA));
        addCell(row, QString::fromStdString(d.boundB), QString::fromStdString(d.boundB));
        if (d.indexB >= 0) {
            const prof::TensorOpCost& op = current.model.tensorOps[std::size_t(d.indexB)];
            row.ref = EntityRef::node(op.stageId, op.id); // a loop body op: its first copy
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

RowTable coreDeltaTable(const prof::RunComparison& c, const prof::Profile& current) {
    RowTable t;
    t.headers = {
        QObject::tr("Core"),          QObject::tr("Busy baseline"), QObject::tr("Busy current"),
        QObject::tr("Δ busy"),        QObject::tr("Δ %"),           QObject::tr("Tasks baseline"),
        QObject::tr("Tasks current"), QObject::tr("Δ tasks"),       QObject::tr("Δ tasks %")};
    t.headerTips = {QObject::tr("Core name"),
                    QObject::tr("Cycles the core spent running tasks in the baseline"),
                    QObject::tr("The same in the open run"),
                    QObject::tr("Busy cycles of the open run minus the baseline's"),
                    QObject::tr("Δ busy relative to the baseline"),
                    QObject::tr("Tasks the core ran in the baseline"),
                    QObject::tr("Tasks the core ran in the open run"),
                    QObject::tr("Tasks of the open run minus the baseline's"),
                    QObject::tr("Δ tasks relative to the baseline")};
    t.deltaColumns = {{3}, {4}, {7}, {8}};
    for (const prof::CoreDelta& d : c.cores) {
        TableRow row;
        const QString core = QString::fromStdString(d.core);
        addCell(row, core, core);
        deltaCells(row, d.busy);
        deltaCells(row, d.tasks);
        for (const prof::CoreInfo& info : current.model.cores)
            if (info.name == d.core) row.ref = EntityRef::track(info.trackId);
        t.rows.push_back(std::move(row));
    }
    return t;
}

RowTable simRealTable(const prof::SimRealComparison& c, const prof::Profile& sim,
                      bool selectSimOps) {
    RowTable t;
    t.headers = {
        QObject::tr("Simulated op"), QObject::tr("Line"),         QObject::tr("Measured kernel"),
        QObject::tr("Type"),         QObject::tr("Matched on"),   QObject::tr("Kernels"),
        QObject::tr("Measured µs"),  QObject::tr("Simulated µs"), QObject::tr("Sim ÷ real")};
    t.headerTips = {QObject::tr("Tensor op of the simulated run (or the whole run)"),
                    QObject::tr("Its source line"),
                    QObject::tr("Most frequent name among the measured kernels paired with it"),
                    QObject::tr("Their op type"),
                    QObject::tr("What the pairing used: type, shapes or name"),
                    QObject::tr("Measured kernels paired (0: none found)"),
                    QObject::tr("Median duration of the measured kernels"),
                    QObject::tr("Simulated span of the op"),
                    QObject::tr("Simulated ÷ measured time (above 1: the simulator is slower)")};
    std::vector<std::size_t> pipes;
    for (std::size_t p = 0; p < prof::kPipeCount; ++p)
        for (const prof::KernelPair& pair : c.pairs)
            if (pair.simPipes[p] || pair.realPipes[p]) {
                pipes.push_back(p);
                const QString name = QString::fromUtf8(prof::pipeIdName(prof::PipeId(p)));
                t.headers << QObject::tr("%1 sim / real").arg(name);
                t.headerTips << QObject::tr("Busy fraction of %1 over the kernel's time, "
                                            "simulated / measured")
                                    .arg(name);
                break;
            }
    t.deltaColumns = {{8, 1.0}};
    for (const prof::KernelPair& p : c.pairs) {
        TableRow row;
        addCell(row, QString::fromStdString(p.simOp), QString::fromStdString(p.simOp));
        addCell(row, qint64(p.line), p.line ? QString::number(p.line) : QString());
        addCell(row, QString::fromStdString(p.realName), QString::fromStdString(p.realName));
        addCell(row, QString::fromStdString(p.realType), QString::fromStdString(p.realType));
        addCell(row, QString::fromStdString(p.matchedOn), QString::fromStdString(p.matchedOn));
        addCell(row, p.realCount, QString::number(p.realCount));
        addCell(row, p.realUs,
                p.realCount ? QString::number(p.realUs, 'f', 2) : QStringLiteral("-"));
        addCell(row, p.simUs, QString::number(p.simUs, 'f', 2));
        addCell(row, p.ratio(),
                p.realCount ? QString::number(p.ratio(), 'f', 2) : QStringLiteral("-"));
        for (std::size_t pipe : pipes)
            addCell(row, p.simPipes[pipe].value_or(-1),
                    fraction(p.simPipes[pipe]) + QStringLiteral(" / ") +
                        fraction(p.realPipes[pipe]));
        if (selectSimOps && p.simOpId >= 0)
            row.ref = EntityRef::node(sim.model.rootStageId, p.simOpId);
        t.rows.push_back(std::move(row));
    }
    return t;
}

} // namespace pto::gui
