// The shared L2 cache as a set of lines over the GM image with LRU replacement: which bytes of
// a GM transfer hit (served by L2) and which miss (served by HBM, then resident).
#pragma once

// Lines are `l2.line_size` bytes (512 B by default), indexed directly by GM address: line i
// holds GM bytes [i·granule, (i+1)·granule). State is two uint32 links per line (an intrusive
// doubly linked LRU list, most recent first) and 16 sector valid bits, so a lookup costs O(1) and
// no hashing; a transfer touching n lines costs O(n). To bound memory for huge GM images the
// granule doubles until the image has at most kMaxLines lines (a 2 GiB image keeps 512 B
// lines; the granule is reported by granule()). Capacity: l2.size / granule lines.
//
// Each line has 16 sectors (32 B for 512 B lines) with a valid bit: a line is allocated and
// replaced as a whole, but only the sectors a transfer asked for are filled. access()
// classifies every byte of a strided region: bytes in valid sectors of a resident line hit,
// the others miss (and their sectors become valid); every touched line becomes the most
// recently used; a missing line is allocated at once (evicting the least recently used line
// when full) — so a second transfer of the same bytes that starts while the first is still
// streaming hits (the fills are merged). HBM is charged exactly the bytes that missed: no
// over-fetch of the rest of a line, and no free neighbour bytes either.

#include "compiler/ir/PtoRegion.h"

#include <cstdint>
#include <vector>

namespace pto::sim {

class L2Cache {
public:
    /// At most this many lines are tracked (2^22: 44 MiB of state).
    static constexpr int64_t kMaxLines = int64_t(1) << 22;
    static constexpr int kSectors = 16; ///< valid bits per line

    /// `gmBytes`: the GM image; `capacity`: l2.size; `line`: l2.line_size (a power of two).
    L2Cache(int64_t gmBytes, int64_t capacity, int64_t line);

    struct Split {
        int64_t hit = 0;  ///< bytes found resident
        int64_t miss = 0; ///< bytes fetched from HBM (now resident)
    };
    /// Looks up every line of `gm` (a GM region); each becomes the most recently used, missing
    /// ones are allocated.
    Split access(const Region& gm);

    /// Whether the line holding GM byte `addr` is resident (some of its sectors valid).
    bool resident(int64_t addr) const;
    int64_t granule() const { return m_granule; }
    int64_t capacityLines() const { return m_capacity; }
    int64_t residentLines() const { return m_count; }
    int64_t evictions() const { return m_evictions; }

private:
    static constexpr uint32_t kNil = UINT32_MAX;

    /// Makes `line` the most recent with the sectors `want` valid; returns the sectors of
    /// `want` that were valid before.
    uint16_t touch(uint32_t line, uint16_t want);
    void accessRange(int64_t lo, int64_t hi, Split& split);
    void accessHeld(int64_t lo, int64_t hi, Split& split);
    void accessLines(int64_t lo, int64_t hi, Split& split);
    /// Bytes of [lo, hi) (within line `line`) that fall in the sectors `mask`.
    int64_t bytesIn(int64_t line, int64_t lo, int64_t hi, uint16_t mask) const;
    void unlink(uint32_t line);
    void pushFront(uint32_t line);

    int64_t m_granule;
    int m_granuleShift = 0;  ///< log2(m_granule) (powers of two: shifts, not divisions)
    int m_sectorShift = 0;   ///< log2(m_sector)
    uint16_t m_fullMask = 0; ///< the sector bits of a whole line
    int64_t m_capacity;
    int64_t m_count = 0;
    bool m_holdsAll = false; ///< every line of the image fits: nothing is ever evicted, so the
                             ///< LRU order is never consulted and is not kept
    int64_t m_evictions = 0;
    uint32_t m_head = kNil; ///< most recently used
    uint32_t m_tail = kNil; ///< least recently used
    /// One per line, links and sector bits together (one cache line per lookup).
    struct Node {
        uint32_t prev = kNil;
        uint32_t next = kNil;
        uint16_t valid = 0; ///< sector bits; 0 = not resident
    };
    std::vector<Node> m_nodes;
    int64_t m_sector;
};

} // namespace pto::sim
