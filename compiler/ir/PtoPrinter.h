// The PTO listing: a readable, assembly-like text of a PtoProgram that parses back exactly
// (PtoParser.h). Syntax, one item per line:
//
//   pto @softmax
//   gm %x : f16[64x1024] @0x0 input
//   gm %y : f16[64x1024] @0x20000 output !value 7
//   kernel @k0 aiv {
//     MTE2 TLOAD         UB[0x0]:f16[16x1024/1024], GM[0x0]:f16[16x1024/1024] !op 3 !loc 4:3
//     MTE2 SET_FLAG      MTE2->V 0
//     V    WAIT_FLAG     MTE2->V 0
//     V    TCVT          UB[0x8000]:f32[16x1024/1024], UB[0x0]:f16[16x1024/1024] {round = rne}
//     V    TMULS         UB[0x0]:f32[16x1024/1024], UB[0x0]:f32[16x1024/1024] {scalar = 0.5}
//     S    BARRIER       MTE2
//   }
//   task 0 @k0 aiv "softmax.0"
//   task 1 @k1 aic after 0 raw %x, 3 war
//   task 2 @fa_cube aic "fa" cluster 0
//   task 3 @fa_vec aiv "fa" cluster 0/1
//
// An instruction is: pipe, opcode, then for SET_FLAG/WAIT_FLAG `src->dst event`, for BARRIER
// the pipe, for CROSS_SET_FLAG/CROSS_WAIT_FLAG the peer core of the cluster and the flag id
// (`MTE3 CROSS_SET_FLAG aic 2`: this core signals flag 2 of the cluster's AIC), then operands
// SPACE[addr]:dtype[rows x cols / row stride in elements] (destination first), then {scalar = …,
// round|pred|mode = …, transpose_a, transpose_b}, then provenance `!op <tile op id>` and `!loc
// <line>:<col>`. Names that are not plain identifiers print quoted ("my kernel"); a task names its
// kernel @name, or #index when the name is not unique; `cluster c` (AIC) / `cluster c/k` (AIV k =
// 0, 1) puts it in a fused cluster, whose tasks run together on one AIC and its two AIVs; `after`
// lists the task's dependencies (from-task, kind, optional GM tensor).
//
// A counted loop (InstrLoop, issue 15 item 2) encloses its instructions in the kernel:
//
//     loop "kv" 3 iter 1 {
//       MTE2 TLOAD       UB[0x0]:f16[128x64/64], GM[0x8000 + 0x4000*i]:f16[128x64/64] !op 9
//       ...
//     }
//
// runs its body 3 times, as iterations 1, 2, 3 of the program's loop "kv" (`iter 0/1` for a
// loop nested in iteration 0 of an outer one); `+ 0x4000*i` (or `- …*i`) is the operand's
// address step per round (round i = 0, 1, …). `loop "kv" 3 iter 1 by 2 { … }` covers two
// iterations per round (1–2, 3–4, 5–6); an instruction of the round's second iteration ends in
// `!iter +1`. Loops do not nest in the listing.
#pragma once

#include "compiler/ir/Pto.h"

#include <string>

namespace pto {

std::string printPtoProgram(const PtoProgram& program);

// One instruction line without indentation: "V    TADD          UB[0x0]:f32[...], ...".
std::string printPtoInstr(const Instr& instr);

// The instruction's operand part alone: flags or operands, then {attributes}, without pipe,
// opcode and provenance ("UB[0x0]:f32[16x1024/1024], UB[0x8000]:f16[16x1024/1024]").
std::string printPtoOperands(const Instr& instr);
// The same with the address steps of a loop round (`GM[0x8000 + 0x4000*i]`) and the flag's
// event step (`M->FIX 1 + 1*i`: the id of round i, mod kFlagEventIds).
std::string printPtoOperands(const Instr& instr, const std::array<int64_t, 4>& steps,
                             int eventStep = 0);

} // namespace pto
