// The reference interpreter of the Tensor level: evaluates a Tensor-level function on real
// data, op by op in program order. Its results define what every later stage must compute.
#pragma once

// Semantics (the precision rule): each op reads its operands widened exactly to f32, computes
// in f32 and rounds its result once to the result type's dtype (RNE, or the `round` attr of
// cast; integer results saturate). Composites (sigmoid, tanh, gelu, silu, softmax, rms_norm,
// layer_norm) are evaluated directly in f32 and rounded once: these are the reference values
// that decompose-composites approximates. Reductions and matmul accumulate in f32 in index
// order (matmul: k ascending). Layout ops move bytes and are exact. Directives are ignored.
//
// Bad IR or inputs (wrong input count, dtype or shape, shapes that do not broadcast, axes out
// of range, result types that disagree with the operands) raise CompileError naming the op,
// the values and the numbers; the interpreter never crashes on them.

#include "compiler/ir/Graph.h"
#include "compiler/ir/TensorData.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pto {

struct EvalResult {
    std::vector<TensorData> outputs; // the function's results, in order
    std::vector<TensorData> values;  // indexed by ValueId, filled when keepValues
};

// `functions` are the module's functions that `call` ops may name (CompileState::functions):
// a call evaluates its callee on the call's operands, so a program can be interpreted as
// parsed, before inline-calls, with the same results bit for bit. Without them a call is an
// error naming the callee.
EvalResult evaluateTensor(const Function& fn, std::span<const TensorData> inputs,
                          bool keepValues = false, std::span<const Function> functions = {});

// --- Building blocks shared with the Tile interpreter -----------------------------------------

// Checks that `inputs` match the function's arguments in count, dtype and shape.
void checkInputs(const Function& fn, std::span<const TensorData> inputs);

// Evaluates one value-computing op that needs no memory model: every kind of Ops.def except
// gm_tensor, tload, tstore, tmove, matmul_acc and the directives. operands[i] holds the value
// of op.operands[i]; the result has the op's result type.
TensorData evaluateComputeOp(const Function& fn, const Op& op,
                             std::span<const TensorData* const> operands);

// "%name" of a value, or "%<id>" when it has no name.
std::string valueRef(const Function& fn, ValueId v);
// "[1, 2, 3]"
std::string formatInts(std::span<const int64_t> xs);

} // namespace pto
