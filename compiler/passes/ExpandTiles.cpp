// expand-tiles: Tensor → Tile, every op unrolled over its tile grid, data movement included.
//
// The model (docs/PASSES.md has the long form):
// - Each Tensor value V has on-chip tiles — the regions its producer computed and the regions
//   loaded from GM — and possibly a GM home: an argument, an output, a workspace, or a view
//   of one of those through offset arithmetic (view, reshape keeping the last dim).
// - A consumer that needs region R of V takes V's tile for exactly R when there is one: the
//   value stays on chip (same tile grid, and only vector ops share tiles, so same core type).
//   Otherwise V is materialised in its home (every produced tile stored once into a
//   workspace) and R is loaded from there by a tload that later consumers of R share.
// - matmul is the cube core's: it loads its operands from GM into L1 (per output block), moves
//   sub-tiles to L0A/L0B, accumulates in L0C and stores the result to GM (an output or a
//   workspace). So a value crossing between cube and vector always goes through GM.
// - A region maps to a tile as rows × cols: cols = the last extent, rows = the product of the
//   others; a tile region must be consecutive rows of its tensor (row stride = last dim).
//
// The code: expand/TensorHomes (values' tiles and homes), expand/TileShapes (tile-shape choice
// and capacity checks), expand/Compute (one tile of an elementwise result) and one expander per
// op class (expand/Expanders.h); this file dispatches.
#include "compiler/passes/ExpandTiles.h"

#include "compiler/passes/expand/Expanders.h"

namespace pto {
namespace expand {
namespace {

void expandOp(Ctx& c, const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return expandElementwise(c, op);
    case OpClass::Reduce:
        return expandReduce(c, op);
    case OpClass::Matmul:
        if (op.kind == OpKind::Matmul) return expandMatmul(c, op);
        break;
    case OpClass::Layout:
        switch (op.kind) {
        case OpKind::Broadcast:
        case OpKind::Fill:
            return expandElementwise(c, op);
        case OpKind::Transpose:
            return expandTranspose(c, op);
        case OpKind::View:
            return expandView(c, op);
        case OpKind::Reshape:
            return expandReshape(c, op);
        case OpKind::Concat:
            return expandConcat(c, op);
        default:
            break;
        }
        break;
    case OpClass::Index:
        if (op.kind == OpKind::Gather) return expandGather(c, op);
        if (op.kind == OpKind::TopK) return expandTopK(c, op);
        if (op.kind == OpKind::ScatterAdd) return expandScatterAdd(c, op);
        if (op.kind == OpKind::CumSum) return expandCumSum(c, op);
        break;
    case OpClass::Composite:
        c.shapes.fail(op, "composite ops must be decomposed before expand-tiles (run "
                          "decompose-composites)");
    default:
        break;
    }
    c.shapes.fail(op, "is not a Tensor-level op; expand-tiles cannot lower it");
}

} // namespace
} // namespace expand

Function expandTiles(const Function& tensor, const TargetInfo& target, const std::string& file,
                     const GmReads& gmReads) {
    using namespace expand;
    Function tile;
    tile.name = tensor.name;
    tile.level = Level::Tile;
    tile.loc = tensor.loc;
    TileEmitter emit(tile);
    TensorHomes values(tensor, emit, file, gmReads);
    TileShapes shapes(tensor, target, file);
    Ctx ctx{tensor, emit, values, shapes};

    values.declareArguments();
    values.declareOutputs();
    for (ValueId a : tensor.args) values.finish(a);
    for (const Op& source : tensor.ops()) {
        if (isDirective(source.kind)) {
            shapes.enterDirective(source);
            continue;
        }
        expandOp(ctx, source);
        if (source.result != kNoId) values.finish(source.result);
    }
    return tile;
}

} // namespace pto
