// Footprints of operands and their exact intersection (see Region.h).
#include "compiler/ir/PtoRegion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace pto {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Whether the byte range [s, e) meets a row of `r`: the rows j with
// r.lo + j·pitch < e and r.lo + j·pitch + rowBytes > s.
bool segmentMeets(int64_t s, int64_t e, const Region& r) {
    if (r.rows == 1) return s < r.hi && r.lo < e;
    const int64_t first = std::max<int64_t>(0, floorDiv(s - r.rowBytes - r.lo, r.pitch) + 1);
    const int64_t last = std::min<int64_t>(r.rows - 1, floorDiv(e - r.lo - 1, r.pitch));
    return first <= last;
}

} // namespace

bool intersects(const Region& a, const Region& b) {
    if (a.space != b.space || a.hi <= b.lo || b.hi <= a.lo) return false;
    if (a.rows == 1 || b.rows == 1) {
        const Region& run = a.rows == 1 ? a : b;
        return segmentMeets(run.lo, run.hi, a.rows == 1 ? b : a);
    }
    // Both strided: walk the rows of the shorter one (bounded by its row count).
    const Region& few = a.rows <= b.rows ? a : b;
    const Region& many = a.rows <= b.rows ? b : a;
    for (int32_t i = 0; i < few.rows; ++i) {
        const int64_t s = few.lo + int64_t(i) * few.pitch;
        if (segmentMeets(s, s + few.rowBytes, many)) return true;
    }
    return false;
}

std::string accessText(const Region& r) {
    std::string text = fmt::format("{} {} [{:#x}, {:#x})", r.write ? "writes" : "reads",
                                   memSpaceName(r.space), r.lo, r.hi);
    if (r.rows > 1) text += fmt::format(" in {} rows of {} B", r.rows, r.rowBytes);
    return text;
}

} // namespace pto
