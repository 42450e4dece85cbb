// Test helpers for the lowering: Tile-function builder, sample programs, brute-force checkers.
#include "LoweringTestUtil.h"

#include "compiler/ir/Verifier.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/EmitPto.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/OrderInstructions.h"

#include <array>
#include <deque>
#include <map>

namespace pto::test {

TileBuilder::TileBuilder(std::string name) {
    m_f.name = std::move(name);
    m_f.level = Level::Tile;
}

ValueId TileBuilder::arg(const std::string& name, DType dtype, Shape shape) {
    return m_f.addArg(Type{dtype, shape, MemSpace::GM}, name);
}

ValueId TileBuilder::gmTensor(const std::string& name, DType dtype, Shape shape,
                              const std::string& role) {
    Attrs a;
    a.set("role", role);
    Type t{dtype, shape, MemSpace::GM};
    Op o;
    o.kind = OpKind::GmTensor;
    o.attrs = a;
    o.loc = {uint32_t(m_f.ops().size() + 1), 3};
    OpId id = m_f.addOp(o, &t, name);
    ValueId v = m_f.op(id).result;
    if (role == "output") m_f.results.push_back(v);
    return v;
}

ValueId TileBuilder::op(OpKind kind, std::vector<ValueId> operands, const Type& result,
                        Attrs attrs) {
    Op o;
    o.kind = kind;
    o.operands = std::move(operands);
    o.attrs = std::move(attrs);
    o.loc = {uint32_t(m_f.ops().size() + 1), 3};
    OpId id = m_f.addOp(o, &result);
    return m_f.op(id).result;
}

ValueId TileBuilder::tload(ValueId gm, std::vector<int64_t> offset, Shape tile, MemSpace space) {
    Attrs a;
    a.set("offset", offset);
    ValueId v = op(OpKind::TLoad, {gm}, Type{m_f.type(gm).dtype, tile, space}, a);
    m_f.value(v).origin = gm;
    m_f.value(v).offset = Shape(std::span<const int64_t>(offset));
    return v;
}

void TileBuilder::tstore(ValueId tile, ValueId gm, std::vector<int64_t> offset) {
    Op o;
    o.kind = OpKind::TStore;
    o.operands = {tile, gm};
    o.attrs.set("offset", offset);
    o.loc = {uint32_t(m_f.ops().size() + 1), 3};
    m_f.addOp(o);
}

ValueId TileBuilder::tmove(ValueId src, std::vector<int64_t> offset, Shape tile, MemSpace space) {
    Attrs a;
    a.set("offset", offset);
    return op(OpKind::TMove, {src}, Type{m_f.type(src).dtype, tile, space}, a);
}

ValueId TileBuilder::matmul(ValueId a, ValueId b) {
    Shape s{m_f.type(a).shape[0], m_f.type(b).shape[1]};
    return op(OpKind::Matmul, {a, b}, Type{DType::F32, s, MemSpace::L0C});
}

ValueId TileBuilder::matmulAcc(ValueId c, ValueId a, ValueId b) {
    return op(OpKind::MatmulAcc, {c, a, b}, m_f.type(c));
}

ValueId TileBuilder::unary(OpKind kind, ValueId x) {
    return op(kind, {x}, m_f.type(x));
}

ValueId TileBuilder::scalar(OpKind kind, ValueId x, double s) {
    Attrs a;
    a.set("scalar", s);
    return op(kind, {x}, m_f.type(x), a);
}

ValueId TileBuilder::binary(OpKind kind, ValueId a, ValueId b, Shape result) {
    return op(kind, {a, b}, Type{m_f.type(a).dtype, result, MemSpace::UB});
}

ValueId TileBuilder::reduce(OpKind kind, ValueId x, int axis) {
    Attrs a;
    a.set("axis", int64_t(axis));
    a.set("keepdim", true);
    const Shape& s = m_f.type(x).shape;
    Shape r = axis == 1 ? Shape{s[0], 1} : Shape{1, s[1]};
    return op(kind, {x}, Type{m_f.type(x).dtype, r, MemSpace::UB}, a);
}

Function elementwiseProgram(int tiles, int64_t rows, int64_t cols) {
    TileBuilder b("ew");
    ValueId x = b.arg("x", DType::F32, {tiles * rows, cols});
    ValueId y = b.gmTensor("y", DType::F32, {tiles * rows, cols}, "output");
    for (int i = 0; i < tiles; ++i) {
        ValueId t = b.tload(x, {i * rows, 0}, {rows, cols}, MemSpace::UB);
        ValueId e = b.unary(OpKind::Exp, t);
        ValueId s = b.scalar(OpKind::AddS, e, 1.0);
        b.tstore(s, y, {i * rows, 0});
    }
    return b.take();
}

Function softmaxProgram(int tiles, int64_t rows, int64_t cols) {
    TileBuilder b("softmax");
    ValueId x = b.arg("x", DType::F32, {tiles * rows, cols});
    ValueId y = b.gmTensor("y", DType::F32, {tiles * rows, cols}, "output");
    for (int i = 0; i < tiles; ++i) {
        ValueId t = b.tload(x, {i * rows, 0}, {rows, cols}, MemSpace::UB);
        ValueId m = b.reduce(OpKind::ReduceMax, t, 1);
        ValueId d = b.binary(OpKind::Sub, t, m, {rows, cols});
        ValueId e = b.unary(OpKind::Exp, d);
        ValueId s = b.reduce(OpKind::ReduceSum, e, 1);
        ValueId q = b.binary(OpKind::Div, e, s, {rows, cols});
        b.tstore(q, y, {i * rows, 0});
    }
    return b.take();
}

namespace {

void matmulTiles(TileBuilder& b, ValueId a, ValueId bm, ValueId c, int64_t m, int64_t n, int64_t k,
                 int64_t tm, int64_t tn, int64_t kL1, int64_t kL0) {
    for (int64_t i = 0; i < m; i += tm)
        for (int64_t j = 0; j < n; j += tn) {
            ValueId acc = kNoId;
            for (int64_t kk = 0; kk < k; kk += kL1) {
                ValueId al1 = b.tload(a, {i, kk}, {tm, kL1}, MemSpace::L1);
                ValueId bl1 = b.tload(bm, {kk, j}, {kL1, tn}, MemSpace::L1);
                for (int64_t k0 = 0; k0 < kL1; k0 += kL0) {
                    ValueId a0 = b.tmove(al1, {0, k0}, {tm, kL0}, MemSpace::L0A);
                    ValueId b0 = b.tmove(bl1, {k0, 0}, {kL0, tn}, MemSpace::L0B);
                    acc = acc == kNoId ? b.matmul(a0, b0) : b.matmulAcc(acc, a0, b0);
                }
            }
            b.tstore(acc, c, {i, j});
        }
}

} // namespace

Function matmulProgram(int64_t m, int64_t n, int64_t k, int64_t tm, int64_t tn, int64_t kL1,
                       int64_t kL0) {
    TileBuilder b("matmul");
    ValueId a = b.arg("a", DType::F16, {m, k});
    ValueId bm = b.arg("b", DType::F16, {k, n});
    ValueId c = b.gmTensor("c", DType::F32, {m, n}, "output");
    matmulTiles(b, a, bm, c, m, n, k, tm, tn, kL1, kL0);
    return b.take();
}

Function matmulReluProgram() {
    TileBuilder b("mmrelu");
    ValueId a = b.arg("a", DType::F16, {256, 256});
    ValueId bm = b.arg("b", DType::F16, {256, 256});
    ValueId w = b.gmTensor("w", DType::F32, {256, 256}, "workspace");
    ValueId y = b.gmTensor("y", DType::F32, {256, 256}, "output");
    matmulTiles(b, a, bm, w, 256, 256, 256, 128, 128, 128, 64);
    for (int64_t r = 0; r < 256; r += 64) {
        ValueId t = b.tload(w, {r, 0}, {64, 256}, MemSpace::UB);
        ValueId u = b.unary(OpKind::Relu, t);
        b.tstore(u, y, {r, 0});
    }
    return b.take();
}

Lowered lowerAll(Function f, const PartitionOptions& opts, bool doubleBuffer,
                 const TargetInfo& target) {
    Lowered l;
    l.block = partitionBlocks(std::move(f), opts);
    l.block.doubleBuffer = doubleBuffer;
    orderInstructions(l.block);
    allocateBuffers(l.block, target, "test.pto");
    insertSync(l.block);
    l.exec = buildExecGraph(l.block);
    l.pto = emitPto(l.block, l.exec);
    verifyPtoProgram(l.pto, "test.pto", target); // the PTO level's own verifier agrees
    return l;
}

Pipe testPipeOf(const Function& tile, const Op& op) {
    switch (op.kind) {
    case OpKind::TLoad:
        return Pipe::MTE2;
    case OpKind::TMove:
        return Pipe::MTE1;
    case OpKind::Matmul:
    case OpKind::MatmulAcc:
        return Pipe::M;
    case OpKind::TStore:
        return tile.type(op.operands[0]).space == MemSpace::L0C ? Pipe::FIX : Pipe::MTE3;
    default:
        return Pipe::V;
    }
}

namespace {

// One memory access of an op: on-chip bytes, or a 2-D GM rectangle (test's own arithmetic,
// for rank-2 GM tensors).
struct Access {
    bool gm = false;
    uint32_t key = 0; // space, or GM value id
    int64_t lo = 0, hi = 0, r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    bool write = false;
};

bool conflict(const Access& a, const Access& b) {
    if (a.gm != b.gm || a.key != b.key || !(a.write || b.write)) return false;
    if (!a.gm) return a.lo < b.hi && b.lo < a.hi;
    return a.r0 < b.r1 && b.r0 < a.r1 && a.c0 < b.c1 && b.c0 < a.c1;
}

std::vector<Access> accessesOf(const BlockProgram& p, const BlockFunction& block, const Op& op,
                               bool withOnChip = true) {
    std::vector<Access> out;
    const Function& f = p.tile;
    auto onChip = [&](ValueId v, bool write) {
        const Buffer& b = block.buffers.at(p.bufferOf.at(v));
        out.push_back({false, uint32_t(b.space), b.addr, b.addr + b.size, 0, 0, 0, 0, write});
    };
    auto gm = [&](ValueId g, ValueId t, bool write) {
        // The tile as a rectangle of the tensor's rows × last-dim view.
        std::vector<int64_t> off = op.attrs.getInts("offset").value();
        const Shape& gs = f.type(g).shape;
        int64_t row = 0;
        for (int d = 0; d + 1 < gs.rank(); ++d) {
            int64_t below = 1;
            for (int e = d + 1; e + 1 < gs.rank(); ++e) below *= gs[e];
            row += off[d] * below;
        }
        const int64_t col = off.back();
        const Shape& s = f.type(t).shape;
        out.push_back({true, g, 0, 0, row, row + s.rows(), col, col + s.cols(), write});
    };
    for (ValueId v : op.operands)
        if (withOnChip && f.type(v).isTile()) onChip(v, false);
    if (withOnChip && op.result != kNoId && f.type(op.result).isTile()) onChip(op.result, true);
    if (op.kind == OpKind::TLoad) gm(op.operands[0], op.result, false);
    if (op.kind == OpKind::TStore) gm(op.operands[1], op.operands[0], true);
    return out;
}

Pipe itemPipe(const Function& f, const BlockItem& item) {
    if (!item.isSync()) return testPipeOf(f, f.op(item.op));
    return item.sync.kind == SyncKind::WaitFlag ? item.sync.dst : item.sync.src;
}

using FlagKey = std::tuple<int, int, int>;

// Runs the pipes with counting flags until all items ran; false on deadlock.
bool runsToCompletion(const Function& f, const BlockFunction& block) {
    std::array<std::deque<size_t>, kPipeCount> queues;
    for (size_t i = 0; i < block.items.size(); ++i)
        queues[int(itemPipe(f, block.items[i]))].push_back(i);
    std::map<FlagKey, int> count;
    for (bool progress = true; progress;) {
        progress = false;
        for (auto& q : queues) {
            while (!q.empty()) {
                const BlockItem& it = block.items[q.front()];
                if (it.isSync()) {
                    FlagKey k{int(it.sync.src), int(it.sync.dst), it.sync.event};
                    if (it.sync.kind == SyncKind::SetFlag) ++count[k];
                    if (it.sync.kind == SyncKind::WaitFlag) {
                        if (count[k] == 0) break;
                        --count[k];
                    }
                }
                q.pop_front();
                progress = true;
            }
        }
    }
    for (auto& q : queues)
        if (!q.empty()) return false;
    return true;
}

} // namespace

std::vector<std::string> checkBuffers(const BlockProgram& p, const TargetInfo& target) {
    std::vector<std::string> problems;
    for (const BlockFunction& block : p.blocks) {
        const auto& bufs = block.buffers;
        for (const Buffer& b : bufs) {
            if (b.addr % target.bufferAlign || b.size % target.bufferAlign)
                problems.push_back(block.name + ": buffer not aligned #" + std::to_string(b.id));
            if (b.addr < 0 || b.addr + b.size > target.capacity(b.space))
                problems.push_back(block.name + ": buffer out of capacity #" +
                                   std::to_string(b.id));
            if (b.size < p.tile.type(b.value).bytes())
                problems.push_back(block.name + ": buffer too small #" + std::to_string(b.id));
        }
        for (size_t i = 0; i < bufs.size(); ++i)
            for (size_t j = i + 1; j < bufs.size(); ++j) {
                const Buffer &a = bufs[i], &b = bufs[j];
                bool liveTogether = a.firstUse <= b.lastUse && b.firstUse <= a.lastUse;
                bool sameBytes = a.addr < b.addr + b.size && b.addr < a.addr + a.size;
                if (a.space == b.space && liveTogether && sameBytes)
                    problems.push_back(block.name + ": live buffers overlap #" +
                                       std::to_string(a.id) + " #" + std::to_string(b.id));
            }
        for (const BlockItem& item : block.items) {
            if (item.isSync()) continue;
            const Op& op = p.tile.op(item.op);
            if (op.result != kNoId && p.tile.type(op.result).isTile() &&
                p.bufferOf.at(op.result) >= bufs.size())
                problems.push_back(block.name + ": value without buffer");
        }
    }
    return problems;
}

std::vector<std::string> checkSync(const BlockProgram& p) {
    std::vector<std::string> problems;
    const Function& f = p.tile;
    for (const BlockFunction& block : p.blocks) {
        const size_t n = block.items.size();
        if (!runsToCompletion(f, block)) problems.push_back(block.name + ": deadlock");
        // Happens-before edges: program order per pipe, and k-th set → k-th wait per flag.
        std::vector<std::vector<size_t>> next(n);
        std::array<size_t, kPipeCount> last;
        last.fill(SIZE_MAX);
        std::map<FlagKey, std::deque<size_t>> pendingSets;
        std::map<FlagKey, size_t> sets, waits;
        for (size_t i = 0; i < n; ++i) {
            const BlockItem& it = block.items[i];
            int pipe = int(itemPipe(f, it));
            if (last[pipe] != SIZE_MAX) next[last[pipe]].push_back(i);
            last[pipe] = i;
            if (!it.isSync()) continue;
            FlagKey k{int(it.sync.src), int(it.sync.dst), it.sync.event};
            if (it.sync.event > 7) problems.push_back(block.name + ": event id > 7");
            if (it.sync.kind == SyncKind::SetFlag) {
                pendingSets[k].push_back(i);
                ++sets[k];
            } else if (it.sync.kind == SyncKind::WaitFlag) {
                ++waits[k];
                if (pendingSets[k].empty()) {
                    problems.push_back(block.name + ": wait without an earlier set");
                    continue;
                }
                next[pendingSets[k].front()].push_back(i);
                pendingSets[k].pop_front();
            }
        }
        if (sets != waits) problems.push_back(block.name + ": unmatched set/wait counts");
        std::vector<std::vector<Access>> acc(n);
        for (size_t i = 0; i < n; ++i)
            if (!block.items[i].isSync()) acc[i] = accessesOf(p, block, f.op(block.items[i].op));
        for (size_t x = 0; x < n; ++x) {
            if (block.items[x].isSync()) continue;
            std::vector<bool> reach(n, false);
            std::vector<size_t> stack{x};
            while (!stack.empty()) {
                size_t u = stack.back();
                stack.pop_back();
                for (size_t v : next[u])
                    if (!reach[v]) {
                        reach[v] = true;
                        stack.push_back(v);
                    }
            }
            for (size_t y = x + 1; y < n; ++y) {
                if (block.items[y].isSync() || reach[y]) continue;
                for (const Access& a : acc[x])
                    for (const Access& b : acc[y])
                        if (conflict(a, b)) {
                            problems.push_back(block.name + ": items " + std::to_string(x) +
                                               " and " + std::to_string(y) +
                                               " conflict without sync");
                            goto nextPair;
                        }
            nextPair:;
            }
        }
    }
    return problems;
}

std::set<std::pair<uint32_t, uint32_t>> bruteForceDeps(const BlockProgram& p) {
    struct Gm {
        OpId op;
        uint32_t task;
        Access a;
    };
    std::vector<Gm> all;
    for (uint32_t t = 0; t < p.blocks.size(); ++t)
        for (const BlockItem& item : p.blocks[t].items) {
            if (item.isSync()) continue;
            const Op& op = p.tile.op(item.op);
            for (const Access& a : accessesOf(p, p.blocks[t], op, false))
                if (a.gm) all.push_back({op.id, t, a});
        }
    std::set<std::pair<uint32_t, uint32_t>> deps;
    for (const Gm& x : all)
        for (const Gm& y : all)
            if (x.op < y.op && x.task != y.task && conflict(x.a, y.a))
                deps.insert({x.task, y.task});
    return deps;
}

} // namespace pto::test
