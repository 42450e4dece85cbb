// A 2-D strided byte region of one memory space (an operand's footprint), with an exact
// intersection test: used by the simulator's overlapping-buffer check and L2 line lookups and by
// the static synchronisation check (PtoSyncCheck.h).
#pragma once

#include "compiler/ir/Pto.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace pto {

/// 32 bytes: programs hold one per on-chip operand.
struct Region {
    int64_t lo = 0;       ///< first byte
    int64_t hi = 0;       ///< one past the last byte (bounding range [lo, hi))
    int32_t pitch = 0;    ///< bytes between row starts (rows > 1 only)
    int32_t rowBytes = 0; ///< bytes of one row
    int32_t rows = 1;     ///< 1 for a contiguous run
    MemSpace space = MemSpace::None;
    bool write = false;
};

/// The bytes `o` covers. A row broadcast (stride 0) or rows that touch or overlap (stride ≤
/// cols) are one contiguous run; so are rows whose pitch or span exceeds 2^31 bytes (the
/// bounding range, a conservative footprint). Inline: the hazard check computes one per
/// operand of every instruction, into place.
inline Region regionOf(const Operand& o, bool write) {
    const int64_t size = dtypeSize(o.dtype);
    Region r;
    r.space = o.space;
    r.write = write;
    r.lo = o.addr;
    const int64_t rowBytes = int64_t(o.cols) * size;
    const int64_t pitch = o.stride * size;
    if (o.rows <= 1 || o.stride == 0) { // one row, or a row broadcast read again and again
        r.hi = r.lo + rowBytes;
    } else {
        r.hi = r.lo + int64_t(o.rows - 1) * pitch + rowBytes;
        if (o.stride > o.cols && pitch <= INT32_MAX) { // separate rows
            r.rows = o.rows;
            r.pitch = static_cast<int32_t>(pitch);
            r.rowBytes = static_cast<int32_t>(rowBytes);
            return r;
        }
    }
    // One run (rows that touch or overlap, or too far apart to describe in 32 bits).
    r.rowBytes = static_cast<int32_t>(std::min<int64_t>(r.hi - r.lo, INT32_MAX));
    return r;
}

/// Whether two regions share a byte (same space; strided rows are compared exactly, so
/// interleaved column tiles of one buffer do not intersect).
bool intersects(const Region& a, const Region& b);

/// "writes UB [0x0, 0x8000)" or "reads L1 [0x0, 0x7f80) in 128 rows of 128 B" (the hazard
/// check's and the sync check's messages).
std::string accessText(const Region& r);

} // namespace pto
