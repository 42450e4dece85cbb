// The useful work of a program as the roofline counts it — one FLOP rule for the Tensor-level
// total (`pto run`'s summary) and for each PTO instruction (recorded in the trace's `instr`
// table, summed by the profiler).
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"

#include <cstdint>
#include <string_view>

namespace pto {

// FlopRule and each opcode's rule (opcodeFlopRule) are in compiler/ir/Pto.h, from Opcodes.def.

/// The FLOPs of one operation under `rule`: resultElems = m·n for a matmul, sourceElems the
/// elements of the reduced source, k the matmul's inner dimension.
double ruleFlops(FlopRule rule, int64_t resultElems, int64_t sourceElems, int64_t k);

/// FLOPs of a Tensor-level function (after decomposition).
double countFlops(const Function& tensor);
/// The same, the ops unrolled from loop `loop` (attr loop = the name) counted `loopScale` times
/// (a loop lowered through a window of its iterations: trips / window iterations).
double countFlops(const Function& tensor, std::string_view loop, double loopScale);

/// The operand whose dtype sets the unit's rate: a matmul's A (its L0A operand), else the
/// first source; -1 when there is none (or a matmul without an L0A operand).
int rateOperand(const Instr& in);

/// FLOPs of one PTO instruction, from its resolved operands (destination first).
double instrFlops(const Instr& in);

/// FLOPs of a PTO program as it runs: every executed instruction (each round of a counted loop),
/// a kernel once per task that runs it. The work of a listing, which has no Tensor program.
double countFlops(const PtoProgram& program);

/// Bytes a TLOAD/TSTORE moves to or from GM (its GM operand's rows·cols·dtype size); 0 else.
int64_t instrGmBytes(const Instr& in);

} // namespace pto
