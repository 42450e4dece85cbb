// Tile interpreter: hand-built tile graphs (tiled elementwise, tiled softmax with row
// broadcast, tiled matmul with k accumulation through tmove sub-tiles) against the Tensor
// interpreter on the equivalent Tensor function; GM region rules, errors, speed.
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/Parser.h"
#include "tests/support/HandWrittenKernels.h"
#include "tests/support/TestTensors.h"
#include "tests/unit/interp/ReferenceHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace pto::test {
namespace {

using Ints = std::vector<int64_t>;

// Builds Tile-level functions op by op, as expand-tiles / insert-copies would.
class TileBuilder {
public:
    explicit TileBuilder(std::string name, MemSpace ub = MemSpace::UB) : m_ub(ub) {
        m_fn.name = std::move(name);
        m_fn.level = Level::Tile;
    }

    ValueId arg(DType dtype, Shape shape, std::string name) {
        return m_fn.addArg(Type{dtype, shape, MemSpace::GM}, std::move(name));
    }
    // An output gm_tensor; also becomes the next function result.
    ValueId output(DType dtype, Shape shape, std::string name) {
        Op op;
        op.kind = OpKind::GmTensor;
        op.attrs.set("role", std::string("output"));
        const ValueId v = emit(op, Type{dtype, shape, MemSpace::GM}, std::move(name));
        m_fn.results.push_back(v);
        return v;
    }
    ValueId load(ValueId gm, Shape tile, Ints offset, MemSpace space) {
        Op op;
        op.kind = OpKind::TLoad;
        op.operands = {gm};
        op.attrs.set("offset", std::move(offset));
        return emit(op, Type{m_fn.type(gm).dtype, tile, space});
    }
    ValueId load(ValueId gm, Shape tile, Ints offset) { return load(gm, tile, offset, m_ub); }
    ValueId move(ValueId src, Shape tile, Ints offset, MemSpace space) {
        Op op;
        op.kind = OpKind::TMove;
        op.operands = {src};
        op.attrs.set("offset", std::move(offset));
        return emit(op, Type{m_fn.type(src).dtype, tile, space});
    }
    ValueId op(OpKind kind, std::vector<ValueId> operands, DType dtype, Shape shape,
               Attrs attrs = {}, std::optional<MemSpace> space = std::nullopt) {
        Op op;
        op.kind = kind;
        op.operands = std::move(operands);
        op.attrs = std::move(attrs);
        return emit(op, Type{dtype, shape, space.value_or(m_ub)});
    }
    void store(ValueId tile, ValueId gm, Ints offset) {
        Op op;
        op.kind = OpKind::TStore;
        op.operands = {tile, gm};
        op.attrs.set("offset", std::move(offset));
        m_fn.addOp(op);
    }
    const Type& type(ValueId v) const { return m_fn.type(v); }
    Function take() { return std::move(m_fn); }

private:
    ValueId emit(const Op& op, const Type& t, std::string name = {}) {
        return m_fn.op(m_fn.addOp(op, &t, std::move(name))).result;
    }

    Function m_fn;
    MemSpace m_ub;
};

Attrs attrs(std::initializer_list<std::pair<const char*, AttrValue>> items) {
    Attrs a;
    for (const auto& [name, value] : items) a.set(name, value);
    return a;
}

// The Tensor-level function `out = kind(in0, in1...)` with the given result type.
Function tensorOp(OpKind kind, const std::vector<Type>& inputs, Type result, Attrs a = {}) {
    Function fn;
    fn.name = "tensor";
    Op op;
    op.kind = kind;
    op.attrs = std::move(a);
    for (size_t i = 0; i < inputs.size(); ++i)
        op.operands.push_back(fn.addArg(inputs[i], "in" + std::to_string(i)));
    fn.results.push_back(fn.op(fn.addOp(op, &result, "out")).result);
    return fn;
}

// out = a + bias over [rows, cols] (bias [1, cols]) in tiles of tr × tc.
Function tiledBiasAdd(DType dtype, int64_t rows, int64_t cols, int64_t tr, int64_t tc,
                      MemSpace ub) {
    TileBuilder b("tiled_add", ub);
    const ValueId a = b.arg(dtype, {rows, cols}, "a");
    const ValueId bias = b.arg(dtype, {1, cols}, "bias");
    const ValueId out = b.output(dtype, {rows, cols}, "out");
    for (int64_t i = 0; i < rows; i += tr)
        for (int64_t j = 0; j < cols; j += tc) {
            const ValueId ta = b.load(a, {tr, tc}, {i, j});
            const ValueId tb = b.load(bias, {1, tc}, {0, j}); // column broadcast [1 × c]
            b.store(b.op(OpKind::Add, {ta, tb}, dtype, {tr, tc}), out, {i, j});
        }
    return b.take();
}

TEST(TileInterpreter, TiledElementwiseIsBitExact) {
    for (MemSpace ub : {MemSpace::UB, MemSpace::None}) { // before assign-memory: space None
        const std::vector<TensorData> in = {randomTensor(DType::F16, {64, 128}, 1),
                                            randomTensor(DType::F16, {1, 128}, 2)};
        const EvalResult tile = evaluateTile(tiledBiasAdd(DType::F16, 64, 128, 32, 64, ub), in);
        const EvalResult ref =
            evaluateTensor(tensorOp(OpKind::Add, {{DType::F16, {64, 128}}, {DType::F16, {1, 128}}},
                                    {DType::F16, {64, 128}}),
                           in);
        ASSERT_EQ(tile.outputs.size(), 1u);
        EXPECT_EQ(tile.outputs[0], ref.outputs[0]); // same op, same rounding: identical bits
    }
}

// Row softmax of [rows, cols] in row blocks of tr: max and sum are per-row reductions
// (TROWMAX/TROWSUM, [tr × 1]) and sub/div broadcast them along the row (TROWEXPAND…).
// With upcast, f16 data is cast to f32 first and the result cast back once.
Function tiledSoftmax(DType dtype, int64_t rows, int64_t cols, int64_t tr) {
    TileBuilder b("tiled_softmax");
    const ValueId x = b.arg(dtype, {rows, cols}, "x");
    const ValueId out = b.output(dtype, {rows, cols}, "y");
    const Shape full{tr, cols};
    const Shape col{tr, 1};
    const Attrs rowReduce = attrs({{"axis", int64_t{1}}, {"keepdim", true}});
    for (int64_t i = 0; i < rows; i += tr) {
        ValueId t = b.load(x, full, {i, 0});
        if (dtype != DType::F32) t = b.op(OpKind::Cast, {t}, DType::F32, full);
        const ValueId m = b.op(OpKind::ReduceMax, {t}, DType::F32, col, rowReduce);
        const ValueId e =
            b.op(OpKind::Exp, {b.op(OpKind::Sub, {t, m}, DType::F32, full)}, DType::F32, full);
        const ValueId s = b.op(OpKind::ReduceSum, {e}, DType::F32, col, rowReduce);
        ValueId y = b.op(OpKind::Div, {e, s}, DType::F32, full);
        if (dtype != DType::F32) y = b.op(OpKind::Cast, {y}, dtype, full);
        b.store(y, out, {i, 0});
    }
    return b.take();
}

TEST(TileInterpreter, TiledSoftmaxWithRowBroadcastIsBitExact) {
    // The decomposition runs the same f32 operations in the same order as the Tensor-level
    // composite and rounds once at the end, so the bits agree for f32 and for f16 in/out.
    for (DType dtype : {DType::F32, DType::F16}) {
        const std::vector<TensorData> in = {randomTensor(dtype, {64, 128}, 3, {-6, 6})};
        const EvalResult tile = evaluateTile(tiledSoftmax(dtype, 64, 128, 16), in);
        const EvalResult ref =
            evaluateTensor(tensorOp(OpKind::Softmax, {{dtype, {64, 128}}}, {dtype, {64, 128}}), in);
        EXPECT_EQ(tile.outputs[0], ref.outputs[0]) << dtypeName(dtype);
    }
}

using test::extremeInt8;

// C[M×N] = A[M×K] · B[K×N]: per (m, n) tile, per k L1 tile: tload A and B into L1, then per
// k L0 tile: tmove the sub-tiles into L0A/L0B and matmul / matmul_acc into the L0C tile;
// finally tstore L0C → GM (rounding f32 → C's dtype).
struct MatmulTiling {
    int64_t m, k, n;  // problem
    int64_t mt, nt;   // L0C tile
    int64_t kL1, kL0; // k tiles
};

Function tiledMatmul(DType in, DType acc, DType out, const MatmulTiling& t) {
    TileBuilder b("tiled_matmul");
    const ValueId a = b.arg(in, {t.m, t.k}, "a");
    const ValueId w = b.arg(in, {t.k, t.n}, "b");
    const ValueId c = b.output(out, {t.m, t.n}, "c");
    for (int64_t i = 0; i < t.m; i += t.mt)
        for (int64_t j = 0; j < t.n; j += t.nt) {
            ValueId accum = kNoId;
            for (int64_t p = 0; p < t.k; p += t.kL1) {
                const ValueId aL1 = b.load(a, {t.mt, t.kL1}, {i, p}, MemSpace::L1);
                const ValueId bL1 = b.load(w, {t.kL1, t.nt}, {p, j}, MemSpace::L1);
                for (int64_t q = 0; q < t.kL1; q += t.kL0) {
                    const ValueId a0 = b.move(aL1, {t.mt, t.kL0}, {0, q}, MemSpace::L0A);
                    const ValueId b0 = b.move(bL1, {t.kL0, t.nt}, {q, 0}, MemSpace::L0B);
                    accum = accum == kNoId ? b.op(OpKind::Matmul, {a0, b0}, acc, {t.mt, t.nt}, {},
                                                  MemSpace::L0C)
                                           : b.op(OpKind::MatmulAcc, {accum, a0, b0}, acc,
                                                  {t.mt, t.nt}, {}, MemSpace::L0C);
                }
            }
            b.store(accum, c, {i, j});
        }
    return b.take();
}

EvalResult tensorMatmul(DType in, DType out, int64_t m, int64_t k, int64_t n,
                        const std::vector<TensorData>& inputs) {
    return evaluateTensor(tensorOp(OpKind::Matmul, {{in, {m, k}}, {in, {k, n}}}, {out, {m, n}}),
                          inputs);
}

TEST(TileInterpreter, TiledMatmulWithKAccumulation) {
    const MatmulTiling t{64, 256, 96, 32, 48, 128, 32};
    const std::vector<TensorData> in = {randomTensor(DType::F16, {64, 256}, 4),
                                        randomTensor(DType::F16, {256, 96}, 5)};
    // f32 output: the k sum is grouped per k tile (partial product, then accumulate), the
    // Tensor level sums in one run; both are f32 sums of 256 terms |a·b| < 1, so they differ
    // by a few f32 ulps of partial sums ≤ ~16: well inside atol 1e-5.
    const EvalResult tileF32 = evaluateTile(tiledMatmul(DType::F16, DType::F32, DType::F32, t), in);
    const EvalResult refF32 = tensorMatmul(DType::F16, DType::F32, 64, 256, 96, in);
    EXPECT_EQ(compareTensors(tileF32.outputs[0], refF32.outputs[0], {1.3e-6, 1e-5}), "");
    // f16 output: tstore rounds the f32 accumulator RNE; the Tensor level rounds its f32 sum
    // once; the two f32 sums differ by ulps, so at most one f16 rounding flips.
    const EvalResult tileF16 = evaluateTile(tiledMatmul(DType::F16, DType::F32, DType::F16, t), in);
    const EvalResult refF16 = tensorMatmul(DType::F16, DType::F16, 64, 256, 96, in);
    EXPECT_EQ(compareTensors(tileF16.outputs[0], refF16.outputs[0], {1e-3, 1e-5}), "");
    // And rounding the tiled f32 result to f16 gives exactly the tiled f16 result.
    const TensorData rounded =
        TensorData::fromFloats(DType::F16, {64, 96}, tileF32.outputs[0].toFloats());
    EXPECT_EQ(rounded, tileF16.outputs[0]);
}

TEST(TileInterpreter, SingleKTileMatmulIsBitExact) {
    // One k tile: the same k order as the Tensor level, so identical bits.
    const MatmulTiling t{64, 64, 64, 32, 32, 64, 64};
    const std::vector<TensorData> in = {randomTensor(DType::BF16, {64, 64}, 6),
                                        randomTensor(DType::BF16, {64, 64}, 7)};
    const EvalResult tile = evaluateTile(tiledMatmul(DType::BF16, DType::F32, DType::BF16, t), in);
    EXPECT_EQ(tile.outputs[0], tensorMatmul(DType::BF16, DType::BF16, 64, 64, 64, in).outputs[0]);
}

TEST(TileInterpreter, TiledInt8MatmulIsExact) {
    const MatmulTiling t{32, 512, 32, 16, 16, 256, 64};
    const std::vector<TensorData> in = {randomTensor(DType::I8, {32, 512}, 8),
                                        randomTensor(DType::I8, {512, 32}, 9)};
    const EvalResult tile = evaluateTile(tiledMatmul(DType::I8, DType::I32, DType::I32, t), in);
    EXPECT_EQ(tile.outputs[0], tensorMatmul(DType::I8, DType::I32, 32, 512, 32, in).outputs[0]);
}

TEST(TileInterpreter, Int8MatmulAccumulatesExactlyInInt32AtK4096) {
    // 4 k tiles of 1024 (matmul, then matmul_acc into the i32 L0C tile) at the extremes: the
    // sums reach ±2^26, so only an exact int32 accumulation matches NumPy's int64 matmul.
    const MatmulTiling t{16, 4096, 16, 16, 16, 2048, 1024};
    const std::vector<TensorData> in = {extremeInt8(16, 4096, false, 1),
                                        extremeInt8(4096, 16, true, 2)};
    const EvalResult tile = evaluateTile(tiledMatmul(DType::I8, DType::I32, DType::I32, t), in);
    OpCase c;
    c.name = "mm_i8_k4096";
    c.kind = OpKind::Matmul;
    c.inputs = in;
    c.resultDType = DType::I32;
    c.resultShape = {16, 16};
    const TensorData want = runReference({c}).at(0);
    EXPECT_EQ(tile.outputs[0], want);
    EXPECT_EQ(tensorMatmul(DType::I8, DType::I32, 16, 4096, 16, in).outputs[0], want);
    // The test is sensitive: an f32 accumulation of row 0 · column 0 (4096 × 127²) is not exact.
    float f32Sum = 0.0f;
    for (int i = 0; i < 4096; ++i) f32Sum += 127.0f * 127.0f;
    EXPECT_EQ(want.get(0), float(4096 * 127 * 127));
    EXPECT_NE(f32Sum, float(4096 * 127 * 127));
}

TEST(TileInterpreter, Matmul512CubedUnderTwoSeconds) {
    // Default cube tiles [128,128],[64,256],[128,128]: 128 tile matmuls of 128×64×128.
    const MatmulTiling t{512, 512, 512, 128, 128, 256, 64};
    const Function fn = tiledMatmul(DType::F16, DType::F32, DType::F16, t);
    const std::vector<TensorData> in = {randomTensor(DType::F16, {512, 512}, 10),
                                        randomTensor(DType::F16, {512, 512}, 11)};
    const auto start = std::chrono::steady_clock::now();
    const EvalResult tile = evaluateTile(fn, in);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RecordProperty("seconds", std::to_string(seconds));
    std::printf("512^3 f16 tile matmul (%zu ops): %.3f s\n", fn.ops().size(), seconds);
#ifdef NDEBUG
    RecordProperty("seconds", std::to_string(seconds)); // speed lives in bench/
#endif
    const EvalResult ref = tensorMatmul(DType::F16, DType::F16, 512, 512, 512, in);
    EXPECT_EQ(compareTensors(tile.outputs[0], ref.outputs[0], {1e-3, 1e-5}), "");
}

TEST(TileInterpreter, KeepValuesRecordsEveryTile) {
    const MatmulTiling t{32, 64, 32, 32, 32, 64, 32};
    const Function fn = tiledMatmul(DType::F16, DType::F32, DType::F32, t);
    const std::vector<TensorData> in = {randomTensor(DType::F16, {32, 64}, 12),
                                        randomTensor(DType::F16, {64, 32}, 13)};
    const EvalResult r = evaluateTile(fn, in, true);
    ASSERT_EQ(r.values.size(), fn.valueCount());
    for (const Op& op : fn.ops()) {
        if (op.result == kNoId) continue;
        EXPECT_EQ(r.values[op.result].shape, fn.type(op.result).shape) << op.id;
        EXPECT_EQ(r.values[op.result].dtype, fn.type(op.result).dtype) << op.id;
    }
    // The last matmul_acc holds the accumulator that was stored; the output GM tensor its
    // final contents.
    const Op& last = fn.ops()[fn.ops().size() - 2];
    ASSERT_EQ(last.kind, OpKind::MatmulAcc);
    EXPECT_EQ(r.values[last.result], r.outputs[0]);
    EXPECT_EQ(r.values[fn.results[0]], r.outputs[0]);
    EXPECT_TRUE(evaluateTile(fn, in).values.empty());
}

TEST(TileInterpreter, TwoDimTilesOfRank3Tensors) {
    // GM [3, 4, 32] viewed as 12 rows × 32 columns: a 2-D tile spans contiguous rows, here
    // crossing from [0, 2, :] into [1, 1, :]; a rank-3 tile is a box.
    TileBuilder b("copy3d");
    const ValueId x = b.arg(DType::F32, {3, 4, 32}, "x");
    const ValueId y = b.output(DType::F32, {3, 4, 32}, "y");
    const ValueId t0 = b.load(x, {2, 32}, {0, 0, 0});
    const ValueId t1 = b.load(x, {4, 32}, {0, 2, 0});
    const ValueId t2 = b.load(x, {1, 2, 32}, {1, 2, 0});
    const ValueId t3 = b.load(x, {4, 32}, {2, 0, 0});
    b.store(t0, y, {0, 0, 0});
    b.store(t1, y, {0, 2, 0});
    b.store(t2, y, {1, 2, 0});
    b.store(t3, y, {2, 0, 0});
    const TensorData in = randomTensor(DType::F32, {3, 4, 32}, 14);
    const std::vector<TensorData> ins = {in};
    EXPECT_EQ(evaluateTile(b.take(), ins).outputs[0], in);
}

TEST(TileInterpreter, VectorOpsOnTiles) {
    // Column reduce, transpose, broadcast, fill, cmps/where, scalar op on 2-D tiles.
    TileBuilder b("vec");
    const ValueId x = b.arg(DType::F32, {16, 32}, "x");
    const ValueId out = b.output(DType::F32, {32, 16}, "out");
    const ValueId t = b.load(x, {16, 32}, {0, 0});
    const ValueId colMax = b.op(OpKind::ReduceMax, {t}, DType::F32, {1, 32},
                                attrs({{"axis", int64_t{0}}, {"keepdim", true}}));
    const ValueId full = b.op(OpKind::Broadcast, {colMax}, DType::F32, {16, 32});
    const ValueId isMax =
        b.op(OpKind::Cmp, {t, full}, DType::Bool, {16, 32}, attrs({{"pred", std::string("eq")}}));
    const ValueId zero = b.op(OpKind::Fill, {}, DType::F32, {16, 32}, attrs({{"value", 0.0}}));
    const ValueId sel = b.op(OpKind::Where, {isMax, t, zero}, DType::F32, {16, 32});
    const ValueId scaled =
        b.op(OpKind::MulS, {sel}, DType::F32, {16, 32}, attrs({{"scalar", 2.0}}));
    b.store(b.op(OpKind::Transpose, {scaled}, DType::F32, {32, 16}), out, {0, 0});
    const TensorData in = randomTensor(DType::F32, {16, 32}, 15);
    const std::vector<TensorData> ins = {in};
    const TensorData got = evaluateTile(b.take(), ins).outputs[0];
    for (int64_t c = 0; c < 32; ++c) {
        int64_t arg = 0;
        for (int64_t r = 1; r < 16; ++r)
            if (in.get(r * 32 + c) > in.get(arg * 32 + c)) arg = r;
        for (int64_t r = 0; r < 16; ++r)
            EXPECT_EQ(got.get(c * 16 + r), r == arg ? 2 * in.get(r * 32 + c) : 0.0f);
    }
}

// A row gather in two column strips (as expand-tiles splits wide rows) equals the Tensor
// interpreter's gather bit for bit, repeated indices included.
TEST(TileInterpreter, GatherColumnStripsMatchTheTensorGather) {
    TileBuilder b("gather");
    const ValueId x = b.arg(DType::BF16, {16, 40}, "x");
    const ValueId idx = b.arg(DType::I32, {1, 6}, "idx");
    const ValueId y = b.output(DType::BF16, {6, 40}, "y");
    const ValueId i = b.load(idx, {1, 6}, {0, 0});
    for (int64_t col : {0, 24}) {
        const int64_t cols = col == 0 ? 24 : 16;
        const ValueId g = b.op(OpKind::Gather, {x, i}, DType::BF16, {6, cols},
                               attrs({{"offset", std::vector<int64_t>{0, col}}}));
        b.store(g, y, {0, col});
    }
    const TensorData table = randomTensor(DType::BF16, {16, 40}, 17);
    TensorData index = randomTensor(DType::I32, {1, 6}, 18, {0.0, 15.0});
    index.set(5, index.get(0));
    const std::vector<TensorData> ins = {table, index};
    const TensorData got = evaluateTile(b.take(), ins).outputs[0];

    Function tensor;
    tensor.name = "gather";
    tensor.level = Level::Tensor;
    const ValueId tx = tensor.addArg(Type{DType::BF16, {16, 40}, MemSpace::None}, "x");
    const ValueId ti = tensor.addArg(Type{DType::I32, {6}, MemSpace::None}, "idx");
    Op op;
    op.kind = OpKind::Gather;
    op.operands = {tx, ti};
    op.attrs.set("axis", int64_t{0});
    const Type t{DType::BF16, {6, 40}, MemSpace::None};
    tensor.results.push_back(tensor.op(tensor.addOp(op, &t)).result);
    TensorData flat = index;
    flat.shape = Shape{6};
    const std::vector<TensorData> tensorIns = {table, flat};
    EXPECT_EQ(got, evaluateTensor(tensor, tensorIns).outputs[0]);
}

// The Tile-level topk, cumsum and tscatter_add (issue 16) on one tile each, odd sizes, against
// their definitions computed here: topk with ties (small-integer values) at k = n and k = 1,
// ties to the lower index; cumsum as a sequential f32 running sum down and along the rows;
// tscatter_add adding the rows in index order, duplicates included, onto the stored base.
TEST(TileInterpreter, TopkCumsumAndScatterAddTilesFollowTheirDefinitions) {
    const Function fn = parseFunctionText(R"(
func @ix(%b: tensor<7x13xf32>, %i: tensor<9xi32>, %x: tensor<9x13xf32>) -> (tensor<7x13xf32>, tensor<7x13xf32>, tensor<7x13xf32>, tensor<7x13xi32>, tensor<7x1xf32>) {
  %y = gm_tensor {role = "output"} : tensor<7x13xf32>
  %down = gm_tensor {role = "output"} : tensor<7x13xf32>
  %along = gm_tensor {role = "output"} : tensor<7x13xf32>
  %order = gm_tensor {role = "output"} : tensor<7x13xi32>
  %least = gm_tensor {role = "output"} : tensor<7x1xf32>
  %0 = tload %b {offset = [0, 0]} : tile<7x13xf32, UB>
  tstore %0, %y {offset = [0, 0]}
  %1 = tload %x {offset = [0, 0]} : tile<9x13xf32, UB>
  %2 = tload %i {offset = [0]} : tile<1x9xi32, UB>
  tscatter_add %1, %y, %2 {offset = [0, 0]}
  %3 = cumsum %0 {axis = 0}
  tstore %3, %down {offset = [0, 0]}
  %4 = cumsum %0 {axis = 1}
  tstore %4, %along {offset = [0, 0]}
  %5 = topk %0 {k = 13, axis = 1, indices}
  tstore %5, %order {offset = [0, 0]}
  %6 = topk %0 {k = 1, axis = 1, largest = false}
  tstore %6, %least {offset = [0, 0]}
  return %y, %down, %along, %order, %least
}
)",
                                          "<ix>");
    TensorData b = randomTensor(DType::F32, {7, 13}, 31, {-3.0, 3.0});
    for (int64_t e = 0; e < b.numel(); ++e) b.set(e, std::round(b.get(e))); // many ties
    TensorData idx(DType::I32, {9});
    const int rows[9] = {6, 0, 3, 3, 6, 1, 3, 0, 6};
    for (int64_t j = 0; j < 9; ++j) idx.set(j, float(rows[j]));
    const TensorData x = randomTensor(DType::F32, {9, 13}, 32);
    const std::vector<TensorData> in = {b, idx, x};
    const EvalResult got = evaluateTile(fn, in);
    ASSERT_EQ(got.outputs.size(), 5u);
    for (int64_t r = 0; r < 7; ++r) {
        std::vector<int64_t> order(13);
        for (int64_t c = 0; c < 13; ++c) order[size_t(c)] = c;
        std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
            return b.get(r * 13 + p) > b.get(r * 13 + q);
        });
        float least = b.get(r * 13), along = 0.0f;
        for (int64_t c = 0; c < 13; ++c) {
            const int64_t e = r * 13 + c;
            float y = b.get(e), down = 0.0f;
            for (int64_t j = 0; j < 9; ++j)
                if (rows[j] == r) y += x.get(j * 13 + c);
            for (int64_t rr = 0; rr <= r; ++rr) down += b.get(rr * 13 + c);
            along += b.get(e);
            least = std::min(least, b.get(e));
            EXPECT_EQ(got.outputs[0].get(e), y) << r << "," << c;
            EXPECT_EQ(got.outputs[1].get(e), down) << r << "," << c;
            EXPECT_EQ(got.outputs[2].get(e), along) << r << "," << c;
            EXPECT_EQ(got.outputs[3].get(e), float(order[size_t(c)])) << r << "," << c;
        }
        EXPECT_EQ(got.outputs[4].get(r), least) << r;
    }
}

// A hand-written cube kernel: tmove without an offset moves the whole L1 tile (as emit-pto
// reads it), and a K loop carries the L0C accumulator through matmul_acc into the argument it
// stores to. The sums against a double-precision one over the same f16 inputs.
TEST(TileInterpreter, AHandWrittenKLoopWithWholeTileMovesAccumulatesEveryBlock) {
    const Function fn = parseFunctionText(test::kKLoopKernel, "<kloop>");
    const TensorData a = randomTensor(DType::F16, {32, 256}, 41);
    const TensorData b = randomTensor(DType::F16, {256, 64}, 42);
    const std::vector<TensorData> in = {a, b, TensorData(DType::F32, {32, 64})};
    const EvalResult got = evaluateTile(fn, in, true);
    const TensorData& y = got.values.at(fn.args[2]);
    for (int64_t r = 0; r < 32; ++r)
        for (int64_t c = 0; c < 64; ++c) {
            double want = 0.0, scale = 0.0;
            for (int64_t k = 0; k < 256; ++k) {
                want += double(a.get(r * 256 + k)) * double(b.get(k * 64 + c));
                scale += std::abs(double(a.get(r * 256 + k)) * double(b.get(k * 64 + c)));
            }
            EXPECT_NEAR(y.get(r * 64 + c), want, 256 * 0x1p-24 * scale + 1e-6) << r << "," << c;
        }
}

std::string tileError(Function fn, const std::vector<TensorData>& in) {
    try {
        evaluateTile(fn, in);
    } catch (const CompileError& e) {
        return e.message();
    }
    return "<no error>";
}

TEST(TileInterpreterErrors, BadRegionsAndOperands) {
    const std::vector<TensorData> in = {randomTensor(DType::F32, {32, 32}, 16)};
    {
        TileBuilder b("oob");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        b.load(x, {16, 32}, {24, 0});
        EXPECT_EQ(tileError(b.take(), in),
                  "tload %1: tile 16x32 at offset [24, 0] is not inside %x (32x32xf32)");
    }
    {
        TileBuilder b("notgm");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        const ValueId t = b.load(x, {16, 32}, {0, 0});
        b.load(t, {16, 32}, {0, 0});
        EXPECT_EQ(tileError(b.take(), in),
                  "tload %2: loads from %1 (16x32xf32), which is not a GM tensor (an argument or "
                  "a gm_tensor)");
    }
    {
        TileBuilder b("storebad");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        const ValueId t = b.load(x, {16, 32}, {0, 0});
        const ValueId y = b.output(DType::F32, {32, 32}, "y");
        b.store(t, y, {0, 8});
        EXPECT_EQ(tileError(b.take(), in),
                  "tstore: tile 16x32 at offset [0, 8] is not inside %y (32x32xf32)");
    }
    {
        TileBuilder b("accbad");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        const ValueId a = b.load(x, {16, 32}, {0, 0}, MemSpace::L1);
        const ValueId c = b.op(OpKind::Matmul, {a, a}, DType::F32, {16, 16},
                               attrs({{"transpose_b", true}}), MemSpace::L0C);
        b.op(OpKind::MatmulAcc, {c, a, a}, DType::F32, {16, 16}, {}, MemSpace::L0C);
        EXPECT_EQ(tileError(b.take(), in),
                  "matmul_acc %3: cannot accumulate %1 (16x32xf32) · %1 (16x32xf32) into %2 "
                  "(16x16xf32)");
    }
    {
        TileBuilder b("gatherbad");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        const ValueId idx = b.arg(DType::I32, {1, 2}, "idx");
        const ValueId i = b.load(idx, {1, 2}, {0, 0});
        b.op(OpKind::Gather, {x, i}, DType::F32, {2, 32},
             attrs({{"offset", std::vector<int64_t>{0, 0}}}));
        TensorData index(DType::I32, {1, 2});
        index.set(0, 3);
        index.set(1, 32);
        const std::vector<TensorData> ins = {in[0], index};
        EXPECT_EQ(tileError(b.take(), ins),
                  "gather %3: index 32 at element 1 of %2 (1x2xi32) is outside the 32 rows of %x "
                  "(32x32xf32)");
    }
    {
        TileBuilder b("nooffset");
        const ValueId x = b.arg(DType::F32, {32, 32}, "x");
        Function fn = b.take();
        Op op;
        op.kind = OpKind::TLoad;
        op.operands = {x};
        const Type t{DType::F32, {8, 8}, MemSpace::UB};
        fn.addOp(op, &t);
        EXPECT_EQ(tileError(fn, in), "tload %1: needs an attribute 'offset'");
    }
}

} // namespace
} // namespace pto::test
