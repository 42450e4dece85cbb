// Overlay values per node, read from the run's slices, the profiler's analyses, the buffer
// table and validate's diff results, and carried across stages through provenance.
#include "gui/model/GraphOverlay.h"

#include "profiler/DictCells.h"
#include "profiler/KernelLaunches.h"
#include "profiler/Profile.h"
#include "profiler/Provenance.h"
#include "profiler/SqlRows.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellReal;
using Level = tracedb::StageLevel;
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

using ValueMap = std::unordered_map<std::int64_t, double>;

ValueMap sqlMap(const tracedb::TraceReader& reader, const std::string& sql) {
    ValueMap map;
    prof::forEachRow(reader, sql, [&](auto row) {
        if (!prof::cellNull(row[0])) map[cellInt(row[0])] = cellReal(row[1]);
    });
    return map;
}

/// Fills values from a map keyed by node id, by block function, or by the node's root Tensor
/// op. A block function is the node itself at the Block level, a task's parent at the Exec
/// level and the one a kernel text was compiled from at the PTO level (KernelLaunches.h).
enum class KeyBy { Node, Block, Root };

void fill(const tracedb::TraceReader& reader, const GraphStage& stage, const ValueMap& map,
          KeyBy by, std::vector<double>& out) {
    prof::ProvenanceResolver provenance(reader);
    const bool kernels = by == KeyBy::Block && stage.stage.level == Level::Pto;
    const prof::KernelLaunches launches =
        kernels ? prof::KernelLaunches::load(reader) : prof::KernelLaunches{};
    for (std::size_t i = 0; i < stage.nodes.size(); ++i) {
        const GraphNode& n = stage.nodes[i];
        std::int64_t key = n.id;
        if (by == KeyBy::Block && stage.stage.level == Level::Exec)
            key = n.parentId >= 0 ? n.parentId : n.groupId;
        if (kernels) key = launches.blockOfKernel(n.id);
        if (by == KeyBy::Root) key = provenance.rootOf(stage.stage.id, n.id);
        if (auto it = map.find(key); it != map.end()) out[i] = it->second;
    }
}

std::int64_t lastTileStage(const tracedb::TraceReader& reader) {
    auto r = reader.query("SELECT max(tile_stage_id) FROM instr");
    return r.rows.empty() ? -1 : cellInt(r.rows[0][0], -1);
}

/// Instruction cycles per task (Exec), per block function whose work the slice's task did
/// (Block), or per kernel text, every launch of it (PTO). Slices go by their task, not by
/// instr.block_id: a kernel text shared by many tasks is one kernel id (docs/TRACE_SCHEMA.md).
ValueMap cyclesByLaunch(const tracedb::TraceReader& reader, Level level) {
    const bool compact = prof::keepsTextInDict(reader);
    const prof::KernelLaunches launches = prof::KernelLaunches::load(reader);
    ValueMap map;
    prof::forEachRow(
        reader,
        fmt::format("SELECT s.task_id, i.block_id, sum(s.dur) FROM slice s JOIN {} i ON i.id = "
                    "s.instr_id WHERE s.category = 'instr' GROUP BY 1, 2",
                    compact ? "instr_data" : "instr"),
        [&](auto row) {
            const std::int64_t task = prof::cellNull(row[0]) ? -1 : cellInt(row[0]);
            const std::int64_t kernel = cellInt(row[1]);
            std::int64_t key = kernel;
            if (level == Level::Exec) key = task;
            if (level == Level::Block) key = launches.blockOf(task, kernel);
            if (key >= 0) map[key] += cellReal(row[2]);
        });
    return map;
}

void cycles(const tracedb::TraceReader& reader, const GraphStage& stage, GraphOverlay& o) {
    const Level level = stage.stage.level;
    const std::string instrJoin =
        "FROM slice s JOIN instr i ON i.id = s.instr_id WHERE s.category = 'instr'";
    const std::int64_t tile = lastTileStage(reader);
    const auto perTileOp = [&] {
        return sqlMap(reader, fmt::format("SELECT i.tile_op_id, sum(s.dur) {} AND "
                                          "i.tile_stage_id = {} GROUP BY 1",
                                          instrJoin, tile));
    };
    if (level == Level::Tile && stage.stage.id == tile)
        fill(reader, stage, perTileOp(), KeyBy::Node, o.values);
    if (level == Level::Tensor) { // the last Tile stage's op cycles summed per Tensor op
        prof::ProvenanceResolver provenance(reader);
        ValueMap perRoot;
        for (const auto& [op, c] : perTileOp()) perRoot[provenance.rootOf(tile, op)] += c;
        fill(reader, stage, perRoot, KeyBy::Root, o.values);
    }
    if (level == Level::Block || level == Level::Pto || level == Level::Exec)
        fill(reader, stage, cyclesByLaunch(reader, level), KeyBy::Node, o.values);
    // The trace keeps a shared kernel text's instructions once, with its first task's tile ops:
    // those ops carry every launch, the other tasks' own ops none (docs/USER_GUIDE.md).
    if (level == Level::Tile && o.hasValues() && prof::KernelLaunches::load(reader).anyShared())
        o.note = "kernel texts are shared by several tasks: a tile op shows the cycles of every "
                 "task that ran its instructions; the Block and Exec stages show each task's own";
    if (!o.hasValues())
        o.note = level == Level::Tile ? "cycles are attributed to the ops of the last Tile stage "
                                        "(and need a run at trace level instructions or full)"
                                      : "no instruction slices in this trace (run it with "
                                        "--trace instructions)";
}

void bound(const tracedb::TraceReader& reader, const GraphStage& stage, GraphOverlay& o) {
    o.categories = {"compute", "memory", "latency"};
    prof::Profile profile;
    try {
        profile = prof::analyze(prof::loadRunModel(reader));
    } catch (const std::exception& e) {
        o.note = QString::fromStdString(fmt::format("no bound classes: {}", e.what()));
        return;
    }
    ValueMap perKernel, perBlock, perOp, perTask;
    for (std::size_t t = 0; t < profile.model.tasks.size(); ++t) {
        const double cls = double(profile.bound.tasks[t].cls);
        const prof::TaskRun& task = profile.model.tasks[t];
        perTask[task.id] = cls;
        perKernel[task.kernel] = cls;
        if (task.block >= 0) perBlock[task.block] = cls;
    }
    for (std::size_t k = 0; k < profile.model.tensorOps.size(); ++k)
        if (profile.model.tensorOps[k].loop < 0) // ops of the root stage (a loop: its body's)
            perOp[profile.model.tensorOps[k].id] = double(profile.bound.tensorOps[k].cls);
    const Level level = stage.stage.level;
    if (level == Level::Exec)
        fill(reader, stage, perTask, KeyBy::Node, o.values);
    else if (level == Level::Block)
        fill(reader, stage, perBlock, KeyBy::Node, o.values);
    else if (level == Level::Pto)
        fill(reader, stage, perKernel, KeyBy::Node, o.values);
    else
        fill(reader, stage, perOp, KeyBy::Root, o.values);
    if (!o.hasValues()) o.note = "the run's bound classes name no entity of this stage";
}

void buffers(const tracedb::TraceReader& reader, const GraphStage& stage, GraphOverlay& o) {
    const std::string last = "(SELECT max(stage_id) FROM buffer)";
    const Level level = stage.stage.level;
    if (level == Level::Block || level == Level::Pto || level == Level::Exec)
        fill(reader, stage,
             sqlMap(reader, fmt::format("SELECT block_id, sum(size) FROM buffer WHERE stage_id = "
                                        "{} GROUP BY 1",
                                        last)),
             KeyBy::Block, o.values);
    if (level == Level::Tile) {
        // A buffer holds a value of the Tile stage; the node's name is "%<value id>".
        const ValueMap perValue =
            sqlMap(reader, fmt::format("SELECT value_id, max(size) FROM buffer WHERE stage_id = {} "
                                       "GROUP BY 1",
                                       last));
        for (std::size_t i = 0; i < stage.nodes.size(); ++i) {
            const std::string& name = stage.nodes[i].name;
            if (name.size() < 2 || name[0] != '%') continue;
            try {
                auto it = perValue.find(std::stoll(name.substr(1)));
                if (it != perValue.end()) o.values[i] = it->second;
            } catch (const std::exception&) {
            }
        }
    }
    if (!o.hasValues()) o.note = "no on-chip buffers are recorded for this stage's entities";
}

void errors(const tracedb::TraceReader& reader, const GraphStage& stage, GraphOverlay& o) {
    ValueMap perNode, perRoot;
    prof::ProvenanceResolver provenance(reader);
    for (const auto& d : reader.diffs()) {
        if (!d.stageId || !d.nodeId) continue;
        const QJsonObject m =
            QJsonDocument::fromJson(QByteArray::fromStdString(d.metrics)).object();
        const double err =
            m.contains("max_rel") ? m["max_rel"].toDouble() : m["max_abs"].toDouble();
        if (*d.stageId == stage.stage.id) perNode[*d.nodeId] = std::max(perNode[*d.nodeId], err);
        const std::int64_t root = provenance.rootOf(*d.stageId, *d.nodeId);
        perRoot[root] = std::max(perRoot[root], err);
    }
    fill(reader, stage, perNode.empty() ? perRoot : perNode,
         perNode.empty() ? KeyBy::Root : KeyBy::Node, o.values);
    if (!o.hasValues()) o.note = "no diff results for this stage (run pto diff on the trace)";
}

} // namespace

bool GraphOverlay::hasValues() const {
    for (double v : values)
        if (!std::isnan(v)) return true;
    return false;
}

double GraphOverlay::aggregate(const Hierarchy& hierarchy, int index) const {
    const HierarchyItem& item = hierarchy.item(index);
    const auto& order = hierarchy.leafOrder();
    double sum = 0, max = kNone;
    std::map<int, int> votes;
    bool any = false;
    for (int k = item.leafBegin; k < item.leafEnd; ++k) {
        const double v = values[std::size_t(order[std::size_t(k)])];
        if (std::isnan(v)) continue;
        any = true;
        sum += v;
        max = std::isnan(max) ? v : std::max(max, v);
        ++votes[int(v)];
    }
    if (!any) return kNone;
    if (categorical()) {
        auto best = votes.begin();
        for (auto it = votes.begin(); it != votes.end(); ++it)
            if (it->second > best->second) best = it;
        return best->first;
    }
    return kind == OverlayKind::Error ? max : sum;
}

QString overlayName(OverlayKind kind) {
    switch (kind) {
    case OverlayKind::None:
        return QObject::tr("No overlay");
    case OverlayKind::Cycles:
        return QObject::tr("Simulated cycles");
    case OverlayKind::Bound:
        return QObject::tr("Bound class");
    case OverlayKind::Buffer:
        return QObject::tr("Buffer usage");
    case OverlayKind::Error:
        return QObject::tr("Numerical error");
    }
    return {};
}

GraphOverlay computeOverlay(const tracedb::TraceReader& reader, const GraphStage& stage,
                            OverlayKind kind) {
    GraphOverlay o;
    o.kind = kind;
    o.values.assign(stage.nodes.size(), kNone);
    const char* titles[] = {"", "instruction cycles", "bound class", "on-chip buffer bytes",
                            "max relative error"};
    o.title = QString::fromUtf8(titles[int(kind)]);
    try {
        if (kind == OverlayKind::Cycles) cycles(reader, stage, o);
        if (kind == OverlayKind::Bound) bound(reader, stage, o);
        if (kind == OverlayKind::Buffer) buffers(reader, stage, o);
        if (kind == OverlayKind::Error) errors(reader, stage, o);
    } catch (const std::exception& e) {
        o.values.assign(stage.nodes.size(), kNone);
        o.note = QString::fromStdString(fmt::format("overlay unavailable: {}", e.what()));
    }
    return o;
}

} // namespace pto::gui
