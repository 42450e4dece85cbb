// Index tiles of gathers and scatters, and a faulting element's place in the index tensor.
#include "driver/IndexFaults.h"

#include "compiler/ir/Printer.h"
#include "validate/ErrorMetrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace pto {
namespace {

// The index operand of a Tile-level gather (src, idx) or scatter_add (rows, dst, idx).
ValueId indexOperand(const Op& op) {
    if (op.kind == OpKind::Gather && op.operands.size() == 2) return op.operands[1];
    if (op.kind == OpKind::TScatterAdd && op.operands.size() == 3) return op.operands[2];
    return kNoId;
}

} // namespace

std::unordered_map<OpId, IndexTileSource> indexTileSources(const CompileState& state) {
    std::unordered_map<OpId, IndexTileSource> sources;
    const Function& tile = state.tileFunction();
    const Function& tensor = state.tensor;
    std::optional<NameTable> names;
    for (const Op& op : tile.ops()) {
        const ValueId index = indexOperand(op);
        if (index == kNoId) continue;
        const Value& v = tile.value(index);
        if (v.origin == kNoId || v.origin >= ValueId(tensor.valueCount())) continue;
        const Shape& shape = tensor.type(v.origin).shape;
        if (shape.rank() == 0 || v.offset.rank() != shape.rank()) continue;
        if (!names) names.emplace(tensor);
        const Shape& tileShape = v.type.shape;
        sources[op.id] = {.tensor = "%" + std::string((*names)[v.origin]),
                          .shape = shape,
                          .offset = v.offset,
                          .tileCols = tileShape.rank() ? tileShape.back() : 1};
    }
    return sources;
}

std::string indexElementText(const IndexTileSource& source, int64_t element) {
    const Shape& shape = source.shape;
    const int n = shape.rank();
    // The tile is consecutive rows of the tensor (rows = its leading dims, cols = the last).
    int64_t flat = 0;
    for (int d = 0; d < n; ++d) flat = flat * shape[d] + source.offset[d];
    const int64_t cols = std::max<int64_t>(source.tileCols, 1);
    flat += element / cols * shape[n - 1] + element % cols;
    if (n == 1) return fmt::format("element {} of {}", flat, source.tensor);
    return fmt::format("element [{}] of {}", fmt::join(unflattenIndex(flat, shape), ", "),
                       source.tensor);
}

} // namespace pto
