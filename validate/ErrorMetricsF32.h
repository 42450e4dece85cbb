// The fused metric pass for two f32 tensors: widening, element counts and the per-pair metrics
// of one chunk in a single vectorised loop (AVX2 where the CPU has it). Internal to Metrics.cpp.
#pragma once

#include <cstdint>

namespace pto::detail {

/// What one chunk of f32 pairs contributes. Maxima start at the identities the scalar pass
/// uses (maxAbs, maxRel −1; the others 0); argmax positions are found by the caller.
struct F32ChunkSums {
    double sumAbs = 0, sumSq = 0, sumA2 = 0, sumG2 = 0, sumAG = 0, sumUlp = 0, sumRel = 0;
    double maxAbs = -1, maxRel = -1, ulpMax = 0, minRtol = 0, minAtol = 0, zeroMaxAbs = 0;
    int64_t unequal = 0, within1 = 0, within5 = 0, zeroGolden = 0, mismatch = 0;
    bool rtolUnreachable = false;
    int64_t actualSaturated = 0, actualSubnormal = 0, goldenSaturated = 0, goldenSubnormal = 0;
};

/// Scans n ≤ 4096 pairs. Returns false, leaving `out` unspecified, when a value is NaN or
/// infinite (the caller then runs the exact scalar pass on the chunk).
bool scanF32Chunk(const float* a, const float* g, int64_t n, double atol, double rtol,
                  F32ChunkSums& out);

} // namespace pto::detail
