// Loads a simulated run from a trace file into the plain structs the analyses work on.
#include "profiler/RunModel.h"

#include "base/TripCount.h"
#include "profiler/CompileNotes.h"
#include "profiler/DictCells.h"
#include "profiler/InstrCost.h"
#include "profiler/KernelLaunches.h"
#include "profiler/LoopLabels.h"
#include "profiler/MeasuredRun.h"
#include "profiler/Provenance.h"
#include "profiler/RunClock.h"
#include "profiler/RunPresence.h"
#include "profiler/SqlRows.h"
#include "profiler/UsableSlices.h"
#include "profiler/analyses/TaskChains.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace pto::prof {
namespace {

constexpr std::array<std::string_view, kPipeCount> kPipeNames{"S", "MTE1", "MTE2", "MTE3",
                                                              "M", "FIX",  "V"};

void loadMeta(const tracedb::TraceReader& reader, RunModel& m) {
    m.peaks = parseArchPeaks(reader.meta("arch_config").value_or(""));
    m.peaks.clockHz = runClockHz(reader, m.peaks);
    if (auto traffic = parseMeasuredTraffic(reader.meta("sim_memory").value_or("")))
        applyMeasuredTraffic(m.peaks, *traffic);
    m.traceLevel = reader.meta("trace_level").value_or("");
    m.simFault = reader.meta("sim_fault").value_or("");
    m.compileNotes = notesFromJson(reader.meta("compile_notes").value_or(""));
    m.program = reader.meta("entry").value_or("");
    m.totalCycles = std::atoll(reader.meta("sim_total_cycles").value_or("0").c_str());
    auto target = nlohmann::json::parse(reader.meta("target").value_or(""), nullptr, false);
    if (target.is_object() && target.contains("double_buffer") &&
        target["double_buffer"].is_boolean())
        m.doubleBuffer = target["double_buffer"].get<bool>();
}

// Cores (by track id) and a map from pipe track id to (core index, pipe).
struct TrackIndex {
    std::unordered_map<std::int64_t, int> coreOfTrack;
    std::unordered_map<std::int64_t, std::pair<int, PipeId>> pipeOfTrack;
};

TrackIndex loadCores(const tracedb::TraceReader& reader, RunModel& m) {
    TrackIndex index;
    auto tracks = reader.tracks();
    for (const tracedb::TrackRow& t : tracks) {
        if (t.kind != tracedb::TrackKind::Core) continue;
        index.coreOfTrack[t.id] = int(m.cores.size());
        CoreInfo core;
        core.trackId = t.id;
        core.type = t.coreType;
        core.index = t.coreId.value_or(0);
        core.name =
            reader.stringOf(t.nameId).value_or(fmt::format("{} {}", t.coreType, core.index));
        m.cores.push_back(std::move(core));
    }
    for (const tracedb::TrackRow& t : tracks) {
        if (t.kind != tracedb::TrackKind::Pipe || !t.parentId) continue;
        auto core = index.coreOfTrack.find(*t.parentId);
        auto pipe = parsePipeId(t.pipe);
        if (core != index.coreOfTrack.end() && pipe)
            index.pipeOfTrack[t.id] = {core->second, *pipe};
    }
    return index;
}

// Kernels shared by several tasks (docs/TRACE_SCHEMA.md, node attrs of the PTO stage's
// kernels): a listed task runs that kernel, not the kernel of its Exec-level block; every task
// did the work of its own block function (-1 when the trace cannot tell).
void loadLaunches(const tracedb::TraceReader& reader, RunModel& m) {
    const KernelLaunches launches = KernelLaunches::load(reader);
    for (TaskRun& t : m.tasks) {
        if (const std::int64_t k = launches.sharedKernelOf(t.id); k >= 0) t.kernel = k;
        t.block = launches.blockOf(t.id, t.kernel);
        t.textBlock = launches.blockOfKernel(t.kernel);
    }
}

void loadExecGraph(const tracedb::TraceReader& reader, RunModel& m) {
    for (const tracedb::StageRow& s : reader.stages()) {
        if (s.level == tracedb::StageLevel::Exec) m.execStageId = s.id;
        if (!s.parentStageId && m.rootStageId < 0) m.rootStageId = s.id;
    }
    if (m.execStageId < 0) return;
    for (const tracedb::NodeRow& n : reader.nodes(m.execStageId)) {
        if (n.kind != "task") continue;
        TaskRun t;
        t.id = n.id;
        t.name = n.name;
        t.coreType = n.core;
        std::transform(t.coreType.begin(), t.coreType.end(), t.coreType.begin(), ::toupper);
        t.kernel = n.parentId.value_or(n.id);
        m.tasks.push_back(std::move(t));
    }
    std::sort(m.tasks.begin(), m.tasks.end(), [](auto& a, auto& b) { return a.id < b.id; });
    for (const tracedb::EdgeRow& e : reader.edges(m.execStageId)) m.deps.emplace_back(e.src, e.dst);
}

// The task `id` of the Exec stage; a task it does not name (a hand-written PTO program, a
// replica of a probed cluster) is added under its slice's name, the timeline's ("task 143"
// named in findings could not be found there), else "task ID".
TaskRun& taskFor(RunModel& m, std::int64_t id, const std::string& sliceName = {}) {
    auto it = std::lower_bound(m.tasks.begin(), m.tasks.end(), id,
                               [](const TaskRun& t, std::int64_t v) { return t.id < v; });
    if (it != m.tasks.end() && it->id == id) return *it;
    TaskRun t;
    t.id = id;
    t.name = sliceName.empty() ? fmt::format("task {}", id) : sliceName;
    t.kernel = id;
    return *m.tasks.insert(it, std::move(t));
}

void loadTaskSlices(const tracedb::TraceReader& reader, const TrackIndex& index,
                    UsableSlices& usable, RunModel& m) {
    forEachRow(reader,
               fmt::format("SELECT task_id, ts, dur, track_id, {}, (SELECT str FROM string WHERE "
                           "id = name_id) FROM slice WHERE category = 'task' AND task_id IS NOT "
                           "NULL ORDER BY ts",
                           usable.verdict()),
               [&](auto row) {
                   if (const std::int64_t verdict = cellInt(row[4]); verdict != 0)
                       return usable.setAside(verdict);
                   auto core = index.coreOfTrack.find(cellInt(row[3]));
                   if (core == index.coreOfTrack.end()) return;
                   TaskRun& t = taskFor(m, cellInt(row[0]), cellText(row[5]));
                   t.core = core->second;
                   t.coreType = m.cores[std::size_t(core->second)].type;
                   t.start = cellInt(row[1]);
                   t.end = t.start + cellInt(row[2]);
                   if (t.dispatch < 0) t.dispatch = t.start;
               });
}

// The instruction slices set aside are counted here (a slice without a task, which no figure
// of a task counts, is only left out of the op and line figures). The slices are summed as they
// stream, per task and track: a GROUP BY sorted every instruction slice (3.5 s of 7.1 M).
void loadPipeBusy(const tracedb::TraceReader& reader, const TrackIndex& index, UsableSlices& usable,
                  RunModel& m) {
    std::map<std::pair<std::int64_t, std::int64_t>, CellSum> busy; // (task, track)
    forEachRow(reader,
               fmt::format("SELECT task_id, track_id, dur, {} FROM slice WHERE category = 'instr' "
                           "AND task_id IS NOT NULL",
                           usable.verdict()),
               [&](auto row) {
                   if (const std::int64_t verdict = cellInt(row[3]); verdict != 0)
                       return usable.setAside(verdict);
                   busy[{cellInt(row[0]), cellInt(row[1])}].add(row[2]);
               });
    for (const auto& [key, cycles] : busy) {
        auto pipe = index.pipeOfTrack.find(key.second);
        if (pipe == index.pipeOfTrack.end()) continue;
        m.hasInstrSlices = true;
        taskFor(m, key.first).busy[std::size_t(pipe->second.second)] += cycles.value();
    }
}

void loadWaits(const tracedb::TraceReader& reader, UsableSlices& usable, RunModel& m) {
    forEachRow(reader,
               fmt::format("SELECT task_id, reason, sum(dur * (v = 0)), min(ts), v, count(*) "
                           "FROM (SELECT s.task_id, a.string_value AS reason, s.dur, s.ts, {} "
                           "AS v FROM slice s LEFT JOIN args a ON a.arg_set_id = s.arg_set_id AND "
                           "a.key = 'reason' WHERE s.category IN ('wait', 'stall') AND "
                           "s.task_id IS NOT NULL) GROUP BY task_id, reason, v",
                           usable.verdict("s")),
               [&](auto row) {
                   if (const std::int64_t verdict = cellInt(row[4]); verdict != 0)
                       return usable.setAside(verdict, cellInt(row[5]));
                   TaskRun& t = taskFor(m, cellInt(row[0]));
                   std::string reason = cellText(row[1]);
                   std::int64_t cycles = cellInt(row[2]);
                   if (reason == "flag")
                       t.waits.flag += cycles;
                   else if (reason == "barrier")
                       t.waits.barrier += cycles;
                   else if (reason == "cross_flag")
                       t.waits.crossFlag += cycles;
                   else if (reason == "dispatch") {
                       t.waits.dispatch += cycles;
                       t.dispatch = cellInt(row[3]);
                   } else if (reason.find("bandwidth") != std::string::npos)
                       t.waits.bandwidth += cycles;
               });
}

// Per instruction: its cost and the Tensor op it came from.
struct InstrInfo {
    std::int64_t kernel = -1;
    std::int64_t srcLine = 0;
    int tensorOp = -1; // index into RunModel::tensorOps
    PipeId pipe = PipeId::S;
    double flops = 0;
    double nominalFlops = 0;
    std::int64_t gmBytes = 0;
    std::int64_t gmWriteBytes = 0;
    std::int64_t tileStage = -1, tileOp = -1; // provenance: the Tile op it was emitted for
    bool sync = false;                        // a flag or barrier: it waits, it does no work
};

// A `for` op's name and static trip count, from its attrs ({"lower":0,"upper":4,"step":1,
// "name":"kv"}); unnamed loops are "for@LINE:COL", as unroll-loops labels them.
void describeLoop(const tracedb::NodeRow& n, TensorOpCost& op) {
    const auto attrs = nlohmann::json::parse(n.attrs, nullptr, false);
    auto integer = [&](const char* key) -> std::optional<std::int64_t> {
        if (!attrs.is_object() || !attrs.contains(key) || !attrs[key].is_number_integer())
            return std::nullopt;
        return attrs[key].get<std::int64_t>();
    };
    if (attrs.is_object() && attrs.contains("name") && attrs["name"].is_string())
        op.loopName = attrs["name"].get<std::string>();
    else
        op.loopName = fmt::format("for@{}:{}", op.srcLine, op.srcCol);
    const auto lower = integer("lower"), upper = integer("upper"), step = integer("step");
    if (lower && upper && step && *step > 0 && *upper > *lower)
        op.iterations = tripCount(*lower, *upper, *step);
}

void loadTensorOps(const tracedb::TraceReader& reader, RunModel& m,
                   std::unordered_map<std::int64_t, int>& indexOfOp) {
    if (m.rootStageId < 0) return;
    for (const tracedb::NodeRow& n : reader.nodes(m.rootStageId)) {
        if (n.kind == "arg" || n.kind == "return" || n.id < 0) continue;
        indexOfOp[n.id] = int(m.tensorOps.size());
        TensorOpCost op;
        op.id = n.id;
        op.stageId = m.rootStageId;
        op.kind = n.kind;
        op.name = n.name;
        op.srcLine = n.srcLine.value_or(0);
        op.srcCol = n.srcCol.value_or(0);
        if (op.kind == "for") describeLoop(n, op);
        m.tensorOps.push_back(std::move(op));
    }
}

// The entries of loop body ops (TensorOpCost::loop), one per loop, kind and source position,
// made as the instructions' provenance meets the copies of each.
class LoopBodyOps {
public:
    LoopBodyOps(const tracedb::TraceReader& reader, RunModel& m) : m_reader(reader), m_m(m) {}

    // The entry of the body op whose copy is `node`, an op of the body of loop `loop` (an
    // index into tensorOps).
    int entryOf(const NodeRef& node, int loop) {
        if (auto it = m_ofNode.find(node); it != m_ofNode.end()) return it->second;
        TensorOpCost op;
        op.id = node.id;
        op.stageId = node.stageId;
        op.loop = loop;
        std::string attrs;
        forEachRow(m_reader,
                   fmt::format("SELECT kind, name, src_line, src_col, attrs FROM node WHERE "
                               "stage_id = {} AND id = {}",
                               node.stageId, node.id),
                   [&](auto row) {
                       op.kind = cellText(row[0]);
                       op.name = cellText(row[1]);
                       op.srcLine = cellInt(row[2]);
                       op.srcCol = cellInt(row[3]);
                       attrs = cellText(row[4]);
                   });
        op.loopName = loopNameOfAttrs(attrs);
        if (op.loopName.empty()) op.loopName = m_m.tensorOps[std::size_t(loop)].loopName;
        // Without a source position the name tells body ops of one line apart.
        Key key{loop, op.kind, op.srcLine, op.srcCol,
                op.srcLine > 0 && op.srcCol > 0 ? std::string() : op.name};
        auto [it, fresh] = m_ofKey.try_emplace(std::move(key), int(m_m.tensorOps.size()));
        if (fresh) {
            ++m_m.tensorOps[std::size_t(loop)].bodyOps;
            m_m.tensorOps.push_back(std::move(op));
        } else {
            // The copy with the lowest id (the first iteration's) names the entry, whichever
            // instruction met a copy first.
            TensorOpCost& entry = m_m.tensorOps[std::size_t(it->second)];
            if (node.stageId == entry.stageId && node.id < entry.id) {
                entry.id = node.id;
                entry.name = op.name;
            }
        }
        m_ofNode.emplace(node, it->second);
        return it->second;
    }

private:
    using Key = std::tuple<int, std::string, std::int64_t, std::int64_t, std::string>;
    struct NodeLess {
        bool operator()(const NodeRef& a, const NodeRef& b) const {
            return std::pair(a.stageId, a.id) < std::pair(b.stageId, b.id);
        }
    };
    const tracedb::TraceReader& m_reader;
    RunModel& m_m;
    std::map<NodeRef, int, NodeLess> m_ofNode;
    std::map<Key, int> m_ofKey;
};

std::unordered_map<std::int64_t, InstrInfo> loadInstrs(const tracedb::TraceReader& reader,
                                                       RunModel& m) {
    std::unordered_map<std::int64_t, int> indexOfOp;
    loadTensorOps(reader, m, indexOfOp);
    ProvenanceResolver provenance(reader);
    if (const auto& looped = provenance.cyclicStages(); !looped.empty()) {
        constexpr std::size_t kListed = 5;
        std::vector<std::int64_t> listed(looped.begin(),
                                         looped.begin() + std::min(looped.size(), kListed));
        m.fileWarnings.push_back(fmt::format(
            "the parent_stage_id of {} stage{} ({}{}) closes a loop of stages; provenance "
            "through {} is ignored",
            looped.size(), looped.size() == 1 ? "" : "s", fmt::join(listed, ", "),
            looped.size() > kListed ? ", …" : "", looped.size() == 1 ? "it" : "them"));
    }
    std::unordered_map<std::int64_t, int> opOfLine; // lines with exactly one Tensor op
    for (std::size_t i = 0; i < m.tensorOps.size(); ++i) {
        std::int64_t line = m.tensorOps[i].srcLine;
        if (line <= 0 || m.tensorOps[i].isDirective()) continue;
        auto [it, fresh] = opOfLine.emplace(line, int(i));
        if (!fresh) it->second = -1;
    }
    std::erase_if(opOfLine, [](const auto& entry) { return entry.second < 0; });
    LoopBodyOps bodyOps(reader, m);
    std::unordered_map<std::int64_t, InstrInfo> instrs;
    struct KernelCost {
        double flops = 0, nominalFlops = 0;
        std::int64_t gmBytes = 0, gmWriteBytes = 0;
    };
    std::unordered_map<std::int64_t, KernelCost> kernels;
    // Schema-1 files have no cost columns: their instructions cost nothing. Schema 4 keeps the
    // text in dict: the ids are read and looked up in memory, not through the view per row.
    const bool compact = keepsTextInDict(reader);
    const std::string costs = compact                       ? "flops, gm_bytes, src_dtype_dict"
                              : reader.schemaVersion() >= 2 ? "flops, gm_bytes, src_dtype"
                                                            : "NULL, NULL, NULL";
    auto text = [&](const tracedb::SqlValue& cell) { return dictCellText(reader, compact, cell); };
    forEachRow(
        reader,
        std::string("SELECT id, block_id, ") +
            (compact ? "pipe_dict, opcode_dict, " : "pipe, opcode, ") + costs +
            ", tile_op_id, tile_stage_id, src_line FROM " + (compact ? "instr_data" : "instr"),
        [&](auto row) {
            InstrInfo info;
            info.kernel = cellInt(row[1]);
            info.pipe = parsePipeId(text(row[2])).value_or(PipeId::S);
            const std::string opcode = text(row[3]);
            InstrCost cost = instrCost(
                opcode, cellNull(row[4]) ? std::nullopt : std::optional(cellReal(row[4])),
                cellNull(row[5]) ? std::nullopt : std::optional(cellInt(row[5])), text(row[6]));
            info.flops = cost.flops;
            info.nominalFlops = cost.nominalFlops();
            info.gmBytes = cost.gmBytes;
            info.gmWriteBytes = cost.gmWriteBytes();
            info.srcLine = cellInt(row[9]);
            info.sync = cost.sync;
            m.opcodes.insert(opcode);
            if (!cellNull(row[7]) && !cellNull(row[8])) {
                const std::int64_t stage = cellInt(row[8]), tileOp = cellInt(row[7]);
                info.tileStage = stage;
                info.tileOp = tileOp;
                std::int64_t root = provenance.rootOf(stage, tileOp);
                if (auto it = indexOfOp.find(root); it != indexOfOp.end())
                    info.tensorOp = it->second;
                // An op of an unrolled loop's body: its own entry, not the loop's.
                if (info.tensorOp >= 0 && m.tensorOps[std::size_t(info.tensorOp)].kind == "for")
                    if (const auto body = provenance.loopBodyOf(stage, tileOp))
                        info.tensorOp = bodyOps.entryOf(*body, info.tensorOp);
            }
            // Provenance breaks where the compiler recorded a big stage only as a row
            // (its nodes omitted): fall back to the only Tensor op on the source line.
            if (info.tensorOp < 0)
                if (auto it = opOfLine.find(info.srcLine); it != opOfLine.end())
                    info.tensorOp = it->second;
            KernelCost& k = kernels[info.kernel];
            k.flops += info.flops;
            k.nominalFlops += info.nominalFlops;
            k.gmBytes += info.gmBytes;
            k.gmWriteBytes += info.gmWriteBytes;
            instrs.emplace(cellInt(row[0]), info);
        });
    for (TaskRun& t : m.tasks) {
        auto k = kernels.find(t.kernel);
        if (k == kernels.end()) continue;
        t.flops = k->second.flops;
        t.nominalFlops = k->second.nominalFlops;
        t.gmBytes = k->second.gmBytes;
        t.gmWriteBytes = k->second.gmWriteBytes;
    }
    return instrs;
}

// The entries an instruction's cost adds to: its op's and, for a loop body op, its loop's
// (which holds the total of its body); -1 = none.
std::array<int, 2> withLoop(const RunModel& m, int op) {
    return {op, m.tensorOps[std::size_t(op)].loop};
}

// Returns the executed cycles of every Tile op's work instructions per kernel
// (analyses/TaskChains.h).
std::vector<TileOpCycles> attribute(const tracedb::TraceReader& reader, const UsableSlices& usable,
                                    RunModel& m,
                                    const std::unordered_map<std::int64_t, InstrInfo>& instrs) {
    std::vector<TileOpCycles> tileOps;
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> tasksOfKernel;
    for (const TaskRun& t : m.tasks) tasksOfKernel[t.kernel].push_back(t.id);
    std::unordered_map<int, std::vector<std::int64_t>> kernelsOfOp;
    // GM transfers as executed: an instruction of a counted loop is one instr row but a slice
    // per round (and per task running its kernel).
    std::unordered_map<std::int64_t, std::int64_t> executedTransfers; // kernel -> slices
    // Summed per instruction as the slices stream (a GROUP BY walked the instr_id index and
    // fetched every slice through it), then taken in instruction order.
    struct Executed {
        CellSum cycles;
        std::int64_t first = INT64_MAX, last = INT64_MIN, slices = 0;
    };
    std::unordered_map<std::int64_t, Executed> executed;
    executed.reserve(instrs.size());
    forEachRow(reader,
               fmt::format("SELECT instr_id, dur, ts, ts + dur FROM slice WHERE category = "
                           "'instr' AND instr_id IS NOT NULL AND {}",
                           usable.usable()),
               [&](auto row) {
                   Executed& e = executed[cellInt(row[0])];
                   e.cycles.add(row[1]);
                   e.first = std::min(e.first, cellInt(row[2]));
                   e.last = std::max(e.last, cellInt(row[3]));
                   ++e.slices;
               });
    std::vector<std::pair<std::int64_t, Executed>> byInstr(executed.begin(), executed.end());
    std::sort(byInstr.begin(), byInstr.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [id, e] : byInstr) {
        auto it = instrs.find(id);
        if (it == instrs.end()) continue;
        const InstrInfo& info = it->second;
        const std::int64_t cycles = e.cycles.value();
        if (info.gmBytes > 0) executedTransfers[info.kernel] += e.slices;
        if (info.srcLine > 0) m.lineCycles[info.srcLine] += cycles;
        if (!info.sync && info.tileOp >= 0)
            tileOps.push_back({info.kernel, info.tileStage, info.tileOp, cycles});
        if (info.tensorOp < 0) continue;
        for (int index : withLoop(m, info.tensorOp)) {
            if (index < 0) continue;
            TensorOpCost& op = m.tensorOps[std::size_t(index)];
            op.busy[std::size_t(info.pipe)] += cycles;
            op.first = op.first < 0 ? e.first : std::min(op.first, e.first);
            op.last = std::max(op.last, e.last);
        }
    }
    for (TaskRun& t : m.tasks) {
        auto done = executedTransfers.find(t.kernel);
        auto runs = tasksOfKernel.find(t.kernel);
        if (done != executedTransfers.end() && runs != tasksOfKernel.end())
            t.gmTransfers = done->second / std::int64_t(runs->second.size());
    }
    // Static costs count once per task that runs the instruction's kernel.
    for (const auto& [id, info] : instrs) {
        if (info.tensorOp < 0) continue;
        auto runs = tasksOfKernel.find(info.kernel);
        double times = runs == tasksOfKernel.end() ? 1.0 : double(runs->second.size());
        for (int index : withLoop(m, info.tensorOp)) {
            if (index < 0) continue;
            TensorOpCost& op = m.tensorOps[std::size_t(index)];
            op.flops += info.flops * times;
            op.nominalFlops += info.nominalFlops * times;
            op.gmBytes += std::int64_t(double(info.gmBytes) * times);
            op.gmWriteBytes += std::int64_t(double(info.gmWriteBytes) * times);
            kernelsOfOp[index].push_back(info.kernel);
        }
    }
    for (auto& [opIndex, kernels] : kernelsOfOp) {
        std::sort(kernels.begin(), kernels.end());
        kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
        auto& tasks = m.tensorOps[std::size_t(opIndex)].tasks;
        for (std::int64_t k : kernels)
            if (auto it = tasksOfKernel.find(k); it != tasksOfKernel.end())
                tasks.insert(tasks.end(), it->second.begin(), it->second.end());
        std::sort(tasks.begin(), tasks.end());
    }
    return tileOps;
}

// The uncontended rate of the GM path a transfer on `pipe` of a `coreType` core takes.
double gmPathRate(const ArchPeaks& peaks, std::string_view coreType, PipeId pipe) {
    const bool cube = coreType == "AIC";
    if (pipe == PipeId::MTE2) return cube ? peaks.gmToL1Rate : peaks.gmToUbRate;
    if (pipe == PipeId::FIX) return peaks.l0cToGmRate;
    return cube ? peaks.l1ToGmRate : peaks.ubToGmRate;
}

// The latency one GM transfer slice showed: its duration less its bytes at its path's rate.
double shownLatency(const ArchPeaks& peaks, std::string_view coreType, const InstrInfo& info,
                    double duration, double slices) {
    const double rate = gmPathRate(peaks, coreType, info.pipe);
    const double stream = rate > 0 ? double(info.gmBytes) / std::max(1.0, slices) / rate : 0;
    // max: an edited arch_config with a negative latency must not make clamp's bounds cross.
    return std::clamp(duration - stream, 0.0, std::max(0.0, peaks.hbmLatencyCycles));
}

// An `instr` row's flops and gm_bytes as instrCost reads them (cellReal, cellInt: NULL and text
// are 0, a REAL byte count is truncated), for SQL that picks instructions by their cost.
constexpr std::string_view kFlopsCell =
    "(CASE WHEN typeof(flops) IN ('integer', 'real') THEN flops ELSE 0 END)";
constexpr std::string_view kGmBytesCell = "(CASE typeof(gm_bytes) WHEN 'integer' THEN gm_bytes "
                                          "WHEN 'real' THEN CAST(gm_bytes AS INTEGER) ELSE 0 END)";

// Per task, when its compute runs and which GM transfers come before (the fill) or after it
// (the drain), with the latency they showed: what the rules take for the fixed part of a task
// (analyses/FixedCost). An instruction of a counted loop pools its rounds: its first round's
// slice for the fill, its last one's for the drain, its bytes shared by the task's rounds. Only
// the compute window (one row per task) and the GM-transfer slices are read: grouping every
// slice by task and instruction sorted 7.1 M rows of flash_attention_long (8 of 15 s).
void loadTaskPhases(const tracedb::TraceReader& reader, const UsableSlices& usable, RunModel& m,
                    const std::unordered_map<std::int64_t, InstrInfo>& instrs) {
    if (reader.schemaVersion() < 2) return; // no cost columns: no compute, no GM bytes
    forEachRow(reader,
               fmt::format("SELECT task_id, min(ts), max(ts + dur) FROM slice WHERE category = "
                           "'instr' AND task_id IS NOT NULL AND instr_id IN (SELECT id FROM instr "
                           "WHERE {} > 0) AND {} GROUP BY task_id",
                           kFlopsCell, usable.usable()),
               [&](auto row) {
                   TaskRun& t = taskFor(m, cellInt(row[0]));
                   t.computeStart = cellInt(row[1]);
                   t.computeEnd = cellInt(row[2]);
               });
    // Every GM transfer slice counts for its task and pipe; the first round of a transfer that
    // ends before the task computes and the last one of a transfer that starts after are kept.
    struct Round {
        std::int64_t start = 0, end = 0;
    };
    using Key = std::pair<std::int64_t, std::int64_t>; // (task, instr)
    std::map<Key, Round> fill, drain;
    std::vector<Key> rounds; // one per slice, counted once sorted
    forEachRow(reader,
               fmt::format("SELECT task_id, instr_id, ts, ts + dur FROM slice WHERE category = "
                           "'instr' AND task_id IS NOT NULL AND instr_id IN (SELECT id FROM instr "
                           "WHERE {} > 0) AND {}",
                           kGmBytesCell, usable.usable()),
               [&](auto row) {
                   auto info = instrs.find(cellInt(row[1]));
                   if (info == instrs.end() || info->second.flops > 0) return;
                   TaskRun& t = taskFor(m, cellInt(row[0]));
                   ++t.gmTransfersOnPipe[std::size_t(info->second.pipe)];
                   const Key key{t.id, info->first};
                   rounds.push_back(key);
                   if (t.computeStart < 0) return;
                   const Round r{cellInt(row[2]), cellInt(row[3])};
                   if (r.end <= t.computeStart) {
                       auto [it, fresh] = fill.try_emplace(key, r);
                       if (!fresh && r.start < it->second.start) it->second = r;
                   }
                   if (r.start >= t.computeEnd) {
                       auto [it, fresh] = drain.try_emplace(key, r);
                       if (!fresh && r.start > it->second.start) it->second = r;
                   }
               });
    std::sort(rounds.begin(), rounds.end());
    auto latency = [&](const Key& key, const Round& r, const TaskRun& t) {
        const auto [first, last] = std::equal_range(rounds.begin(), rounds.end(), key);
        return shownLatency(m.peaks, t.coreType, instrs.at(key.second), double(r.end - r.start),
                            double(last - first));
    };
    for (const auto& [key, r] : fill) {
        TaskRun& t = taskFor(m, key.first);
        ++t.fillTransfers;
        t.fillLatency += latency(key, r, t);
    }
    for (const auto& [key, r] : drain) {
        TaskRun& t = taskFor(m, key.first);
        ++t.drainTransfers;
        t.drainLatency += latency(key, r, t);
    }
}

void loadIndexedDmas(const tracedb::TraceReader& reader, const UsableSlices& usable, RunModel& m) {
    forEachRow(reader,
               "SELECT n.str, count(*), sum(s.dur), sum(r.int_value), sum(b.int_value), "
               "sum(e.real_value * b.int_value) FROM slice s "
               "JOIN string n ON n.id = s.name_id AND n.str IN ('MGATHER', 'MSCATTER') "
               "JOIN args r ON r.arg_set_id = s.arg_set_id AND r.key = 'rows' "
               "JOIN args b ON b.arg_set_id = s.arg_set_id AND b.key = 'bytes' "
               "JOIN args e ON e.arg_set_id = s.arg_set_id AND e.key = 'dma_efficiency' "
               "WHERE s.category = 'instr' AND " +
                   usable.usable("s") + " GROUP BY n.str",
               [&](auto row) {
                   RunModel::IndexedDma& d = cellText(row[0]) == "MGATHER" ? m.gathers : m.scatters;
                   d.count = cellInt(row[1]);
                   d.cycles = cellInt(row[2]);
                   d.rows = cellInt(row[3]);
                   d.bytes = cellInt(row[4]);
                   d.efficiency = d.bytes > 0 ? cellReal(row[5]) / double(d.bytes) : 1.0;
               });
}

void loadDoubleBuffering(const tracedb::TraceReader& reader, RunModel& m) {
    forEachRow(reader,
               "SELECT DISTINCT block_id FROM buffer WHERE slot = 1 AND stage_id = "
               "(SELECT id FROM stage WHERE level = 'block' ORDER BY ord DESC LIMIT 1)",
               [&](auto row) { m.doubleBufferedBlocks.push_back(cellInt(row[0])); });
}

[[noreturn]] void failOverflow(const tracedb::TraceReader& reader) {
    throw tracedb::TraceError(fmt::format("trace '{}': its instruction slices' durations add up "
                                          "past 64 bits (integer overflow): the file is damaged",
                                          reader.path().string()));
}

} // namespace

std::string_view pipeIdName(PipeId pipe) {
    return pipe == PipeId::Count ? "?" : kPipeNames[std::size_t(pipe)];
}

std::optional<PipeId> parsePipeId(std::string_view name) {
    for (std::size_t i = 0; i < kPipeCount; ++i)
        if (kPipeNames[i] == name) return PipeId(i);
    return std::nullopt;
}

std::vector<std::size_t> programOrder(const RunModel& model) {
    std::vector<std::vector<std::size_t>> bodies(model.tensorOps.size());
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i)
        if (int loop = model.tensorOps[i].loop; loop >= 0) bodies[std::size_t(loop)].push_back(i);
    std::vector<std::size_t> order;
    order.reserve(model.tensorOps.size());
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i) {
        if (model.tensorOps[i].loop >= 0) continue;
        order.push_back(i);
        auto& body = bodies[i];
        std::sort(body.begin(), body.end(), [&](std::size_t a, std::size_t b) {
            const TensorOpCost &x = model.tensorOps[a], &y = model.tensorOps[b];
            return std::tuple(x.srcLine, x.srcCol, x.id) < std::tuple(y.srcLine, y.srcCol, y.id);
        });
        order.insert(order.end(), body.begin(), body.end());
    }
    return order;
}

std::string opLabel(const TensorOpCost& op) {
    if (op.kind == "for" && op.name.empty() && !op.loopName.empty())
        return fmt::format("for \"{}\"", op.loopName);
    return op.name.empty() ? op.kind : op.kind + " " + op.name;
}

std::int64_t TensorOpCost::cycles() const {
    return std::accumulate(busy.begin(), busy.end(), std::int64_t(0));
}

const TaskRun* RunModel::task(std::int64_t id) const {
    auto it = std::lower_bound(tasks.begin(), tasks.end(), id,
                               [](const TaskRun& t, std::int64_t v) { return t.id < v; });
    return it != tasks.end() && it->id == id ? &*it : nullptr;
}

bool RunModel::executed() const {
    return std::any_of(tasks.begin(), tasks.end(), [](const TaskRun& t) { return t.ran(); });
}

const CoreInfo* RunModel::coreOf(const TaskRun& t) const {
    return t.core >= 0 ? &cores[std::size_t(t.core)] : nullptr;
}

RunModel loadRunModel(const tracedb::TraceReader& reader) {
    RunModel m;
    m.path = reader.path().string();
    loadMeta(reader, m);
    TrackIndex index = loadCores(reader, m);
    if (m.cores.empty()) failNoRun(reader);
    loadExecGraph(reader, m);
    UsableSlices usable(m.totalCycles); // sim_total_cycles, when recorded
    loadTaskSlices(reader, index, usable, m);
    if ((m.measured = isMeasuredTrace(reader))) loadMeasuredKernels(reader, m);
    try {
        loadPipeBusy(reader, index, usable, m);
    } catch (const CellSumOverflow&) {
        failOverflow(reader);
    }
    loadWaits(reader, usable, m);
    loadLaunches(reader, m); // after every task is known: cluster probes' tasks have no Exec node
    auto instrs = loadInstrs(reader, m);
    std::vector<TileOpCycles> tileOps;
    try {
        tileOps = attribute(reader, usable, m, instrs);
    } catch (const CellSumOverflow&) {
        failOverflow(reader);
    }
    if (!m.measured && m.hasInstrSlices) {
        try { // only too_few_tasks's limit needs the Tile graph: a damaged one is read around
            loadTaskChains(reader, tileOps, m);
        } catch (const tracedb::TraceError& e) {
            m.fileWarnings.push_back(fmt::format(
                "the Tile stage's graph could not be read ({}): too_few_tasks does not know "
                "which tasks are loop-carried chains",
                e.what()));
        }
    }
    if (!m.measured) loadTaskPhases(reader, usable, m, instrs);
    loadDoubleBuffering(reader, m);
    loadIndexedDmas(reader, usable, m);
    if (std::string warning = usable.warning(); !warning.empty())
        m.fileWarnings.push_back(std::move(warning));
    if (m.totalCycles <= 0 && !m.measured) // a measured run's time is set from its kernels
        for (const TaskRun& t : m.tasks) m.totalCycles = std::max(m.totalCycles, t.end);
    return m;
}

} // namespace pto::prof
