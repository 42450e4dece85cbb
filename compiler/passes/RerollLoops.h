// reroll-loops: folds the iterations a kernel runs one after another back into a counted loop
// (InstrLoop, issue 15 item 2), run as the last step of emit-pto.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"

#include <cstdint>

namespace pto {

struct RerollStats {
    int64_t loops = 0;        // counted loops formed
    int64_t instrsBefore = 0; // instructions of the kernels before
    int64_t instrsAfter = 0;  // and after
};

// Within each kernel, instructions whose Tile ops carry the same `loop` attribute and
// consecutive `iter` numbers (unroll-loops writes them) form one segment per iteration (an
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

} // namespace pto
