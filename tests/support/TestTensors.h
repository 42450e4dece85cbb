// Tensors with known hard values that several test folders feed to the interpreters and the
// simulator.
#pragma once

#include "compiler/ir/TensorData.h"

#include <cstdint>

namespace pto::test {

// i8 values at the extremes for a long-k matmul: line 0 (a row of A, a column of B when
// `byColumn`) all 127, line 1 all -128, the rest a fixed mix of 127, -127 and -128. Sums reach
// ±2^26, beyond the 2^24 up to which f32 holds every integer.
TensorData extremeInt8(int64_t rows, int64_t cols, bool byColumn, uint64_t seed);

} // namespace pto::test
