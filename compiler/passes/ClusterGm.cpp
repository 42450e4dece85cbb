// GM conflicts inside a fused cluster: a per-tensor cell grid of last writes and reads since.
#include "compiler/passes/ClusterGm.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace pto {
namespace {

struct Cell {
    int32_t lastWrite = -1;     // index into the accesses
    std::vector<int32_t> reads; // since lastWrite
};

struct TensorGrid {
    int64_t cellRows = INT64_MAX, cellCols = INT64_MAX, width = 1;
    std::unordered_map<int64_t, Cell> cells;
};

} // namespace

std::vector<ClusterAccess> clusterAccesses(const BlockProgram& program,
                                           const std::vector<uint32_t>& blocks) {
    std::vector<ClusterAccess> out;
    std::unordered_set<ValueId> written;
    for (uint32_t b : blocks)
        for (const BlockItem& item : program.blocks[b].items) {
            if (item.isSync()) continue;
            const Op& op = program.tile.op(item.op);
            if (!readsOrWritesGm(op.kind)) continue;
            out.push_back({op.id, b, gmRegionOf(program.tile, op)});
            if (out.back().region.write) written.insert(out.back().region.tensor);
        }
    std::erase_if(out, [&](const ClusterAccess& a) { return !written.count(a.region.tensor); });
    std::sort(out.begin(), out.end(),
              [](const ClusterAccess& a, const ClusterAccess& b) { return a.op < b.op; });
    return out;
}

void forEachGmConflict(
    const std::vector<ClusterAccess>& accesses,
    const std::function<void(const ClusterAccess& later, const ClusterAccess& earlier)>& visit) {
    std::unordered_map<ValueId, TensorGrid> grids;
    for (const ClusterAccess& a : accesses) {
        TensorGrid& g = grids[a.region.tensor];
        g.cellRows = std::min(g.cellRows, std::max<int64_t>(1, a.region.rows));
        g.cellCols = std::min(g.cellCols, std::max<int64_t>(1, a.region.cols));
    }
    for (const ClusterAccess& a : accesses) {
        TensorGrid& g = grids[a.region.tensor];
        g.width = std::max(g.width, (a.region.col + a.region.cols - 1) / g.cellCols + 1);
    }
    for (int32_t i = 0; i < int32_t(accesses.size()); ++i) {
        const ClusterAccess& a = accesses[size_t(i)];
        TensorGrid& g = grids[a.region.tensor];
        const GmRegion& r = a.region;
        for (int64_t cr = r.row / g.cellRows; cr <= (r.row + r.rows - 1) / g.cellRows; ++cr)
            for (int64_t cc = r.col / g.cellCols; cc <= (r.col + r.cols - 1) / g.cellCols; ++cc) {
                Cell& cell = g.cells[cr * g.width + cc];
                if (cell.lastWrite >= 0 && accesses[size_t(cell.lastWrite)].region.overlaps(r))
                    visit(a, accesses[size_t(cell.lastWrite)]);
                if (!r.write) {
                    cell.reads.push_back(i);
                    continue;
                }
                for (int32_t rd : cell.reads)
                    if (accesses[size_t(rd)].region.overlaps(r)) visit(a, accesses[size_t(rd)]);
                cell.reads.clear();
                cell.lastWrite = i;
            }
    }
}

} // namespace pto
