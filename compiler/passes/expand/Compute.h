// The shared machinery of the expanders: the expansion context and the tile op computing one
// region of an elementwise op's result, with its operand tiles read, broadcast and, for
// result tiles that run apart, recomputed privately.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/passes/expand/Region.h"
#include "compiler/passes/expand/TensorHomes.h"
#include "compiler/passes/expand/TileEmitter.h"
#include "compiler/passes/expand/TileShapes.h"

#include <cstddef>
#include <unordered_map>
#include <vector>

namespace pto::expand {

// A tile of a value made for one result tile (the `position`) of a broadcasting reader; `scope`
// is 0, or the reader's op id + 1 when its tiles must not be shared with earlier readers (an
// operand held across a reduction, HeldAcross.h).
struct PrivateKey {
    ValueId value;
    Region region;
    Region position;
    uint32_t scope = 0;
    friend bool operator==(const PrivateKey&, const PrivateKey&) = default;
};

struct PrivateKeyHash {
    size_t operator()(const PrivateKey& k) const noexcept {
        return RegionHash{}(k.region) * 31 + RegionHash{}(k.position) * 7 + k.value +
               size_t(k.scope) * 131;
    }
};

// What every expander works with: the Tensor function, the Tile function being built, the
// values' tiles and homes, the tile shapes, and the private tiles made so far.
struct Ctx {
    const Function& src;
    TileEmitter& emit;
    TensorHomes& values;
    TileShapes& shapes;
    std::unordered_map<PrivateKey, ValueId, PrivateKeyHash> privateTiles = {};
    uint32_t privateScope = 0;              // PrivateKey::scope of the private tiles being made
    std::vector<ValueId> readFromHome = {}; // values the op being expanded reads from GM
};

constexpr int kMaxRecompute = 8; // depth of per-chain recomputation

// Whether a private tile of the op's result can be made by recomputing the op (elementwise ops,
// broadcast, fill) rather than shared or loaded.
bool recomputable(const Op& op);

// The dtype of an emitted tile.
DType tileDType(const Ctx& c, ValueId tile);

// Emits the tile op computing region r of op's result.
ValueId computeTile(Ctx& c, const Op& op, const Region& r, const Region* position,
                    const std::vector<bool>& privateOperand, int depth);

// The dtypes of the tiles one result tile of `op` keeps live in UB: the result's and every
// operand's not broadcast along the last dim.
std::vector<DType> dtypesOf(const Ctx& c, const Op& op);

} // namespace pto::expand
