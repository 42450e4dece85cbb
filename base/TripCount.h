// The trip count of a counted loop, `for %i = lower to upper step s`, without overflow: the
// compiler, the interpreters and the profiler share it (a huge step once wrapped to 0 trips).
#pragma once

#include <cstdint>

namespace pto {

// The iterations lower, lower + step, … below upper: ceil((upper - lower) / step), 0 when
// upper <= lower or step <= 0. Exact for every int64 bound and step (the span is taken as an
// unsigned number, the division rounds up as (span - 1) / step + 1), saturating at INT64_MAX.
constexpr int64_t tripCount(int64_t lower, int64_t upper, int64_t step) {
    if (upper <= lower || step <= 0) return 0;
    const uint64_t span = uint64_t(upper) - uint64_t(lower);
    const uint64_t trips = (span - 1) / uint64_t(step) + 1;
    return trips > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(trips);
}

static_assert(tripCount(0, 4, 1) == 4 && tripCount(0, 4, 3) == 2 && tripCount(4, 0, 1) == 0);
static_assert(tripCount(0, 4, INT64_MAX) == 1 && tripCount(0, 4, INT64_MAX - 1) == 1);
static_assert(tripCount(INT64_MIN, INT64_MAX, 1) == INT64_MAX);

} // namespace pto
