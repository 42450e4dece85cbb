// Where a gather's or scatter's faulting index element sits in the program's index tensor: the
// simulator knows the element of the instruction's index tile, the Tile stage knows the tile.
#pragma once

#include "compiler/CompileState.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace pto {

/// The index tile of one gather or scatter tile op: which Tensor value it covers and where.
struct IndexTileSource {
    std::string tensor; ///< "%i" as the Tensor stage prints it
    Shape shape;        ///< the index tensor's shape
    Shape offset;       ///< the tile's corner in it
    int64_t tileCols = 1;
};

/// Per gather / scatter_add tile op of the compiled program: its index tile's source.
std::unordered_map<OpId, IndexTileSource> indexTileSources(const CompileState& state);

/// "element 260 of %i" (rank 1) or "element [1, 4] of %idx": element `element` of the tile (row
/// by row, as the instruction reads it) in the index tensor.
std::string indexElementText(const IndexTileSource& source, int64_t element);

} // namespace pto
