// reroll-loops: folds the iterations a kernel runs one after another back into a counted loop
// (InstrLoop, issue 15 item 2), run as the last step of emit-pto.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"

#include <cstdint>
#include <string>

namespace pto {

struct RerollStats {
    int64_t loops = 0;        // counted loops formed
    int64_t instrsBefore = 0; // instructions of the kernels before
    int64_t instrsAfter = 0;  // and after
};

// Within each kernel, instructions whose Tile ops carry the same `loop` attribute and
// consecutive `iter` numbers (unroll-loops writes them), or consecutive K steps of one matmul
// (`k_step`, see kStepLoopName), form one segment per iteration (an
// instruction of a tile op without them — a copy the Tile passes added — joins the segment
// before it). A run
// of rounds of p consecutive iterations (p = 1..8: double buffering and round-robin event ids
// repeat every few iterations) that are equal in every field but their operand addresses,
// which move by the same step from each round to the next, becomes one InstrLoop over the
// first round's instructions (its tile ops are the provenance of every round; each executed
// instruction names its iteration); the p that saves the most instructions wins. The rerolled
// kernel executes exactly the instruction stream it replaces, so the simulated run is unchanged;
// only the listing, the trace's instr table and memory shrink. Kernels without such runs are left
// as they are.
RerollStats rerollLoops(PtoProgram& program, const Function& tile);

// The K steps of a matmul (expand-tiles labels every tile op of an L1 block of the reduction
// with `k_step`, Matmul.cpp) are an inner loop of their own for reroll-loops, named after the
// matmul's source position, "matmul@3:8.k" ("kv/matmul@3:8.k" inside the program's loop "kv"),
// as an unnamed program loop is "for@7:3": a name no identifier can take.
std::string kStepLoopName(const SourceLoc& matmul);

// A matmul's output L1 blocks, each with all its K steps, as a loop for reroll-loops:
// "matmul@3:8.block", iteration = the block's index in the matmul (in the order expand-tiles
// emits them: batches, then rows, then columns of L1 blocks). A kernel folds its blocks this way
// instead of its K steps when that leaves fewer instructions (a task of several blocks along a
// row of the output); the flag ids insert-sync hands out once per block rotate from round to
// round (InstrLoop::eventSteps).
std::string blockLoopName(const SourceLoc& matmul);

// The tiles a kernel streams outside program loops and K steps (an elementwise chain's tiles,
// one after another) are a loop of their own for reroll-loops, named "tiles" (kTilesLoopName),
// iteration = the rank of the tile's corner among all tile corners of the function
// (row-major, every Tensor value's); kept when it leaves fewer instructions than the K-step and
// output-block foldings. Flag ids may rotate as for blocks. The rank only orders tiles (the
// ops of one tile share it, consecutive tiles have consecutive ranks), so the trace names a
// round of this loop by its round (loopSliceLabel), not by the rank.

} // namespace pto
