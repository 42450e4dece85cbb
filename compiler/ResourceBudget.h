// The resource budget of a compile and a run: limits on tile ops, PTO instructions, GM bytes and
// host memory, checked against estimates before the expansion or allocation they bound.
#pragma once

// Why: a program is a few hundred bytes of untrusted text, but tile expansion multiplies it by
// its tile grid (tensor<2^24x2^24> is 2^36 tiles) and a run allocates its GM image and inputs on
// the host. Every check below runs before the memory it protects is taken, throws BudgetError
// (a CompileError: file:line:col of the op responsible, the estimate, the limit and the flag
// that raises it) and so ends `pto compile` / `pto run` with exit code 2 instead of an
// out-of-memory kill. The defaults admit every sample (gemm_4096: 115 k tile ops, 314 k
// instructions, 96 MiB of GM) with room to spare; docs/USER_GUIDE.md lists them.

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"

#include <cstdint>
#include <string>

namespace pto {

struct ResourceBudget {
    static constexpr int64_t kDefaultMaxTileOps = 1'000'000;
    static constexpr int64_t kDefaultMaxInstrs = 4'000'000;
    static constexpr int64_t kDefaultMaxGmBytes = int64_t(1) << 30;     // 1 GiB
    static constexpr int64_t kDefaultMaxMemoryBytes = int64_t(4) << 30; // 4 GiB

    int64_t maxTileOps = kDefaultMaxTileOps; // tile ops the lowering may create (--max-tile-ops)
    int64_t maxInstrs = kDefaultMaxInstrs;   // PTO instructions of a program (--max-instrs)
    int64_t maxGmBytes = kDefaultMaxGmBytes; // bytes of the simulated GM image (--max-gm)
    int64_t maxMemoryBytes = kDefaultMaxMemoryBytes; // estimated host memory (--max-memory)
};

// A budget limit the program would exceed. what() is "file:line:col: error: <message>".
class BudgetError : public CompileError {
public:
    using CompileError::CompileError;
};

// The number of tile ops expand-tiles would create for `tensor` (a Tensor-level function after
// decompose-composites), op by op from the tile grids its directives and the defaults give.
// An estimate (the data movement is counted per tile, recomputation of shared chains is not);
// `largest` names the op contributing most.
struct TileOpEstimate {
    double total = 0;
    double largestCount = 0;
    const Op* largest = nullptr;
    std::string largestDetail; // "2048x2048 in 1x8 tiles"
};
TileOpEstimate estimateTileOps(const Function& tensor, const TargetInfo& target);

// Before expand-tiles: the estimate against maxTileOps and its host memory (2.5 KiB per tile
// op, docs/PERFORMANCE.md) against maxMemoryBytes. Throws BudgetError at the op contributing most.
void checkTileOpBudget(const Function& tensor, const TargetInfo& target,
                       const ResourceBudget& budget, const std::string& file);
// Before `f`'s loops are unrolled (unroll-loops at Tensor level; a Tile-level program's loops
// as it is loaded): the ops unrolling creates (trip count × body ops, nested loops multiplied
// out, nothing copied) against maxTileOps — at Tensor level each becomes at least one tile op —
// and their host memory (2.5 KiB per op) against maxMemoryBytes. Throws BudgetError at the
// top-level loop contributing most.
void checkUnrollBudget(const Function& f, const ResourceBudget& budget, const std::string& file);
// After a Tile-level function exists (expanded or written by hand): its real op count.
void checkTileOpCount(const Function& tile, const ResourceBudget& budget, const std::string& file);
// A PTO program's instruction count against maxInstrs.
void checkInstrBudget(const PtoProgram& program, const ResourceBudget& budget,
                      const std::string& file);

// The end of the highest GM tensor of `program` (the size of its GM image), or INT64_MAX when
// that overflows 64 bits.
int64_t gmImageBytes(const PtoProgram& program);
// The GM image of `program` against maxGmBytes, and the host memory of a run with numerics
// (inputs + image + outputs) against maxMemoryBytes. Throws BudgetError naming the largest
// GM tensor.
void checkGmBudget(const PtoProgram& program, const ResourceBudget& budget,
                   const std::string& file);
// The bytes of a program's inputs (made before compiling: random or read from .npy) against
// maxGmBytes; `what` names the largest input ("input %x of @f (tensor<...>)").
void checkInputBudget(int64_t totalBytes, const std::string& largest, const ResourceBudget& budget,
                      const std::string& file);

// "1.5 GiB", "96 MiB", "512 B".
std::string formatBytes(double bytes);

} // namespace pto
