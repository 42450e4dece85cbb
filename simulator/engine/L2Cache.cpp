// LRU line model of the L2 cache over the GM image (see L2Cache.h).
#include "simulator/engine/L2Cache.h"

#include <algorithm>
#include <bit>

namespace pto::sim {

L2Cache::L2Cache(int64_t gmBytes, int64_t capacity, int64_t line)
    : m_granule(std::max<int64_t>(1, line)) {
    const int64_t image = std::max<int64_t>(gmBytes, 1);
    while ((image + m_granule - 1) / m_granule > kMaxLines) m_granule *= 2;
    const auto lines = static_cast<size_t>((image + m_granule - 1) / m_granule);
    m_capacity = std::max<int64_t>(1, capacity / m_granule);
    m_nodes.assign(lines, Node{});
    m_holdsAll = static_cast<int64_t>(lines) <= m_capacity;
    m_sector = std::max<int64_t>(1, m_granule / kSectors);
    m_granuleShift = std::countr_zero(static_cast<uint64_t>(m_granule));
    m_sectorShift = std::countr_zero(static_cast<uint64_t>(m_sector));
    m_fullMask = static_cast<uint16_t>((1u << ((m_granule - 1) / m_sector + 1)) - 1);
}

L2Cache::Split L2Cache::access(const Region& gm) {
    Split split;
    if (gm.rows <= 1) {
        accessRange(gm.lo, gm.hi, split);
        return split;
    }
    for (int32_t r = 0; r < gm.rows; ++r) {
        const int64_t s = gm.lo + int64_t(r) * gm.pitch;
        accessRange(s, s + gm.rowBytes, split);
    }
    return split;
}

bool L2Cache::resident(int64_t addr) const {
    const int64_t line = addr / m_granule;
    return line >= 0 && line < static_cast<int64_t>(m_nodes.size()) && m_nodes[line].valid != 0;
}

void L2Cache::accessRange(int64_t lo, int64_t hi, Split& split) {
    lo = std::max<int64_t>(lo, 0);
    hi = std::min<int64_t>(hi, static_cast<int64_t>(m_nodes.size()) * m_granule);
    if (m_holdsAll) {
        accessHeld(lo, hi, split);
        return;
    }
    accessLines(lo, hi, split);
}

// The whole image fits: no LRU order to keep, so whole lines (the common case: a transfer
// covers a run of them) are classified in a tight loop, the same way touch() would.
void L2Cache::accessHeld(int64_t lo, int64_t hi, Split& split) {
    const int64_t firstFull = (lo + m_granule - 1) >> m_granuleShift; // first line inside
    const int64_t endFull = hi >> m_granuleShift;                     // one past the last
    if (firstFull >= endFull) {
        accessLines(lo, hi, split);
        return;
    }
    if (lo < (firstFull << m_granuleShift)) accessLines(lo, firstFull << m_granuleShift, split);
    int64_t hit = 0, miss = 0, added = 0;
    for (int64_t line = firstFull; line < endFull; ++line) {
        const uint16_t had = m_nodes[line].valid;
        m_nodes[line].valid = m_fullMask;
        if (had == m_fullMask) {
            hit += m_granule;
        } else if (had == 0) {
            miss += m_granule;
            ++added;
        } else {
            const int64_t base = line << m_granuleShift;
            const int64_t h = bytesIn(line, base, base + m_granule, had);
            hit += h;
            miss += m_granule - h;
        }
    }
    split.hit += hit;
    split.miss += miss;
    m_count += added;
    if ((endFull << m_granuleShift) < hi) accessLines(endFull << m_granuleShift, hi, split);
}

void L2Cache::accessLines(int64_t lo, int64_t hi, Split& split) {
    for (int64_t line = lo >> m_granuleShift; (line << m_granuleShift) < hi; ++line) {
        const int64_t base = line << m_granuleShift;
        const int64_t a = std::max(lo, base), b = std::min(hi, base + m_granule);
        uint16_t want = m_fullMask;
        if (b - a != m_granule) { // a part of the line: its sectors
            const auto first = static_cast<int>((a - base) >> m_sectorShift);
            const auto last = static_cast<int>((b - 1 - base) >> m_sectorShift);
            want = static_cast<uint16_t>(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
        }
        const uint16_t had = touch(static_cast<uint32_t>(line), want);
        const int64_t bytes = b - a;
        if (had == want) {
            split.hit += bytes;
        } else if (had == 0) {
            split.miss += bytes;
        } else {
            const int64_t hit = bytesIn(line, a, b, had);
            split.hit += hit;
            split.miss += bytes - hit;
        }
    }
}

int64_t L2Cache::bytesIn(int64_t line, int64_t lo, int64_t hi, uint16_t mask) const {
    int64_t bytes = 0;
    for (int s = 0; s < kSectors; ++s) {
        if (!(mask & (1u << s))) continue;
        const int64_t start = line * m_granule + s * m_sector;
        bytes += std::max<int64_t>(0, std::min(hi, start + m_sector) - std::max(lo, start));
    }
    return bytes;
}

uint16_t L2Cache::touch(uint32_t line, uint16_t want) {
    const uint16_t valid = m_nodes[line].valid;
    if (m_holdsAll) { // same hits and misses as the LRU list, without maintaining it
        m_count += valid == 0;
        m_nodes[line].valid = static_cast<uint16_t>(valid | want);
        return static_cast<uint16_t>(valid & want);
    }
    if (valid != 0) {
        if (m_head != line) {
            unlink(line);
            pushFront(line);
        }
        m_nodes[line].valid = static_cast<uint16_t>(valid | want);
        return static_cast<uint16_t>(valid & want);
    }
    if (m_count == m_capacity) {
        const uint32_t victim = m_tail;
        unlink(victim);
        m_nodes[victim].valid = 0;
        --m_count;
        ++m_evictions;
    }
    pushFront(line);
    m_nodes[line].valid = want;
    ++m_count;
    return 0;
}

void L2Cache::unlink(uint32_t line) {
    Node& n = m_nodes[line];
    (n.prev == kNil ? m_head : m_nodes[n.prev].next) = n.next;
    (n.next == kNil ? m_tail : m_nodes[n.next].prev) = n.prev;
    n.prev = n.next = kNil;
}

void L2Cache::pushFront(uint32_t line) {
    Node& n = m_nodes[line];
    n.prev = kNil;
    n.next = m_head;
    if (m_head != kNil) m_nodes[m_head].prev = line;
    m_head = line;
    if (m_tail == kNil) m_tail = line;
}

} // namespace pto::sim
