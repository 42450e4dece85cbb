// The placement rule of Tile-level ops (910B separated cores: cube work on AIC, vector on AIV).
#include "compiler/ir/Placement.h"

namespace pto {

Placement placeTileOp(const Function& tile, const Op& op) {
    auto spaceOf = [&](ValueId v) { return tile.type(v).space; };
    switch (op.kind) {
    case OpKind::GmTensor:
    case OpKind::VecTile:
    case OpKind::CubeTile:
        return {};
    case OpKind::TLoad: {
        MemSpace dst = spaceOf(op.result);
        if (dst == MemSpace::UB) return {CoreType::AIV, Pipe::MTE2};
        if (dst == MemSpace::L1) return {CoreType::AIC, Pipe::MTE2};
        return {};
    }
    case OpKind::Gather: // a gather DMA GM -> UB, driven by an index tile in UB
        return spaceOf(op.result) == MemSpace::UB ? Placement{CoreType::AIV, Pipe::MTE2}
                                                  : Placement{};
    case OpKind::TScatterAdd: // a scatter DMA UB -> GM with atomic add
        return spaceOf(op.operands[0]) == MemSpace::UB ? Placement{CoreType::AIV, Pipe::MTE3}
                                                       : Placement{};
    case OpKind::TMove:
        return {CoreType::AIC, Pipe::MTE1};
    case OpKind::Matmul:
    case OpKind::MatmulAcc:
        return {CoreType::AIC, Pipe::M};
    case OpKind::TStore: {
        MemSpace src = spaceOf(op.operands[0]);
        if (src == MemSpace::L0C) return {CoreType::AIC, Pipe::FIX};
        if (src == MemSpace::UB) return {CoreType::AIV, Pipe::MTE3};
        return {};
    }
    default:
        return {CoreType::AIV, Pipe::V};
    }
}

} // namespace pto
