// Counted instruction loops of PTO kernels (InstrLoop in Pto.h): their structural rules, one
// round's instruction, and the expansion into the flat instruction stream the simulator runs,
// which remembers for every executed instruction its compact index and loop round.
#pragma once

#include "compiler/ir/Pto.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

bool hasInstrLoops(const PtoProgram& p);

/// The two instructions are equal in every field but their operands' addresses and their
/// provenance (tile op, iteration): two rounds of one loop body.
bool sameButAddresses(const Instr& a, const Instr& b);

/// Instruction `in` (at `offset` within its loop's range) as it executes in round `round`.
Instr loopRoundInstr(const Instr& in, const InstrLoop& loop, size_t offset, int64_t round);

/// The event id of flag instruction `in` (at `offset` within its loop's range) in `round`.
int loopRoundEvent(const Instr& in, const InstrLoop& loop, size_t offset, int64_t round);

/// "" or why the kernel's loops are malformed (ranges outside the kernel, overlapping or out of
/// order, a negative count, a steps list of the wrong length, a step on a missing operand).
std::string instrLoopProblem(const Kernel& k);

/// The number of instructions the kernel executes (loops expanded); saturates at INT64_MAX.
int64_t executedInstrCount(const Kernel& k);

/// The index in Kernel::instrs of the kernel's `executed`-th executed instruction (loops
/// written out), or -1 past the end.
int64_t writtenIndexOf(const Kernel& k, int64_t executed);

/// "kv, iter 7" ("outer/inner, iter 1/3" when nested) for instruction `offset` of `loop` (its
/// position in the range) in round `round`.
std::string loopIterLabel(const InstrLoop& loop, int64_t round, size_t offset = 0);

/// The loop reroll-loops makes of the tiles a vector kernel streams (RerollLoops.h). Its
/// iterations are ranks of tile corners among every Tensor value's tile corners, which tell
/// the compiler which tiles follow one another but count nothing the program has: tile
/// [0,16,0] of a [8,1024,1] value is rank 5 when corners of other values ([0,0,64], …) sort
/// before it.
inline constexpr std::string_view kTilesLoopName = "tiles";

/// What the trace names an executed round by (the instruction slice's arg `loop`): the
/// iteration, loopIterLabel(), for a program loop, a matmul's K steps and output blocks; for
/// the tiles loop (kTilesLoopName), whose iteration numbers mean nothing to the program, the
/// round: "tiles, round 2 of 3" (1-based; the listing's address steps `+ step*i` use
/// i = round - 1).
std::string loopSliceLabel(const InstrLoop& loop, int64_t round, size_t offset = 0);

/// Per expanded instruction of one kernel: its index in Kernel::instrs, and the loop
/// (index into Kernel::loops, -1 = none) and round it executes in.
struct ExpandedKernelMap {
    std::vector<uint32_t> compactIndex;
    std::vector<int32_t> loop;
    std::vector<int64_t> round;
};

struct LoopExpansion {
    PtoProgram flat; // the same program with every loop written out (no InstrLoop left)
    std::vector<ExpandedKernelMap> kernels;
};

/// Writes every kernel's loops out. Throws std::length_error when a kernel would exceed
/// `maxInstrs` executed instructions.
LoopExpansion expandInstrLoops(const PtoProgram& p, int64_t maxInstrs);

} // namespace pto
