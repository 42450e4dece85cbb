// The verifiers of the Tensor/Tile levels and of the PTO level: every invariant a pass or a
// hand-written program must keep, reported as CompileError with the position and entity.
#pragma once

// verifyFunction checks, for a Tensor- or Tile-level function:
// - ids: op ids are positions; operands and results name existing values; SSA (one definition
//   per value, every use after its definition, arguments are not op results);
// - every op is allowed at the function's level and has the right number of operands, a result
//   iff its kind has one, and a result type equal to (or a permitted refinement of) the one
//   shape inference gives (ShapeInference.h): this also covers the Tile-level rules (tload reads
//   a GM tensor, tstore writes one, offsets and tile shapes lie inside the tensor);
// - directives: vec_tile sizes are positive and one per dim of the ops they apply to (until the
//   next vec_tile); cube_tile has [mL0, mL1], [kL0, kL1], [nL0, nL1] with L1 a multiple of L0.
//
// verifyPtoProgram checks a PTO program: kernel and task ids are positions, every instruction's
// pipe and on-chip spaces exist on its kernel's core type, operand counts per opcode, flag events
// 0..7, a data move on the pipe its path runs on (GM->UB on MTE2, UB->GM on MTE3, …), operand
// shapes (rows, cols >= 1; row stride >= cols, or 0 for a source that repeats one row), operand
// regions inside their buffer (on chip) or inside a declared GM tensor — a counted loop's in its
// first and its last round —, GM tensors
// that do not overflow, task dependencies that name existing tasks and form no cycle, and fused
// clusters: one task per role (aic, aiv0, aiv1), cross-core flag ids 0..15, kernels with
// cross-core flags only in clusters, every flag naming a peer the cluster has, every
// CROSS_WAIT_FLAG with a CROSS_SET_FLAG of its flag for it on the peer's kernel, and no
// dependency between tasks of one cluster (they start together).
//
// Messages name the entity: "add %c (op #12): declared type ... does not match ...",
// "kernel @k0 instr 7 (TADD): pipe M does not exist on an aiv core", "kernel @k0 instr 3
// (TLOAD), loop "cols" at i = 4 (its last round): operand 1 covers GM …".

#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"

#include <string>
#include <string_view>
#include <vector>

namespace pto {

void verifyFunction(const Function& f, const std::string& file);
void verifyModule(const Module& m);

// Where a listing's instructions are written: per kernel, per instruction of Kernel::instrs, its
// position in the .ptoasm file (a compiled program's instructions carry their .pto position,
// Instr::loc, instead).
using ListingLocs = std::vector<std::vector<SourceLoc>>;

// With `listing`, an instruction's error is reported at its line of the listing.
void verifyPtoProgram(const PtoProgram& program, const std::string& file = {},
                      const TargetInfo& target = {}, const ListingLocs* listing = nullptr);

// Why a loop's name cannot label it in traces and listings ("" when it can): the compiler's own
// counted loops are "tiles" and "matmul@LINE:COL.k" / ".block", nested loops are labelled
// "outer/inner" and iterations "kv, iter 7". The parser reports it at the name; the verifier
// for loops built in C++.
std::string loopNameProblem(std::string_view name);

// The number of operands a PTO instruction of `opcode` takes: [min, max].
std::pair<int, int> ptoOperandCountRange(Opcode opcode);

} // namespace pto
