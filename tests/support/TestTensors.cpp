// Tensors with known hard values shared by the tests (see TestTensors.h).
#include "tests/support/TestTensors.h"

namespace pto::test {

TensorData extremeInt8(int64_t rows, int64_t cols, bool byColumn, uint64_t seed) {
    TensorData t(DType::I8, {rows, cols});
    const float mix[3] = {127.0f, -127.0f, -128.0f};
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            const int64_t line = byColumn ? c : r;
            const uint64_t h = (uint64_t(r * cols + c) + seed) * 0x9E3779B97F4A7C15ull;
            t.set(r * cols + c, line == 0 ? 127.0f : line == 1 ? -128.0f : mix[(h >> 40) % 3]);
        }
    return t;
}

} // namespace pto::test
