// The Tile-level reference interpreter: GM tensors as byte arrays, tiles as SSA values.
#include "compiler/interp/TileInterpreter.h"

#include "compiler/interp/Kernels.h"

#include <cstring>

namespace pto {
namespace {

// Where a tile sits inside its container (a GM tensor, or the source tile of a tmove): both
// addressed through views of one rank, the tile's corner being all zeros.
struct Region {
    Shape containerView;
    std::vector<int64_t> corner;
    Shape tileView;
    std::vector<int64_t> zeros;
};

// The rows × cols view of a shape (leading dims folded into rows).
Shape matrixView(const Shape& s) {
    return Shape{s.rows(), s.cols()};
}

// The region of a tile of shape `tile` at `offset` (rank of `container`), or nullopt when the
// offset has the wrong rank or the tile does not fit (an empty tile never fits).
std::optional<Region> locate(const Shape& tile, const Shape& container,
                             std::span<const int64_t> offset) {
    if (int(offset.size()) != container.rank()) return std::nullopt;
    if (tile.numel() <= 0 || container.numel() <= 0) return std::nullopt;
    Region r;
    if (tile.rank() == container.rank()) {
        r.containerView = container;
        r.tileView = tile;
        r.corner.assign(offset.begin(), offset.end());
    } else {
        r.containerView = matrixView(container);
        r.tileView = matrixView(tile);
        int64_t row = 0;
        for (int d = 0; d + 1 < container.rank(); ++d) {
            if (offset[size_t(d)] < 0 || offset[size_t(d)] >= container[d]) return std::nullopt;
            row = row * container[d] + offset[size_t(d)];
        }
        r.corner = {row, container.rank() == 0 ? 0 : offset.back()};
    }
    for (int d = 0; d < r.tileView.rank(); ++d) {
        const int64_t c = r.corner[size_t(d)];
        if (c < 0 || c + r.tileView[d] > r.containerView[d]) return std::nullopt;
    }
    r.zeros.assign(size_t(r.tileView.rank()), 0);
    return r;
}

// Evaluates one Tile-level function. GM values are mutable state; tiles are SSA.
class TileEval {
public:
    TileEval(const Function& fn, bool keepValues)
        : m_fn(fn), m_keep(keepValues), m_values(fn.valueCount()),
          m_defined(fn.valueCount(), false), m_isGm(fn.valueCount(), false),
          m_isResult(fn.valueCount(), false), m_lastUse(fn.valueCount(), kNoId) {
        for (ValueId v : fn.results)
            if (v < m_isResult.size()) m_isResult[v] = true;
        for (const Op& op : fn.ops())
            for (ValueId v : op.operands)
                if (v < m_lastUse.size()) m_lastUse[v] = op.id;
    }

    EvalResult run(std::span<const TensorData> inputs) {
        // Arguments are GM tensors, except in a loop body: its induction variable and the tiles
        // it carries or captures.
        for (size_t i = 0; i < inputs.size(); ++i)
            define(m_fn.args[i], inputs[i], m_fn.type(m_fn.args[i]).space == MemSpace::GM);
        for (const Op& op : m_fn.ops()) {
            step(op);
            if (!m_keep) release(op);
        }
        EvalResult out;
        for (ValueId v : m_fn.results) {
            if (v >= m_fn.valueCount() || !m_defined[v])
                throw CompileError("", m_fn.loc,
                                   "@" + m_fn.name + " returns " + valueRef(m_fn, v) +
                                       ", which is never defined");
            out.outputs.push_back(m_values[v]);
        }
        if (m_keep) out.values = std::move(m_values);
        return out;
    }

private:
    [[noreturn]] void fail(const Op& op, const std::string& message) const {
        std::string who(opName(op.kind));
        if (op.result != kNoId && op.result < m_fn.valueCount())
            who += " " + valueRef(m_fn, op.result);
        throw CompileError("", op.loc, who + ": " + message);
    }

    std::string describe(ValueId v) const {
        return valueRef(m_fn, v) + " (" + typeString(m_values[v]) + ")";
    }

    void define(ValueId v, TensorData data, bool gm) {
        m_values[v] = std::move(data);
        m_defined[v] = true;
        m_isGm[v] = gm;
    }

    const TensorData& operand(const Op& op, size_t i) const {
        if (i >= op.operands.size())
            fail(op, "takes more than " + std::to_string(op.operands.size()) + " operands");
        const ValueId v = op.operands[i];
        if (v >= m_fn.valueCount() || !m_defined[v])
            fail(op, "uses " + valueRef(m_fn, v) + " before it is defined");
        return m_values[v];
    }

    void expectOperands(const Op& op, size_t n) const {
        if (op.operands.size() != n)
            fail(op, "takes " + std::to_string(n) + " operands, got " +
                         std::to_string(op.operands.size()));
    }

    const Type& resultType(const Op& op) const {
        if (op.result == kNoId || op.result >= m_fn.valueCount()) fail(op, "has no result value");
        return m_fn.type(op.result);
    }

    // The op's offset; with induction-variable operands, this iteration's (affine) offset.
    std::vector<int64_t> offsetAttr(const Op& op) const {
        std::optional<std::vector<int64_t>> offset = op.attrs.getInts("offset");
        if (!offset) fail(op, "needs an attribute 'offset'");
        if (!hasAffineOffsets(op)) return *offset;
        std::vector<int64_t> ivs;
        for (size_t i = *affineOperandBase(op.kind); i < op.operands.size(); ++i)
            ivs.push_back(ivValue(op, i));
        return affineViewOffsets(op, ivs);
    }

    Region region(const Op& op, const Shape& tile, ValueId container,
                  std::span<const int64_t> offset) const {
        std::optional<Region> r = locate(tile, m_values[container].shape, offset);
        if (!r)
            fail(op, "tile " + tile.str() + " at offset " + formatInts(offset) + " is not inside " +
                         describe(container));
        return *r;
    }

    void step(const Op& op) {
        switch (op.kind) {
        case OpKind::GmTensor: {
            const Type& t = resultType(op);
            define(op.result, TensorData(t.dtype, t.shape), true);
            return;
        }
        case OpKind::TLoad:
            return load(op);
        case OpKind::TMove:
            return move(op);
        case OpKind::TStore:
            return store(op);
        case OpKind::MatmulAcc:
            return matmulAcc(op);
        case OpKind::Gather:
            return gather(op);
        case OpKind::TScatterAdd:
            return scatterAdd(op);
        case OpKind::VecTile:
        case OpKind::CubeTile:
            return;
        case OpKind::For:
            return loop(op);
        default:
            return compute(op);
        }
    }

    // A `for`: the body runs once per iteration on [i, carried tiles, captures]. GM tensors
    // it captures are shared: what its tstores write is read back after every iteration.
    void loop(const Op& op) {
        if (op.body.size() != 1) fail(op, "needs exactly one body");
        const Function& body = op.body.front();
        const size_t n = loopIterArgCount(op);
        std::vector<TensorData> inputs(1 + op.operands.size());
        for (size_t i = 0; i < op.operands.size(); ++i) inputs[1 + i] = operand(op, i);
        const int64_t lower = op.attrs.getInt("lower"), step = op.attrs.getInt("step", 1);
        for (int64_t t = 0, trips = loopTripCount(op); t < trips; ++t) {
            inputs[0] = TensorData(DType::I32, Shape{});
            const int32_t iv = int32_t(lower + t * step);
            std::memcpy(inputs[0].data(), &iv, sizeof iv);
            EvalResult r = evaluateTile(body, inputs, true);
            for (size_t k = 0; k < n; ++k) inputs[1 + k] = std::move(r.outputs[k]);
            for (size_t c = n; c < op.operands.size(); ++c)
                if (m_isGm[op.operands[c]]) inputs[1 + c] = std::move(r.values[body.args[1 + c]]);
        }
        for (size_t k = 0; k < n; ++k) define(op.results[k], std::move(inputs[1 + k]), false);
        for (size_t c = n; c < op.operands.size(); ++c)
            if (m_isGm[op.operands[c]]) m_values[op.operands[c]] = std::move(inputs[1 + c]);
    }

    // The number an induction-variable operand holds.
    int64_t ivValue(const Op& op, size_t i) const {
        const TensorData& t = operand(op, i);
        int32_t v = 0;
        if (t.dtype != DType::I32 || t.bytes.size() < sizeof v)
            fail(op, "offset operand " + std::to_string(i) + " is not an induction variable");
        std::memcpy(&v, t.data(), sizeof v);
        return v;
    }

    // tload %g and tmove %s: the region of operand 0 at `offset`, as the result type.
    void extract(const Op& op, bool fromGm) {
        expectOperands(op, fromGm ? op.operands.size() : 1);
        operand(op, 0);
        const ValueId src = op.operands[0];
        if (fromGm && !m_isGm[src])
            fail(op, "loads from " + describe(src) +
                         ", which is not a GM tensor (an argument or a gm_tensor)");
        if (!fromGm && m_isGm[src])
            fail(op, "moves from GM tensor " + describe(src) + "; use tload");
        const Type& t = resultType(op);
        // A tmove's offset is optional (the whole tile, or its corner: [0, 0], as emit-pto reads
        // it); a tload needs one.
        const std::vector<int64_t> offset =
            !fromGm && !op.attrs.has("offset")
                ? std::vector<int64_t>(size_t(m_values[src].shape.rank()), 0)
                : offsetAttr(op);
        const Region r = region(op, t.shape, src, offset);
        TensorData tile(t.dtype, t.shape);
        copyBox(m_values[src], r.containerView, r.corner, tile, r.tileView, r.zeros, r.tileView);
        define(op.result, std::move(tile), false);
    }

    void load(const Op& op) { extract(op, true); }
    void move(const Op& op) { extract(op, false); }

    void store(const Op& op) {
        if (op.operands.size() < 2) expectOperands(op, 2);
        const TensorData& tile = operand(op, 0);
        operand(op, 1);
        const ValueId gm = op.operands[1];
        if (!m_isGm[gm])
            fail(op, "stores into " + describe(gm) +
                         ", which is not a GM tensor (an argument or a gm_tensor)");
        const std::vector<int64_t> offset = offsetAttr(op);
        const Region r = region(op, tile.shape, gm, offset);
        copyBox(tile, r.tileView, r.zeros, m_values[gm], r.containerView, r.corner, r.tileView);
    }

    // gather %g, %idx {offset = [0, c]}: row idx[i] of %g's rows × cols view, columns
    // [c, c + cols), into row i of the tile; an index outside the rows is an error.
    void gather(const Op& op) {
        expectOperands(op, 2);
        const TensorData& src = operand(op, 0);
        const TensorData& index = operand(op, 1);
        if (!m_isGm[op.operands[0]])
            fail(op, "gathers from " + describe(op.operands[0]) +
                         ", which is not a GM tensor (an argument or a gm_tensor)");
        const Type& t = resultType(op);
        const std::vector<int64_t> offset =
            op.attrs.getInts("offset").value_or(std::vector<int64_t>(size_t(src.shape.rank()), 0));
        // The rows of the matrix the leading offsets pick (the whole tensor when rank 2).
        const int rank = src.shape.rank();
        const int64_t rows = rank >= 2 ? src.shape[rank - 2] : src.shape.rows();
        const int64_t cols = src.shape.cols();
        const int64_t col = offset.empty() ? 0 : offset.back();
        int64_t first = 0;
        for (int d = 0; d + 2 < rank && d < int(offset.size()); ++d)
            first = first * src.shape[d] + offset[size_t(d)];
        first *= rows;
        if (index.dtype != DType::I32 || index.numel() != t.shape.rows() || col < 0 ||
            col + t.shape.cols() > cols || t.dtype != src.dtype)
            fail(op, "tile " + typeString(t.dtype, t.shape) + " at column " + std::to_string(col) +
                         " cannot gather from " + describe(op.operands[0]) + " by " +
                         describe(op.operands[1]));
        TensorData tile(t.dtype, t.shape);
        const size_t elem = size_t(src.elementSize());
        const size_t run = size_t(t.shape.cols()) * elem;
        for (int64_t i = 0; i < index.numel(); ++i) {
            int32_t k = 0;
            std::memcpy(&k, index.data() + i * 4, 4);
            if (k < 0 || k >= rows)
                fail(op, "index " + std::to_string(k) + " at element " + std::to_string(i) +
                             " of " + describe(op.operands[1]) + " is outside the " +
                             std::to_string(rows) + " rows of " + describe(op.operands[0]));
            std::memcpy(tile.data() + size_t(i) * run,
                        src.data() + (size_t(first + k) * size_t(cols) + size_t(col)) * elem, run);
        }
        define(op.result, std::move(tile), false);
    }

    // tscatter_add %t, %g, %idx {offset = [0, c]}: row i of the tile added into row idx[i] of
    // %g's rows × cols view at columns [c, c + cols), rows in order (accumulateRow); an index
    // outside the rows is an error.
    void scatterAdd(const Op& op) {
        expectOperands(op, 3);
        const TensorData& tile = operand(op, 0);
        const TensorData& index = operand(op, 2);
        if (!m_isGm[op.operands[1]])
            fail(op, "scatters into " + describe(op.operands[1]) +
                         ", which is not a GM tensor (an argument or a gm_tensor)");
        TensorData& dst = m_values[op.operands[1]];
        const std::vector<int64_t> offset =
            op.attrs.getInts("offset").value_or(std::vector<int64_t>(size_t(dst.shape.rank()), 0));
        const int64_t rows = dst.shape.rows(), cols = dst.shape.cols();
        const int64_t col = offset.empty() ? 0 : offset.back();
        if (index.dtype != DType::I32 || index.numel() != tile.shape.rows() || col < 0 ||
            col + tile.shape.cols() > cols || tile.dtype != dst.dtype)
            fail(op, "tile " + typeString(tile.dtype, tile.shape) + " at column " +
                         std::to_string(col) + " cannot scatter into " + describe(op.operands[1]) +
                         " by " + describe(op.operands[2]));
        const size_t elem = size_t(dst.elementSize());
        const size_t run = size_t(tile.shape.cols()) * elem;
        for (int64_t i = 0; i < index.numel(); ++i) {
            int32_t k = 0;
            std::memcpy(&k, index.data() + i * 4, 4);
            if (k < 0 || k >= rows)
                fail(op, "index " + std::to_string(k) + " at element " + std::to_string(i) +
                             " of " + describe(op.operands[2]) + " is outside the " +
                             std::to_string(rows) + " rows of " + describe(op.operands[1]));
            accumulateRow(dst.data() + (size_t(k) * size_t(cols) + size_t(col)) * elem,
                          tile.data() + size_t(i) * run, dst.dtype, tile.shape.cols());
        }
    }

    void matmulAcc(const Op& op) {
        expectOperands(op, 3);
        const TensorData& acc = operand(op, 0);
        const TensorData& a = operand(op, 1);
        const TensorData& b = operand(op, 2);
        const bool ta = op.attrs.getBool("transpose_a");
        const bool tb = op.attrs.getBool("transpose_b");
        const std::optional<Shape> shape = matmulShape(a.shape, b.shape, ta, tb);
        if (!shape || *shape != acc.shape)
            fail(op, "cannot accumulate " + describe(op.operands[1]) + " · " +
                         describe(op.operands[2]) + " into " + describe(op.operands[0]));
        const Type& t = resultType(op);
        if (t.shape != acc.shape)
            fail(op, "result type " + typeString(t.dtype, t.shape) + " differs from accumulator " +
                         describe(op.operands[0]));
        define(op.result, matmulAccData(acc, a, b, ta, tb, t.dtype), false);
    }

    void compute(const Op& op) {
        m_operands.clear();
        for (size_t i = 0; i < op.operands.size(); ++i) m_operands.push_back(&operand(op, i));
        TensorData result = evaluateComputeOp(m_fn, op, m_operands);
        define(op.result, std::move(result), false);
    }

    // Drops tiles whose last reader was `op` (GM tensors and results stay).
    void release(const Op& op) {
        for (ValueId v : op.operands)
            if (m_lastUse[v] == op.id && !m_isGm[v] && !isResult(v)) m_values[v] = TensorData{};
        if (op.result != kNoId && m_lastUse[op.result] == kNoId && !m_isGm[op.result] &&
            !isResult(op.result))
            m_values[op.result] = TensorData{};
    }

    bool isResult(ValueId v) const { return m_isResult[v]; }

    const Function& m_fn;
    bool m_keep;
    std::vector<TensorData> m_values;
    std::vector<bool> m_defined;
    std::vector<bool> m_isGm;
    std::vector<bool> m_isResult;
    std::vector<uint32_t> m_lastUse;
    std::vector<const TensorData*> m_operands;
};

} // namespace

EvalResult evaluateTile(const Function& tile, std::span<const TensorData> inputs, bool keepValues) {
    if (tile.level != Level::Tile)
        throw CompileError("", tile.loc,
                           "@" + tile.name + " is a tensor-level function; use evaluateTensor");
    checkInputs(tile, inputs);
    return TileEval(tile, keepValues).run(inputs);
}

} // namespace pto
