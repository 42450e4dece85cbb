// Turns each compile stage into trace_db rows (see docs/TRACE_SCHEMA.md for the node-id rules).
#include "compiler/StageRecorder.h"

#include "compiler/PassRegistry.h"
#include "compiler/RecordText.h"
#include "compiler/ir/Cost.h"
#include "compiler/ir/Placement.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoPrinter.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace pto {
namespace {

using tracedb::BufferRow;
using tracedb::EdgeRow;
using tracedb::InstrDataRow;
using tracedb::NodeDataRow;
using tracedb::StageLevel;
using tracedb::StageRow;

std::string valueName(const Function& f, ValueId v) {
    const std::string& name = f.value(v).name;
    return name.empty() ? fmt::format("%{}", v) : "%" + name;
}

std::string typeLabel(const Type& t) {
    std::string s = fmt::format("{}x{}", t.shape.str(), dtypeName(t.dtype));
    if (t.space != MemSpace::None) s += fmt::format(" {}", memSpaceName(t.space));
    return s;
}

StageLevel levelOf(StageKind kind) {
    return StageLevel(int(kind));
}

// Node ids of a Tensor/Tile stage: ops keep their id; argument i is -(i+1); the return node
// is -(args+1).
int64_t argNodeId(size_t i) {
    return -int64_t(i) - 1;
}

// Big stages go to the writer a chunk of rows at a time: the 6144³ GEMM's million instruction
// rows built at once held ~0.6 GB (docs/PERFORMANCE.md, issue 17). The rows are the same, in
// the same order within each table.
constexpr size_t kRowChunk = 16384;
// Bytes of rows queued for the writer thread at most: the passes wait only when it is this far
// behind. Large enough for a big Tile stage in compact form (the 6144³ GEMM's: ~75 MB), so the
// Block passes run while SQLite inserts it (docs/PERFORMANCE.md, issue 17, session 15).
constexpr size_t kQueuedBytes = size_t(96) << 20;

constexpr int64_t kNone = INT64_MIN;
int64_t packed(std::optional<int64_t> v) {
    return v ? *v : kNone;
}
std::optional<int64_t> unpacked(int64_t v) {
    return v == kNone ? std::nullopt : std::optional<int64_t>(v);
}

// A function stage's edge while it waits in the writer's queue: its label by address in the
// recorder's label cache (a node-based map that only grows: entries never move), 40 bytes
// instead of an EdgeRow's 72 plus its label's heap copy.
struct QueuedEdge {
    using Row = EdgeRow;
    int64_t stageId = 0, src = 0, dst = 0, valueId = 0;
    const std::string* label = nullptr;

    void fill(EdgeRow& row) const {
        row.stageId = stageId;
        row.src = src;
        row.dst = dst;
        row.valueId = valueId;
        row.label = *label;
    }
};

// A function stage's node while it waits in the writer's queue: optional ints as kNone (the
// source position as -1), 136 bytes instead of a NodeDataRow's 264.
struct QueuedNode {
    using Row = NodeDataRow;
    int64_t stageId = 0, id = 0;
    std::string name;
    int64_t kind = kNone, dtype = kNone, shape = kNone, space = kNone, core = kNone, pipe = kNone,
            attrs = kNone, parent = kNone;
    int32_t srcLine = -1, srcCol = -1;

    void fill(NodeDataRow& row) const {
        row.stageId = stageId;
        row.id = id;
        row.name = name;
        row.kindDict = unpacked(kind);
        row.dtypeDict = unpacked(dtype);
        row.shapeDict = unpacked(shape);
        row.spaceDict = unpacked(space);
        row.coreDict = unpacked(core);
        row.pipeDict = unpacked(pipe);
        row.attrsDict = unpacked(attrs);
        row.groupId = std::nullopt;
        row.parentId = unpacked(parent);
        row.srcLine = srcLine < 0 ? std::nullopt : std::optional<int64_t>(srcLine);
        row.srcCol = srcCol < 0 ? std::nullopt : std::optional<int64_t>(srcCol);
    }
};

template <typename T>
concept QueuedForm = requires(const T& q, typename T::Row& row) {
    q.fill(row);
};

// The writer thread's side: a chunk of queued rows turned into the trace_db rows they stand
// for, in rows reused from chunk to chunk (their strings keep their capacity), and inserted
// with addAll (multi-row INSERTs); rows queued as trace_db rows are inserted as they are.
template <QueuedForm Queued>
void insertQueued(tracedb::TraceWriter& writer, std::span<const Queued> queued) {
    thread_local std::vector<typename Queued::Row> rows;
    rows.resize(queued.size());
    for (size_t i = 0; i < queued.size(); ++i) queued[i].fill(rows[i]);
    writer.addAll(std::span<const typename Queued::Row>(rows));
}
template <typename Row> void insertQueued(tracedb::TraceWriter& writer, std::span<const Row> rows) {
    writer.addAll(rows);
}

// The address steps of an instruction outside a counted loop.
constexpr std::array<int64_t, 4> kNoSteps{};

// The tables a compile fills, whose indexes exist before their first row: their rows arrive
// in (nearly) the order of those indexes, so SQLite appends each entry where the last one
// went, which costs less than sorting them all in one CREATE INDEX at the end (gemm_6144:
// 1.4 s of index builds; docs/PERFORMANCE.md, issue 17, session 14).
constexpr std::string_view kIndexedAsInserted[] = {"node_data", "edge", "instr_data"};

} // namespace

StageRecorder::StageRecorder(tracedb::TraceWriter& writer, const TargetInfo& target,
                             RecordLimits limits, RecordThread thread)
    : m_writer(writer), m_target(target), m_limits(limits), m_nextStageId(writer.nextStageId()),
      m_names(writer), m_shapes(writer), m_attrs(writer), m_operands(writer) {
    if (thread == RecordThread::Writer) m_thread.emplace(writer, kQueuedBytes);
    submit([](tracedb::TraceWriter& w) {
        for (std::string_view table : kIndexedAsInserted) w.indexNow(table);
    });
}

void StageRecorder::stagesDone() {
    submit([](tracedb::TraceWriter& w) { w.flushText(); });
}

void StageRecorder::finish() {
    if (m_thread) m_thread->finish();
}

void StageRecorder::submit(tracedb::WriterThread::Job job, size_t bytes) {
    if (m_thread)
        m_thread->push(std::move(job), bytes);
    else
        job(m_writer);
}

template <typename Row> void StageRecorder::send(std::vector<Row>& rows) {
    if (rows.empty()) return;
    const size_t bytes = rows.size() * sizeof(Row);
    submit([rows = std::move(rows)](
               tracedb::TraceWriter& writer) { insertQueued(writer, std::span<const Row>(rows)); },
           bytes);
    rows.clear();
}

template <typename Row> void StageRecorder::sendChunk(std::vector<Row>& rows) {
    if (rows.size() < kRowChunk) return;
    send(rows);
    rows.reserve(kRowChunk); // the next chunk of a big stage
}

bool StageRecorder::isLastOfLevel(const StageEvent& event) const {
    const PassInfo* pass = findPass(event.pass);
    return !pass || isLastPassOfLevel(*pass); // no pass: the parsed program
}

bool StageRecorder::isFinalStage(const StageEvent& event) const {
    // the parsed program (no pass) is the root of provenance; no Tensor pass's stage is kept
    return isLastOfLevel(event) && (event.kind != StageKind::Tensor || !findPass(event.pass));
}

void StageRecorder::onStage(const StageEvent& event) {
    const CompileState& s = event.state;
    const bool isFunction = event.kind == StageKind::Tensor || event.kind == StageKind::Tile;
    if (m_limits.finalStagesOnly && !isFinalStage(event)) {
        if (isFunction)
            m_anchor = anchoredParents(event.kind == StageKind::Tensor ? s.tensor : s.tile);
        return;
    }
    int64_t nodes = 0;
    switch (event.kind) {
    case StageKind::Tensor:
        nodes = int64_t(s.tensor.ops().size());
        break;
    case StageKind::Tile:
        nodes = int64_t(s.tile.ops().size());
        break;
    case StageKind::Block:
        nodes = int64_t(s.block.blocks.size());
        break;
    case StageKind::Exec:
        nodes = int64_t(s.exec.tasks.size());
        break;
    case StageKind::Pto:
        nodes = int64_t(s.pto.kernels.size());
        break;
    }
    StageRow row;
    row.ord = event.ordinal;
    row.name = fmt::format("{}.{}", stageKindName(event.kind), event.pass);
    row.level = levelOf(event.kind);
    row.pass = std::string(event.pass);
    const bool full = nodes <= m_limits.fullStageNodes || isLastOfLevel(event);
    // Ops of a function stage name their parent in the last stage recorded in full; stages
    // skipped in between are composed away (see anchoredParents).
    int64_t parentStage = isFunction ? m_anchorStage : m_prevStage;
    if (parentStage >= 0) row.parentStageId = parentStage;
    row.passMicros = event.micros;
    row.nodeCount = nodes;
    // Below the Tile level the printed text still holds every tile op.
    int64_t printed = event.kind <= StageKind::Tile
                          ? nodes
                          : std::max(nodes, int64_t(s.tileFunction().ops().size()));
    if (printed <= m_limits.irTextNodes) {
        row.irText = printStage(s);
    } else {
        tracedb::StatRow stat{"ir_text_omitted", event.ordinal, tracedb::StatSeverity::Info,
                              printed,
                              fmt::format("stage {} would print {} ops, above the {}-op text "
                                          "limit; print it with pto compile --print-after {}",
                                          row.name, printed, m_limits.irTextNodes, event.pass)};
        submit([stat = std::move(stat)](tracedb::TraceWriter& writer) { writer.add(stat); });
    }
    const int64_t stage = m_nextStageId++;
    row.id = stage;
    const size_t rowBytes = sizeof(row) + row.irText.size();
    submit([row = std::move(row)](tracedb::TraceWriter& writer) { writer.add(row); }, rowBytes);

    if (isFunction) {
        const Function& f = event.kind == StageKind::Tensor ? s.tensor : s.tile;
        std::vector<int64_t> parents = anchoredParents(f);
        if (full) {
            recordFunction(stage, f, parents);
            m_anchor.clear();
            m_anchorStage = stage;
        } else {
            m_anchor = std::move(parents);
        }
    }
    if (full) {
        switch (event.kind) {
        case StageKind::Tensor:
        case StageKind::Tile:
            break;
        case StageKind::Block:
            recordBlocks(stage, s.block,
                         isLastOfLevel(event) ||
                             int64_t(bufferCount(s.block)) <= m_limits.fullStageNodes);
            break;
        case StageKind::Exec:
            recordExec(stage, s.exec);
            break;
        case StageKind::Pto:
            recordPto(stage, s.pto);
            break;
        }
    }
    if (event.kind == StageKind::Tile && full) m_lastTileStage = stage;
    m_prevStage = stage;
}

std::vector<int64_t> StageRecorder::anchoredParents(const Function& f) const {
    std::vector<int64_t> parents(f.ops().size(), kNoParent);
    for (const Op& op : f.ops()) {
        if (op.parent == kNoId) continue;
        if (m_anchor.empty())
            parents[op.id] = op.parent;
        else if (op.parent < m_anchor.size())
            parents[op.id] = m_anchor[op.parent];
    }
    return parents;
}

void StageRecorder::recordFunction(int64_t stage, const Function& f,
                                   const std::vector<int64_t>& parents) {
    std::vector<QueuedNode> nodes;
    std::vector<QueuedEdge> edges;
    nodes.reserve(std::min(f.ops().size() + f.args.size() + 1, kRowChunk));
    auto sourceOf = [&](ValueId v) {
        const Value& val = f.value(v);
        if (val.def != kNoId) return int64_t(val.def);
        for (size_t i = 0; i < f.args.size(); ++i)
            if (f.args[i] == v) return argNodeId(i);
        return int64_t(kNoId);
    };
    auto edge = [&](ValueId v, int64_t dst) {
        edges.push_back({stage, sourceOf(v), dst, int64_t(v), &labelOf(f.type(v))});
    };
    for (size_t i = 0; i < f.args.size(); ++i) {
        const Type& t = f.type(f.args[i]);
        QueuedNode n{.stageId = stage, .id = argNodeId(i), .name = valueName(f, f.args[i])};
        n.kind = packed(m_names.idOfText("arg"));
        n.dtype = packed(nameId(t.dtype));
        n.shape = packed(shapeId(t.shape));
        n.space = packed(nameId(MemSpace::GM));
        n.parent = argNodeId(i);
        n.srcLine = int32_t(f.loc.line);
        nodes.push_back(std::move(n));
    }
    for (const Op& op : f.ops()) {
        QueuedNode n;
        n.stageId = stage;
        n.id = op.id;
        n.kind = packed(nameId(op.kind));
        if (op.result != kNoId) {
            const Type& t = f.type(op.result);
            n.name = valueName(f, op.result);
            n.dtype = packed(nameId(t.dtype));
            n.shape = packed(shapeId(t.shape));
            if (t.space != MemSpace::None) n.space = packed(nameId(t.space));
        }
        if (f.level == Level::Tile) {
            Placement p = placeTileOp(f, op);
            if (p.core != CoreType::None) n.core = packed(nameId(p.core));
            if (p.core != CoreType::None) n.pipe = packed(nameId(p.pipe));
        }
        attrsKey(m_key, f, op);
        n.attrs = packed(m_attrs.idOf(m_key, [&] { return attrsJson(f, op); }));
        if (parents[op.id] != kNoParent) n.parent = parents[op.id];
        if (op.loc.known()) {
            n.srcLine = int32_t(op.loc.line);
            n.srcCol = int32_t(op.loc.col);
        }
        nodes.push_back(std::move(n));
        for (ValueId v : op.operands) edge(v, op.id);
        sendChunk(nodes);
        sendChunk(edges);
    }
    int64_t ret = argNodeId(f.args.size());
    QueuedNode n{.stageId = stage, .id = ret, .name = "return"};
    n.kind = packed(m_names.idOfText("return"));
    n.parent = ret;
    nodes.push_back(std::move(n));
    for (ValueId v : f.results) edge(v, ret);
    send(nodes);
    send(edges);
}

RecordDict::Id StageRecorder::shapeId(const Shape& shape) {
    shapeKey(m_key, shape.dims());
    return m_shapes.idOf(m_key, [&] { return jsonInts(shape.dims()); });
}

const std::string& StageRecorder::labelOf(const Type& t) {
    shapeKey(m_key, t.shape.dims());
    m_key.add(t.dtype).add(t.space);
    auto found = m_labels.find(m_key.bytes());
    if (found == m_labels.end())
        found = m_labels.emplace(std::string(m_key.bytes()), typeLabel(t)).first;
    return found->second;
}

size_t StageRecorder::bufferCount(const BlockProgram& program) {
    size_t n = 0;
    for (const BlockFunction& b : program.blocks) n += b.buffers.size();
    return n;
}

void StageRecorder::recordBlocks(int64_t stage, const BlockProgram& program, bool withBuffers) {
    std::vector<NodeDataRow> nodes;
    std::vector<BufferRow> buffers;
    int64_t bufferId = 0;
    m_blockIds.clear();
    for (const BlockFunction& b : program.blocks) {
        m_blockIds.emplace(b.name, b.id);
        size_t ops = 0, syncs = 0;
        for (const BlockItem& it : b.items) (it.isSync() ? syncs : ops)++;
        NodeDataRow n{
            .stageId = stage, .id = b.id, .kindDict = m_names.idOfText("block_fn"), .name = b.name};
        n.coreDict = nameId(b.core);
        n.attrsDict =
            m_names.idOfText(fmt::format(R"({{"group":{},"ops":{},"syncs":{},"buffers":{}}})",
                                         b.group, ops, syncs, b.buffers.size()));
        n.groupId = b.group;
        nodes.push_back(std::move(n));
        if (!withBuffers) continue;
        for (const Buffer& buf : b.buffers) {
            BufferRow r{stage,    bufferId++, b.id, std::string(memSpaceName(buf.space)),
                        buf.addr, buf.size};
            r.firstUse = buf.firstUse;
            r.lastUse = buf.lastUse;
            if (buf.value != kNoId) r.valueId = buf.value;
            r.slot = buf.slot;
            buffers.push_back(std::move(r));
            sendChunk(buffers);
        }
    }
    send(nodes);
    send(buffers);
}

void StageRecorder::recordExec(int64_t stage, const ExecGraph& exec) {
    std::vector<NodeDataRow> nodes;
    std::vector<EdgeRow> edges;
    for (const Task& t : exec.tasks) {
        NodeDataRow n{
            .stageId = stage, .id = t.id, .kindDict = m_names.idOfText("task"), .name = t.name};
        n.coreDict = nameId(t.core);
        n.groupId = t.block;
        n.parentId = t.block;
        nodes.push_back(std::move(n));
    }
    constexpr std::string_view kDepNames[] = {"raw", "war", "waw"};
    for (const TaskDep& d : exec.deps)
        edges.push_back({stage, d.from, d.to, std::nullopt, std::string(kDepNames[int(d.kind)])});
    send(nodes);
    send(edges);
}

namespace {

// A program whose kernels are shared (compiler/ir/PtoShare.h): the tasks of each kernel with
// their rebases, as the kernel node's attrs list them ({"id":3,"rebases":[[b,e,d]]}); "" for
// a kernel of a program without shared kernels (one task per kernel, none moved).
std::vector<std::string> kernelTasksAttrs(const PtoProgram& pto) {
    std::vector<std::string> attrs(pto.kernels.size());
    std::vector<int> runs(pto.kernels.size(), 0);
    bool shared = false;
    for (const Task& t : pto.exec.tasks) {
        if (t.block >= pto.kernels.size()) continue;
        shared = shared || !t.rebases.empty() || ++runs[t.block] > 1;
    }
    if (!shared) return attrs;
    for (const Task& t : pto.exec.tasks) {
        if (t.block >= pto.kernels.size()) continue;
        std::string& a = attrs[t.block];
        fmt::format_to(std::back_inserter(a), R"({}{{"id":{},"rebases":[)", a.empty() ? "" : ",",
                       t.id);
        for (size_t r = 0; r < t.rebases.size(); ++r)
            fmt::format_to(std::back_inserter(a), "{}[{},{},{}]", r ? "," : "", t.rebases[r].begin,
                           t.rebases[r].end, t.rebases[r].delta);
        a += "]}";
    }
    return attrs;
}

} // namespace

void StageRecorder::recordPto(int64_t stage, const PtoProgram& pto) {
    std::vector<NodeDataRow> nodes;
    const std::vector<std::string> tasks = kernelTasksAttrs(pto);
    for (size_t i = 0; i < pto.kernels.size(); ++i) {
        const Kernel& k = pto.kernels[i];
        NodeDataRow n{
            .stageId = stage, .id = k.id, .kindDict = m_names.idOfText("kernel"), .name = k.name};
        n.coreDict = nameId(k.core);
        // The block function the kernel text was written from, by name (a listing loaded as
        // such and the copies `@N` of cluster probes have none: their kernel index).
        const auto block = m_blockIds.find(k.name);
        n.parentId = block != m_blockIds.end() ? block->second : k.id;
        n.attrsDict =
            m_names.idOfText(tasks[i].empty() ? fmt::format(R"({{"instrs":{}}})", k.instrs.size())
                                              : fmt::format(R"({{"instrs":{},"tasks":[{}]}})",
                                                            k.instrs.size(), tasks[i]));
        nodes.push_back(std::move(n));
    }
    send(nodes);
    std::vector<InstrDataRow> instrs;
    int64_t instrId = 1; // instruction ids are 1 + the running index over kernels in order
    for (const Kernel& k : pto.kernels) {
        // An instruction of a counted loop runs once per round: its operands show their
        // address steps, and its FLOPs and GM bytes are those of all its rounds.
        std::vector<const InstrLoop*> loopOf(k.instrs.size(), nullptr);
        for (const InstrLoop& l : k.loops)
            for (uint32_t i = l.begin; i < l.end && i < loopOf.size(); ++i) loopOf[i] = &l;
        for (size_t i = 0; i < k.instrs.size(); ++i) {
            const Instr& in = k.instrs[i];
            const InstrLoop* loop = loopOf[i];
            const double rounds = loop ? double(loop->count) : 1.0;
            InstrDataRow r;
            r.id = instrId++;
            r.stageId = stage;
            r.blockId = k.id;
            r.idx = int64_t(i);
            r.pipeDict = nameId(in.pipe);
            r.opcodeDict = nameId(in.opcode);
            const std::array<int64_t, 4>& steps = loop ? loop->steps[i - loop->begin] : kNoSteps;
            const int eventStep = loop ? loop->eventStep(i - loop->begin) : 0;
            operandsKey(m_key, in, steps, eventStep);
            r.operandsDict =
                m_operands.idOf(m_key, [&] { return printPtoOperands(in, steps, eventStep); });
            if (in.tileOp != kNoId) {
                r.tileOpId = in.tileOp;
                r.tileStageId = m_lastTileStage;
            }
            if (in.loc.known()) r.srcLine = in.loc.line;
            r.flops = instrFlops(in) * rounds;
            r.gmBytes = instrGmBytes(in) * (loop ? loop->count : 1);
            if (int a = rateOperand(in); a >= 0) r.srcDtypeDict = nameId(in.operands[a].dtype);
            instrs.push_back(std::move(r));
            sendChunk(instrs);
        }
    }
    send(instrs);
}

void recordProgramMeta(tracedb::TraceWriter& writer, const CompileState& state,
                       const CompileOptions& options) {
    const TargetInfo& t = options.target;
    writer.setMeta("producer", "pto compile");
    writer.setMeta("program_path", state.file);
    writer.setMeta("program_text", state.source);
    writer.setMeta("entry", state.tensor.name);
    writer.setMeta("arch_name", t.name);
    writer.setMeta("target",
                   fmt::format(R"({{"aic_cores":{},"aiv_cores":{},"l1":{},"l0a":{},"l0b":{},)"
                               R"("l0c":{},"ub":{},"double_buffer":{}}})",
                               t.aicCores, t.aivCores, t.l1Bytes, t.l0aBytes, t.l0bBytes,
                               t.l0cBytes, t.ubBytes, options.doubleBuffer));
}

} // namespace pto
