// Reads everything known about one slice for the timeline's details panel.
#include "gui/model/TimelineDetailsModel.h"

#include "gui/model/PlainText.h"

#include "gui/model/LinkResolver.h"
#include "gui/model/LoopLabel.h"
#include "gui/model/TimelineViewport.h"
#include "profiler/KernelLaunches.h"
#include "profiler/LoopLabels.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <string>
#include <variant>

namespace pto::gui {
namespace {

using Row = std::span<const tracedb::SqlValue>;

QString text(const tracedb::SqlValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return QString::fromStdString(*s);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return QString::number(*i);
    if (const auto* d = std::get_if<double>(&v)) return QString::number(*d, 'g', 8);
    return {};
}

bool isNull(const tracedb::SqlValue& v) {
    return std::holds_alternative<std::monostate>(v);
}

// "1 cycle", "12 cycles (0.007 µs)"; a measured trace's times are ns: "1200 ns (1.200 µs)".
QString timeText(std::int64_t time, double clockHz, bool measured) {
    const QString text = TimelineViewport::timeText(time, measured);
    if (clockHz <= 0) return text;
    return QStringLiteral("%1 (%2 µs)").arg(text).arg(double(time) * 1e6 / clockHz, 0, 'f', 3);
}

// "matmul %c", or the kind alone for a node without a name (a `for`) or named as its kind.
QString kindAndName(const QString& kind, const QString& name) {
    return name.isEmpty() || name == kind ? kind : kind + QLatin1Char(' ') + name;
}

class DetailsBuilder {
public:
    DetailsBuilder(const tracedb::TraceReader& reader, std::vector<DetailRow>& rows)
        : m_reader(reader), m_rows(rows) {}

    void add(const QString& field, const QString& value) {
        if (!value.isEmpty()) m_rows.push_back({field, value});
    }
    template <typename F> void each(const std::string& sql, F&& f) {
        m_reader.query(sql, [&](auto, Row row) {
            f(row);
            return true;
        });
    }

    // The slice itself; returns its instr id (-1 when none).
    std::int64_t slice(std::int64_t id, double clockHz) {
        const bool measured = m_reader.meta("trace_source").value_or("") == "measured";
        std::int64_t instr = -1;
        each(fmt::format("SELECT s.name, s.category, s.track_name, s.ts, s.dur, s.depth, "
                         "s.instr_id, s.task_id, s.arg_set_id, p.name FROM slice_named s "
                         "JOIN track t ON t.id = s.track_id LEFT JOIN track_named p ON "
                         "p.id = t.parent_id WHERE s.id = {}",
                         id),
             [&](Row r) {
                 add(QObject::tr("Slice"), QStringLiteral("%1 (id %2)").arg(text(r[0])).arg(id));
                 add(QObject::tr("Category"), text(r[1]));
                 // A pipe lane is named by its pipe only ("M"): the core it belongs to first.
                 add(QObject::tr("Track"),
                     isNull(r[9]) ? text(r[2])
                                  : QStringLiteral("%1 / %2").arg(text(r[9]), text(r[2])));
                 add(QObject::tr("Start"),
                     timeText(std::get<std::int64_t>(r[3]), clockHz, measured));
                 add(QObject::tr("Duration"),
                     timeText(std::get<std::int64_t>(r[4]), clockHz, measured));
                 add(QObject::tr("Depth"), text(r[5]));
                 if (!isNull(r[6])) instr = std::get<std::int64_t>(r[6]);
                 if (!isNull(r[7])) task(m_task = std::get<std::int64_t>(r[7]));
                 if (!isNull(r[8])) args(std::get<std::int64_t>(r[8]));
             });
        return instr;
    }

    void task(std::int64_t taskId) {
        QString name = QStringLiteral("#%1").arg(taskId);
        each(fmt::format("SELECT n.name FROM node n JOIN stage st ON st.id = n.stage_id AND "
                         "st.level = 'exec' WHERE n.id = {} ORDER BY st.ord DESC LIMIT 1",
                         taskId),
             [&](Row r) { name = QStringLiteral("%1 (#%2)").arg(text(r[0])).arg(taskId); });
        add(QObject::tr("Task"), name);
    }

    void args(std::int64_t argSet) {
        each(fmt::format("SELECT key, int_value, string_value, real_value FROM args WHERE "
                         "arg_set_id = {} ORDER BY rowid",
                         argSet),
             [&](Row r) {
                 const QString key = text(r[0]);
                 const QString value = !isNull(r[1])   ? text(r[1])
                                       : !isNull(r[2]) ? text(r[2])
                                                       : text(r[3]);
                 // A round of a counted loop ("kv, iter 7", "tiles, round 2 of 3"): shown
                 // with the source loop (provenance()).
                 if (key == QStringLiteral("loop")) {
                     m_sliceLoop = value;
                     return;
                 }
                 add(key == QStringLiteral("reason") ? QObject::tr("Stall reason")
                                                     : QObject::tr("Arg %1").arg(key),
                     value);
             });
    }

    // The instruction as the slice's task ran it: a kernel text shared by several tasks holds
    // its first task's GM addresses; another task's are its rebased ones (KernelLaunches.h).
    void instruction(std::int64_t instr) {
        each(fmt::format("SELECT i.opcode, i.pipe, i.operands, i.flags, i.idx, n.name, n.attrs "
                         "FROM instr i LEFT JOIN node n ON n.stage_id = i.stage_id AND "
                         "n.id = i.block_id WHERE i.id = {}",
                         instr),
             [&](Row r) {
                 const auto launches = prof::sharedLaunches(text(r[6]).toStdString());
                 const prof::SharedLaunch* launch = nullptr;
                 for (const prof::SharedLaunch& l : launches)
                     if (l.task == m_task) launch = &l;
                 const std::string written = text(r[2]).toStdString();
                 const std::string ran =
                     launch ? prof::rebasedOperands(written, launch->rebases) : written;
                 add(QObject::tr("Instruction"),
                     QStringLiteral("%1 on %2 (#%3)").arg(text(r[0]), text(r[1])).arg(instr));
                 add(QObject::tr("Operands"), QString::fromStdString(ran));
                 add(QObject::tr("Flags"), text(r[3]));
                 add(QObject::tr("Kernel"),
                     QStringLiteral("%1, instruction %2").arg(text(r[5]), text(r[4])));
                 if (!launch) return;
                 add(QObject::tr("Launch"),
                     QObject::tr("task #%1, one of %2 tasks that run this kernel text; its GM "
                                 "rebases: %3")
                         .arg(m_task)
                         .arg(launches.size())
                         .arg(QString::fromStdString(prof::formatRebases(launch->rebases))));
                 if (ran == written) return;
                 std::int64_t first = launches.front().task; // whose addresses the text holds
                 for (const prof::SharedLaunch& l : launches)
                     if (l.rebases.empty()) {
                         first = l.task;
                         break;
                     }
                 add(QObject::tr("Operands as written"), QObject::tr("%1 (task #%2's addresses)")
                                                             .arg(QString::fromStdString(written))
                                                             .arg(first));
             });
    }

    // instr → tile op → … → tensor op, one row per step, then the source line.
    void provenance(std::int64_t instr, const QStringList& sourceLines) {
        std::string loop;
        std::int64_t loopLine = -1;
        // The two steps (instr → tile op, node → parent) read the tables by their keys; the
        // `provenance` view would be materialised whole (seconds on a 1 M-instruction trace).
        each(fmt::format("WITH RECURSIVE chain(step, kind, stage_id, id) AS ("
                         " SELECT 0, 'instr', i.stage_id, i.id FROM instr i WHERE i.id = {}"
                         " UNION ALL SELECT c.step + 1, 'node', i.tile_stage_id, i.tile_op_id"
                         " FROM chain c JOIN instr i ON c.kind = 'instr' AND i.id = c.id"
                         " WHERE i.tile_op_id IS NOT NULL"
                         " UNION ALL SELECT c.step + 1, 'node', s.parent_stage_id, n.parent_id"
                         " FROM chain c JOIN node n ON c.kind = 'node' AND"
                         " n.stage_id = c.stage_id AND n.id = c.id JOIN stage s ON"
                         " s.id = n.stage_id WHERE n.parent_id IS NOT NULL AND c.step < 64)"
                         " SELECT c.step, st.level, st.name, c.kind, c.id, n.kind, n.name,"
                         " coalesce(n.src_line, i.src_line), n.attrs FROM chain c JOIN stage st ON"
                         " st.id = c.stage_id LEFT JOIN node n ON c.kind = 'node' AND"
                         " n.stage_id = c.stage_id AND n.id = c.id LEFT JOIN instr i ON"
                         " c.kind = 'instr' AND i.id = c.id ORDER BY c.step",
                         instr),
             [&](Row r) {
                 if (text(r[3]) != QStringLiteral("node")) return;
                 add(QObject::tr("Came from (%1)").arg(text(r[1])),
                     QStringLiteral("%1 (node %2 of %3)")
                         .arg(kindAndName(text(r[5]), text(r[6])), text(r[4]), text(r[2])));
                 if (!isNull(r[7])) m_line = std::get<std::int64_t>(r[7]);
                 if (loop.empty() && !isNull(r[8])) {
                     loop = loopLabel(text(r[8]).toStdString());
                     if (!loop.empty() && !isNull(r[7])) loopLine = std::get<std::int64_t>(r[7]);
                 }
             });
        // An op unrolled from a loop keeps the line of the body op it copies, while its parent
        // (the root of the chain) is the loop itself: the body's line is the one to show.
        if (loopLine > 0) m_line = loopLine;
        // The loop the user wrote and its iteration. A round of a counted loop names its own
        // iteration when the loop is the program's (one instruction serves every round); a
        // counted loop the compiler made (tiles, a matmul's K steps or blocks) is no loop of
        // the program, so the iteration comes from the instruction's op (the nearest op of the
        // chain that says so: tile ops carry the attrs of the Tensor op they were expanded
        // from) and the compiler's round follows as "Counted loop".
        const std::string round = m_sliceLoop.toStdString();
        if (!round.empty() && prof::isProgramLoopRound(round, loop)) {
            add(QObject::tr("Loop"), m_sliceLoop);
        } else {
            if (!loop.empty()) add(QObject::tr("Loop"), QString::fromStdString(loop));
            if (!round.empty()) {
                const std::string what = prof::describeCompilerLoopRound(round);
                add(QObject::tr("Counted loop"),
                    what.empty()
                        ? m_sliceLoop
                        : QStringLiteral("%1 — %2").arg(m_sliceLoop, QString::fromStdString(what)));
            }
        }
        if (m_line > 0) {
            QString lineText =
                m_line <= sourceLines.size() ? sourceLines[int(m_line - 1)].trimmed() : QString();
            add(QObject::tr("Source line"), QStringLiteral("%1: %2").arg(m_line).arg(lineText));
        }
    }

    void flows(std::int64_t id) {
        each(
            fmt::format("SELECT f.kind, f.slice_out = {0}, o.name, o.track_name, o.ts + o.dur, "
                        "i.name, i.track_name, i.ts FROM flow f JOIN slice_named o ON "
                        "o.id = f.slice_out JOIN slice_named i ON i.id = f.slice_in "
                        "WHERE f.slice_out = {0} OR f.slice_in = {0} ORDER BY f.id",
                        id),
            [&](Row r) {
                const bool out = std::get<std::int64_t>(r[1]) != 0;
                add(out ? QObject::tr("Flow out (%1)").arg(text(r[0]))
                        : QObject::tr("Flow in (%1)").arg(text(r[0])),
                    out ? QStringLiteral("→ %1 on %2 at %3").arg(text(r[5]), text(r[6]), text(r[7]))
                        : QStringLiteral("← %1 on %2 at %3")
                              .arg(text(r[2]), text(r[3]), text(r[4])));
            });
    }

private:
    const tracedb::TraceReader& m_reader;
    std::vector<DetailRow>& m_rows;
    std::int64_t m_line = -1;
    std::int64_t m_task = -1; // the slice's task, -1 when it has none
    QString m_sliceLoop;      // the slice's `loop` arg, when it ran in a counted loop
};

} // namespace

TimelineDetailsModel::TimelineDetailsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TimelineDetailsModel::clear() {
    beginResetModel();
    m_sliceId = -1;
    m_tensorOp = -1;
    m_rows.clear();
    endResetModel();
}

TimelineDetails TimelineDetailsModel::read(const tracedb::TraceReader& reader, LinkResolver& links,
                                           std::int64_t sliceId, double clockHz) {
    TimelineDetails details;
    details.sliceId = sliceId;
    if (sliceId < 0) return details;
    DetailsBuilder builder(reader, details.rows);
    const std::int64_t instr = builder.slice(sliceId, clockHz);
    if (instr >= 0) {
        builder.instruction(instr);
        details.tensorOp = links.tensorOpOfInstr(instr);
        const QStringList lines = QString::fromStdString(reader.meta("program_text").value_or(""))
                                      .split(QLatin1Char('\n'));
        builder.provenance(instr, lines);
        // The op the user wrote, named as `pto export --format csv` names it (tensor_op): a
        // copy of an unrolled loop's body is the body op it copies, not the loop.
        details.programOp = links.programOpOfInstr(instr);
        if (details.programOp.valid()) {
            const QString op = QString::fromStdString(links.opText(details.programOp));
            builder.add(
                tr("Tensor op"),
                details.programOp.stageId == links.rootStage()
                    ? tr("%1 (node %2 of the parsed program)").arg(op).arg(details.programOp.id)
                    : tr("%1 (an op of a loop's body: node %2 of stage %3, its first "
                         "iteration's copy)")
                          .arg(op)
                          .arg(details.programOp.id)
                          .arg(details.programOp.stageId));
        }
    }
    builder.flows(sliceId);
    return details;
}

void TimelineDetailsModel::show(const tracedb::TraceReader& reader, LinkResolver& links,
                                std::int64_t sliceId, double clockHz) {
    setDetails(read(reader, links, sliceId, clockHz));
}

void TimelineDetailsModel::setDetails(TimelineDetails details) {
    beginResetModel();
    m_sliceId = details.sliceId;
    m_tensorOp = details.tensorOp;
    m_rows = std::move(details.rows);
    endResetModel();
}

QString TimelineDetailsModel::value(const QString& field) const {
    for (const DetailRow& row : m_rows)
        if (row.field == field) return row.value;
    return {};
}

int TimelineDetailsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TimelineDetailsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimelineDetailsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const DetailRow& row = m_rows[std::size_t(index.row())];
    const QString& text = index.column() == FieldColumn ? row.field : row.value;
    return role == Qt::ToolTipRole ? plainToolTip(text) : text;
}

QVariant TimelineDetailsModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == FieldColumn ? tr("Field") : tr("Value");
}

} // namespace pto::gui
