// Codegen: Block items → PTO instructions with resolved operands; GM tensor layout.
#include "compiler/passes/EmitPto.h"

#include "compiler/ir/Placement.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Target.h"

#include <optional>

namespace pto {
namespace {

constexpr int64_t kGmAlign = 512; // TargetInfo::gmAlign default (Ascend C DMA best practice)

// The value as the printer shows it (error paths only: builds the function's name table).
std::string valueName(const Function& f, ValueId v) {
    std::string s(1, '%');
    s += NameTable(f)[v];
    return s;
}

// --- GM layout -------------------------------------------------------------------------------

// The Tensor-level value a GM value holds: its own origin, else the origin of a tile stored to
// or loaded from it (tiles name the Tensor-level value they cover), else for the i-th argument
// the Tensor-level argument i (parsed first, so value i).
std::vector<ValueId> tensorValues(const Function& tile) {
    std::vector<ValueId> known(tile.valueCount(), kNoId);
    for (const Op& op : tile.ops()) {
        if (op.kind == OpKind::TStore && op.operands.size() == 2) {
            ValueId o = tile.value(op.operands[0]).origin;
            if (known[op.operands[1]] == kNoId) known[op.operands[1]] = o;
        }
    }
    for (const Op& op : tile.ops())
        if (op.kind == OpKind::TLoad && !op.operands.empty() && op.result != kNoId &&
            known[op.operands[0]] == kNoId)
            known[op.operands[0]] = tile.value(op.result).origin;
    for (size_t i = 0; i < tile.args.size(); ++i)
        if (known[tile.args[i]] == kNoId) known[tile.args[i]] = ValueId(i);
    for (ValueId v = 0; v < tile.valueCount(); ++v)
        if (tile.value(v).origin != kNoId && tile.type(v).space == MemSpace::GM)
            known[v] = tile.value(v).origin;
    return known;
}

// The GM values that a tstore or tscatter_add writes.
std::vector<char> writtenGm(const Function& tile) {
    std::vector<char> written(tile.valueCount(), 0);
    for (const Op& op : tile.ops())
        if ((op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) && op.operands.size() > 1)
            written[op.operands[1]] = 1;
    return written;
}

GmRole roleOf(const Function& tile, ValueId v, bool isArg, bool written) {
    if (isArg) return written ? GmRole::InOut : GmRole::Input;
    const Op* def = tile.producer(v);
    std::string role = def ? def->attrs.getString("role") : std::string();
    if (role == "workspace") return GmRole::Workspace;
    if (role == "output") return GmRole::Output;
    for (ValueId r : tile.results)
        if (r == v) return GmRole::Output;
    return GmRole::Workspace;
}

void layOutGm(const Function& tile, PtoProgram& out, std::vector<uint32_t>& gmIndex) {
    const std::vector<ValueId> order = gmLayoutOrder(tile);
    const std::vector<ValueId> tensorValue = tensorValues(tile);
    const std::vector<char> written = writtenGm(tile);
    int64_t next = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const ValueId v = order[i];
        GmTensor t;
        const std::string& name = tile.value(v).name;
        t.name = name.empty() ? "gm" + std::to_string(i) : name;
        t.dtype = tile.type(v).dtype;
        t.shape = tile.type(v).shape;
        t.addr = next;
        t.role = roleOf(tile, v, i < tile.args.size(), written[v]);
        t.tensorValue = tensorValue[v];
        next = alignUp(t.addr + t.bytes(), kGmAlign);
        gmIndex[v] = uint32_t(i);
        out.gm.push_back(std::move(t));
    }
}

// --- Instructions -----------------------------------------------------------------------------

class KernelEmitter {
public:
    KernelEmitter(const BlockProgram& program, const BlockFunction& block, const PtoProgram& out,
                  const std::vector<uint32_t>& gmIndex)
        : m_program(program), m_tile(program.tile), m_block(block), m_out(out), m_gmIndex(gmIndex) {
    }

    Kernel run() {
        Kernel k;
        k.id = m_block.id;
        k.name = m_block.name;
        k.core = m_block.core;
        k.instrs.reserve(m_block.items.size() + m_block.items.size() / 8);
        m_instrs = &k.instrs;
        const size_t n = m_block.items.size();
        // A flag's provenance: the op it follows (set_flag) or precedes (wait_flag, barrier).
        std::vector<OpId> prevOp(n, kNoId), nextOp(n, kNoId);
        for (size_t i = 0, last = kNoId; i < n; ++i) {
            if (!m_block.items[i].isSync()) last = m_block.items[i].op;
            prevOp[i] = OpId(last);
        }
        for (size_t i = n, last = kNoId; i-- > 0;) {
            if (!m_block.items[i].isSync()) last = m_block.items[i].op;
            nextOp[i] = OpId(last);
        }
        for (size_t i = 0; i < n; ++i) {
            const BlockItem& item = m_block.items[i];
            if (!item.isSync()) {
                emitOp(m_tile.op(item.op));
                continue;
            }
            const bool after =
                item.sync.kind == SyncKind::SetFlag || item.sync.kind == SyncKind::CrossSetFlag;
            OpId near = after ? prevOp[i] : nextOp[i];
            if (near == kNoId) near = after ? nextOp[i] : prevOp[i];
            emitSync(item.sync, near);
        }
        return k;
    }

private:
    Instr& add(Opcode opcode, const Op& op, std::initializer_list<Operand> operands) {
        Instr& in = m_instrs->emplace_back();
        in.opcode = opcode;
        in.pipe = opcodeDefaultPipe(opcode);
        for (const Operand& o : operands) in.operands[in.operandCount++] = o;
        in.tileOp = op.id;
        in.loc = op.loc;
        return in;
    }

    void emitSync(const Sync& s, OpId near) {
        static const Op kNone{};
        const Op& op = near == kNoId ? kNone : m_tile.op(near);
        Opcode code = s.kind == SyncKind::SetFlag         ? Opcode::SetFlag
                      : s.kind == SyncKind::WaitFlag      ? Opcode::WaitFlag
                      : s.kind == SyncKind::CrossSetFlag  ? Opcode::CrossSetFlag
                      : s.kind == SyncKind::CrossWaitFlag ? Opcode::CrossWaitFlag
                                                          : Opcode::Barrier;
        Instr& in = add(code, op, {});
        in.pipe = s.kind == SyncKind::WaitFlag ? s.dst : s.src;
        in.peer = s.peer;
        in.flagSrc = s.src;
        in.flagDst = s.dst;
        in.event = s.event;
        in.tileOp = near;
    }

    [[noreturn]] void fail(const Op& op, const std::string& what) const {
        std::string subject(opName(op.kind));
        if (op.result != kNoId) subject += " " + valueName(m_tile, op.result);
        throw CompileError({}, op.loc, subject + ": " + what + " (block '" + m_block.name + "')");
    }

    Operand tileOperand(ValueId v, const Op& op) const {
        uint32_t b = v < m_program.bufferOf.size() ? m_program.bufferOf[v] : kNoId;
        if (b == kNoId || b >= m_block.buffers.size())
            fail(op, "tile " + valueName(m_tile, v) + " has no buffer (run allocate-buffers)");
        const Type& t = m_tile.type(v);
        Operand o;
        o.space = t.space;
        o.dtype = t.dtype;
        o.addr = m_block.buffers[b].addr;
        o.rows = int32_t(t.shape.rows());
        o.cols = int32_t(t.shape.cols());
        o.stride = o.cols;
        return o;
    }

    Operand gmOperand(const Op& op) const {
        GmRegion r = gmRegionOf(m_tile, op);
        if (m_gmIndex[r.tensor] == kNoId)
            fail(op, valueName(m_tile, r.tensor) +
                         " is not a GM tensor (an argument, output or gm_tensor)");
        const GmTensor& t = m_out.gm[m_gmIndex[r.tensor]];
        const int64_t cols = t.shape.cols();
        Operand o;
        o.space = MemSpace::GM;
        o.dtype = t.dtype;
        o.addr = t.addr + (r.row * cols + r.col) * dtypeSize(t.dtype);
        o.rows = int32_t(r.rows);
        o.cols = int32_t(r.cols);
        o.stride = cols;
        return o;
    }

    void emitOp(const Op& op) {
        auto in = [&](size_t i) { return tileOperand(op.operands.at(i), op); };
        auto dst = [&] { return tileOperand(op.result, op); };
        switch (op.kind) {
        case OpKind::TLoad:
            add(Opcode::TLoad, op, {dst(), gmOperand(op)});
            return;
        case OpKind::Gather: // dst, the GM column strip (every row), the index tile
            add(Opcode::MGather, op, {dst(), gmOperand(op), in(1)});
            return;
        case OpKind::TScatterAdd: // the GM column strip (every row), the rows, the index tile
            add(Opcode::MScatter, op, {gmOperand(op), in(0), in(2)}).mode = "add";
            return;
        case OpKind::CumSum:
            emitAlongAxis(op, false, Opcode::TCumSum, Opcode::TCumSum, "rows", "cols");
            return;
        case OpKind::TopK:
            add(Opcode::TTopK, op, {dst(), in(0)}).mode =
                std::string(op.attrs.getBool("largest", true) ? "largest" : "smallest") +
                (op.attrs.getBool("indices") ? "-indices" : "");
            return;
        case OpKind::TStore: {
            Operand src = in(0);
            add(Opcode::TStore, op, {gmOperand(op), src}).pipe =
                src.space == MemSpace::L0C ? Pipe::FIX : Pipe::MTE3;
            return;
        }
        case OpKind::TMove:
            add(Opcode::TExtract, op, {dst(), subTile(op)});
            return;
        case OpKind::Matmul:
        case OpKind::MatmulAcc: {
            const bool acc = op.kind == OpKind::MatmulAcc;
            Instr& i = acc ? add(Opcode::TMatmulAcc, op, {dst(), in(0), in(1), in(2)})
                           : add(Opcode::TMatmul, op, {dst(), in(0), in(1)});
            i.transposeA = op.attrs.getBool("transpose_a");
            i.transposeB = op.attrs.getBool("transpose_b");
            return;
        }
        case OpKind::Add:
        case OpKind::Sub:
        case OpKind::Mul:
        case OpKind::Div:
        case OpKind::Max:
        case OpKind::Min:
        case OpKind::Cmp:
            emitBinary(op);
            return;
        case OpKind::Where:
            emitWhere(op);
            return;
        case OpKind::ReduceSum:
        case OpKind::ReduceMax:
        case OpKind::ReduceMin:
            emitReduce(op);
            return;
        case OpKind::Broadcast:
            emitBroadcast(op);
            return;
        case OpKind::Transpose:
            add(Opcode::TTrans, op, {dst(), in(0)});
            return;
        case OpKind::Fill:
            add(Opcode::TExpandS, op, {dst()}).scalar = op.attrs.getFloat("value");
            return;
        case OpKind::Cast:
            add(Opcode::TCvt, op, {dst(), in(0)}).mode = op.attrs.getString("round", "rne");
            return;
        default:
            break;
        }
        if (std::optional<Opcode> code = scalarOpcode(op.kind)) {
            Instr& i = add(*code, op, {dst(), in(0)});
            i.scalar = op.attrs.getFloat("scalar");
            if (op.kind == OpKind::CmpS) i.mode = op.attrs.getString("pred");
            return;
        }
        if (std::optional<Opcode> code = unaryOpcode(op.kind)) {
            add(*code, op, {dst(), in(0)});
            return;
        }
        fail(op, "no PTO instruction for this op at Tile level");
    }

    // tmove: the [i, j] sub-tile of the L1 source, read with the source's row stride.
    Operand subTile(const Op& op) const {
        Operand src = tileOperand(op.operands.at(0), op);
        const Type& t = m_tile.type(op.result);
        // The offset (absent: [0, 0]) read in place: a cube kernel has a tmove per L0 step.
        const AttrValue* attr = op.attrs.find("offset");
        const auto* at = attr ? std::get_if<std::vector<int64_t>>(attr) : nullptr;
        int64_t i = 0, j = 0;
        if (at && at->size() >= 2) i = (*at)[at->size() - 2];
        if (at && !at->empty()) j = at->back();
        if (i < 0 || j < 0 || i + t.shape.rows() > src.rows || j + t.shape.cols() > src.cols)
            fail(op, "sub-tile " + t.shape.str() + " at [" + std::to_string(i) + ", " +
                         std::to_string(j) + "] lies outside its source " +
                         std::to_string(src.rows) + "x" + std::to_string(src.cols));
        src.addr += (i * src.stride + j) * dtypeSize(src.dtype);
        src.rows = int32_t(t.shape.rows());
        src.cols = int32_t(t.shape.cols());
        return src;
    }

    enum class Fit { Full, Row }; // Row: one column repeated across the result's columns

    // Adapts an operand to the result's rows × cols: [1×c] and [1×1] read with row stride 0.
    Fit fit(Operand& o, const Operand& d, const Op& op, ValueId v) const {
        if (o.rows == d.rows && o.cols == d.cols) return Fit::Full;
        if (o.rows == 1 && d.rows > 1 && (o.cols == d.cols || o.cols == 1)) {
            o.rows = d.rows;
            o.stride = 0;
            return o.cols == d.cols ? Fit::Full : Fit::Row;
        }
        if (o.rows == d.rows && o.cols == 1) return Fit::Row;
        fail(op, "operand " + valueName(m_tile, v) + " (" + std::to_string(o.rows) + "x" +
                     std::to_string(o.cols) + ") does not broadcast to the result " +
                     std::to_string(d.rows) + "x" + std::to_string(d.cols));
    }

    // Binary ops: T<OP> for equal shapes, TROWEXPAND<OP> for a row-broadcast second operand
    // (swapped when the first broadcasts and the op commutes); otherwise the broadcast operand
    // is first expanded into the destination (TROWEXPAND) and the op runs on it in place.
    void emitBinary(const Op& op) {
        Operand d = tileOperand(op.result, op);
        Operand a = tileOperand(op.operands.at(0), op), b = tileOperand(op.operands.at(1), op);
        Fit fa = fit(a, d, op, op.operands[0]), fb = fit(b, d, op, op.operands[1]);
        const Opcode plain = binaryOpcode(op.kind);
        const std::optional<Opcode> fused = rowExpandOpcode(op.kind);
        const bool commutes = op.kind == OpKind::Add || op.kind == OpKind::Mul ||
                              op.kind == OpKind::Max || op.kind == OpKind::Min;
        if (fa == Fit::Row && fb == Fit::Full && commutes && fused) {
            std::swap(a, b);
            std::swap(fa, fb);
        }
        if (fa == Fit::Row) {
            if (a.dtype != d.dtype)
                fail(op, "row-broadcast first operand " + valueName(m_tile, op.operands[0]) +
                             " needs its own expansion (dtype differs from the result's)");
            add(Opcode::TRowExpand, op, {d, a});
            a = d;
        }
        if (fb == Fit::Row && fused) {
            add(*fused, op, {d, a, b});
            return;
        }
        if (fb == Fit::Row) {
            if (b.dtype != d.dtype || fa == Fit::Row)
                fail(op, "row-broadcast operand " + valueName(m_tile, op.operands[1]) +
                             " is not supported by " + std::string(opcodeName(plain)) +
                             "; broadcast it first");
            add(Opcode::TRowExpand, op, {d, b});
            b = d;
        }
        Instr& i = add(plain, op, {d, a, b});
        if (op.kind == OpKind::Cmp) i.mode = op.attrs.getString("pred");
    }

    void emitWhere(const Op& op) {
        Operand d = tileOperand(op.result, op);
        std::array<Operand, 3> src;
        for (size_t k = 0; k < 3; ++k) {
            src[k] = tileOperand(op.operands.at(k), op);
            if (fit(src[k], d, op, op.operands[k]) != Fit::Full)
                fail(op, "TSEL takes no row-broadcast operand (" +
                             valueName(m_tile, op.operands[k]) + "); broadcast it first");
        }
        add(Opcode::TSel, op, {d, src[0], src[1], src[2]});
    }

    // A reduction or prefix sum of an N-D tile along one axis, in the 2-D view the
    // instructions use (rows = the product of the leading dims, cols = the last dim). Along the
    // last axis (rank 1: the one 1×n row) it is one row instruction (`byRows`, mode `rowMode`)
    // over the whole tile; a reduction writes [rows×1]. Along another axis the tile is `outer`
    // contiguous blocks of [extent × inner] elements (the dims before the axis, the axis, the
    // dims after it), each a column instruction (`byCols`, mode `colMode`) into the block's
    // place in the result (a reduction: one [1 × inner] row): one instruction for a rank-2
    // tile or when the dims before the axis are 1, one per block otherwise.
    void emitAlongAxis(const Op& op, bool reduce, Opcode byRows, Opcode byCols,
                       std::string_view rowMode = {}, std::string_view colMode = {}) {
        Operand d = tileOperand(op.result, op), s = tileOperand(op.operands.at(0), op);
        const Shape& shape = m_tile.type(op.operands.at(0)).shape;
        const int rank = shape.rank();
        int64_t axis = op.attrs.getInt("axis", rank - 1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank)
            fail(op, "axis " + std::to_string(op.attrs.getInt("axis", rank - 1)) +
                         " is out of range for the tile " + shape.str());
        if (axis == rank - 1) {
            if (reduce) { // keepdim or not, the result is [r×1]
                d.rows = s.rows;
                d.cols = 1;
                d.stride = 1;
            }
            add(byRows, op, {d, s}).mode = rowMode;
            return;
        }
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < axis; ++k) outer *= shape[k];
        for (int k = int(axis) + 1; k < rank; ++k) inner *= shape[k];
        s.rows = int32_t(shape[axis]);
        s.cols = d.cols = int32_t(inner);
        s.stride = d.stride = inner;
        d.rows = reduce ? 1 : s.rows;
        for (int64_t block = 0; block < outer; ++block) {
            add(byCols, op, {d, s}).mode = colMode;
            s.addr += s.bytes();
            d.addr += d.bytes();
        }
    }

    void emitReduce(const Op& op) {
        emitAlongAxis(op, true, reduceOpcode(op.kind, true), reduceOpcode(op.kind, false));
    }

    static Opcode reduceOpcode(OpKind kind, bool rows) {
        if (kind == OpKind::ReduceSum) return rows ? Opcode::TRowSum : Opcode::TColSum;
        if (kind == OpKind::ReduceMax) return rows ? Opcode::TRowMax : Opcode::TColMax;
        return rows ? Opcode::TRowMin : Opcode::TColMin;
    }

    // [r×1] → TROWEXPAND; [1×c] → a copy reading with row stride 0 (TMULS by 1, exact);
    // [1×1] → TROWEXPAND reading one element per row with stride 0.
    void emitBroadcast(const Op& op) {
        Operand d = tileOperand(op.result, op), s = tileOperand(op.operands.at(0), op);
        if (fit(s, d, op, op.operands[0]) == Fit::Row) {
            add(Opcode::TRowExpand, op, {d, s});
            return;
        }
        add(Opcode::TMulS, op, {d, s}).scalar = 1.0;
    }

    static Opcode binaryOpcode(OpKind k) {
        switch (k) {
        case OpKind::Add:
            return Opcode::TAdd;
        case OpKind::Sub:
            return Opcode::TSub;
        case OpKind::Mul:
            return Opcode::TMul;
        case OpKind::Div:
            return Opcode::TDiv;
        case OpKind::Max:
            return Opcode::TMax;
        case OpKind::Min:
            return Opcode::TMin;
        default:
            return Opcode::TCmp;
        }
    }
    static std::optional<Opcode> rowExpandOpcode(OpKind k) {
        switch (k) {
        case OpKind::Add:
            return Opcode::TRowExpandAdd;
        case OpKind::Sub:
            return Opcode::TRowExpandSub;
        case OpKind::Mul:
            return Opcode::TRowExpandMul;
        case OpKind::Div:
            return Opcode::TRowExpandDiv;
        case OpKind::Max:
            return Opcode::TRowExpandMax;
        default:
            return std::nullopt;
        }
    }
    static std::optional<Opcode> scalarOpcode(OpKind k) {
        switch (k) {
        case OpKind::AddS:
            return Opcode::TAddS;
        case OpKind::SubS:
            return Opcode::TSubS;
        case OpKind::MulS:
            return Opcode::TMulS;
        case OpKind::DivS:
            return Opcode::TDivS;
        case OpKind::MaxS:
            return Opcode::TMaxS;
        case OpKind::MinS:
            return Opcode::TMinS;
        case OpKind::CmpS:
            return Opcode::TCmpS;
        default:
            return std::nullopt;
        }
    }
    static std::optional<Opcode> unaryOpcode(OpKind k) {
        switch (k) {
        case OpKind::Exp:
            return Opcode::TExp;
        case OpKind::Log:
            return Opcode::TLog;
        case OpKind::Sqrt:
            return Opcode::TSqrt;
        case OpKind::Rsqrt:
            return Opcode::TRsqrt;
        case OpKind::Reciprocal:
            return Opcode::TRecip;
        case OpKind::Abs:
            return Opcode::TAbs;
        case OpKind::Neg:
            return Opcode::TNeg;
        case OpKind::Relu:
            return Opcode::TRelu;
        default:
            return std::nullopt;
        }
    }

    const BlockProgram& m_program;
    const Function& m_tile;
    const BlockFunction& m_block;
    const PtoProgram& m_out;
    const std::vector<uint32_t>& m_gmIndex;
    std::vector<Instr>* m_instrs = nullptr;
};

// Per value of `f`: whether a tstore or tscatter_add of `f` or of a loop body in it writes it
// (a body writes an outer value through its capture argument).
std::vector<char> storedValues(const Function& f) {
    std::vector<char> stored(f.valueCount(), 0);
    for (const Op& op : f.ops()) {
        if ((op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) && op.operands.size() > 1)
            stored[op.operands[1]] = 1;
        if (op.kind != OpKind::For || op.body.empty()) continue;
        const Function& body = op.body[0];
        const std::vector<char> inner = storedValues(body);
        // body.args = [induction variable, iter_args..., captures...] ↔ op.operands[j - 1]
        for (size_t j = 1; j < body.args.size() && j - 1 < op.operands.size(); ++j)
            if (inner[body.args[j]]) stored[op.operands[j - 1]] = 1;
    }
    return stored;
}

} // namespace

void markStoredArguments(PtoProgram& program, const Function& asWritten) {
    const std::vector<char> stored = storedValues(asWritten);
    for (size_t i = 0; i < asWritten.args.size() && i < program.gm.size(); ++i)
        if (stored[asWritten.args[i]] && program.gm[i].role == GmRole::Input)
            program.gm[i].role = GmRole::InOut;
}

PtoProgram emitPto(const BlockProgram& program, const ExecGraph& exec) {
    PtoProgram out;
    out.name = program.tile.name;
    std::vector<uint32_t> gmIndex(program.tile.valueCount(), kNoId);
    layOutGm(program.tile, out, gmIndex);
    out.kernels.reserve(program.blocks.size());
    for (const BlockFunction& block : program.blocks)
        out.kernels.push_back(KernelEmitter(program, block, out, gmIndex).run());
    out.exec = exec;
    return out;
}

} // namespace pto
