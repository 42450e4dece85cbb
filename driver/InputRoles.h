// The roles of a program's arguments (mask, dequantisation scale, …) inferred from how the
// program uses them, and seeded random inputs drawn per role, so that `pto run --seed N`
// feeds every program values it can compute with (docs/VALIDATE.md, "Seeded inputs").
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/TensorData.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class InputRole : uint8_t {
    Data,         // anything else: floats uniform in [-1, 1), i8 [-128, 127], i32 [-1000, 1000]
    Mask,         // added to scores before a softmax (reduce_max): 0 / -inf, causal
    DequantScale, // multiplies an integer value (an i8/i32 tensor or an int8 matmul of depth K)
    QuantScale,   // divides a value that is then cast to i8
    Positive,     // operand of log, sqrt, rsqrt, reciprocal or a divisor
    Index,        // the index of a gather: integers in [0, n), n the gathered axis's extent
};
std::string_view inputRoleName(InputRole role);

struct InputRoleInfo {
    InputRole role = InputRole::Data;
    int64_t depth = 1; // DequantScale: the K of the int8 matmul it rescales; Index: the extent
                       // of the axis it indexes (1 otherwise)
};

// One role per argument of the (decomposed) Tensor function, in argument order.
std::vector<InputRoleInfo> inferInputRoles(const Function& tensor);

// A seeded random tensor for an argument of `role` (SplitMix64, the same bytes everywhere):
//   Mask          0 where col <= row of the last two dims, -inf above (every row keeps col 0)
//   DequantScale  uniform in [0.5, 1) / (127 · K): an int8 product of depth K stays within ±129
//   QuantScale    uniform in [1, 2) / 127: x in [-1, 1) divided by it stays within i8
//   Positive      uniform in [0.5, 1)
//   Index         integers uniform in [0, depth - 1]
//   Data          the dtype's default range (compiler/ir/TensorData.h)
TensorData seededInput(DType dtype, const Shape& shape, const InputRoleInfo& role, uint64_t seed);

} // namespace pto
