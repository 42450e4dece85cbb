// What the compiler needs to know of the target chip: buffer capacities, alignment, core
// counts. The simulator's arch config produces one of these; the default is 910B-like.
#pragma once

#include "compiler/ir/Hardware.h"

#include <cstdint>
#include <string>

namespace pto {

// Layout rules of on-chip tiles that are facts of the architecture, not parameters of a target.
inline constexpr int64_t kCubeFractal = 16;   // L0 tiles hold whole 16×16 fractals (fp16)
inline constexpr int64_t kRowAlignBytes = 32; // a tile's rows, unless whole, are 32 B multiples

// v rounded up to a multiple of a (a > 0).
constexpr int64_t alignUp(int64_t v, int64_t a) {
    return (v + a - 1) / a * a;
}

struct TargetInfo {
    std::string name = "910B-like";
    int aicCores = 24;                       // CANN Ascend910B2 .ini ai_core_cnt
    int aivCores = 48;                       // CANN Ascend910B2 .ini vector_core_cnt
    int64_t l1Bytes = 512 * 1024;            // .ini l1_size
    int64_t l0aBytes = 64 * 1024;            // .ini l0_a_size
    int64_t l0bBytes = 64 * 1024;            // .ini l0_b_size
    int64_t l0cBytes = 128 * 1024;           // .ini l0_c_size
    int64_t ubBytes = 192 * 1024 - 8 * 1024; // .ini ub_size; pto-isa reserves the top 8 KiB
    int64_t bufferAlign = 32;                // .ini ubblock_size
    int64_t gmAlign = 512;                   // Ascend C DMA best practice
    // Compile policy, not hardware: the budgets of the default vec tiles are divided by
    // 2^tileShrink. 0 normally; the driver retries a program whose default tiles do not fit
    // (NoFitError) with 1, 2 and 3 (docs/PASSES.md, "Tile shapes").
    int tileShrink = 0;

    // Bytes a rows×cols tile of elemBytes-sized elements occupies in `space`: L0 buffers hold
    // whole 16×16 fractals, the others are bufferAlign-aligned. Memory assignment checks it
    // against the capacity; buffer allocation reserves it.
    int64_t tileFootprint(MemSpace space, int64_t rows, int64_t cols, int64_t elemBytes) const {
        if (space == MemSpace::L0A || space == MemSpace::L0B || space == MemSpace::L0C)
            return alignUp(rows, kCubeFractal) * alignUp(cols, kCubeFractal) * elemBytes;
        return alignUp(rows * cols * elemBytes, bufferAlign > 0 ? bufferAlign : 1);
    }

    int64_t capacity(MemSpace s) const {
        switch (s) {
        case MemSpace::L1:
            return l1Bytes;
        case MemSpace::L0A:
            return l0aBytes;
        case MemSpace::L0B:
            return l0bBytes;
        case MemSpace::L0C:
            return l0cBytes;
        case MemSpace::UB:
            return ubBytes;
        default:
            return INT64_MAX;
        }
    }
};

} // namespace pto
