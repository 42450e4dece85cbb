// Live ranges of on-chip buffers recovered from a kernel's instructions (see BufferOccupancy.h).
#include "simulator/engine/BufferOccupancy.h"

#include <algorithm>
#include <utility>

namespace pto::sim {
namespace {

constexpr MemSpace kSpaces[kOccupancySpaces] = {MemSpace::L1, MemSpace::L0A, MemSpace::L0B,
                                                MemSpace::L0C, MemSpace::UB};

struct Range {
    int64_t lo = 0, hi = 0;
};

// The bounding byte range of an operand (a row broadcast reads one row).
Range rangeOf(const Operand& o) {
    const int64_t size = dtypeSize(o.dtype);
    const int64_t rows = o.rows <= 1 || o.stride == 0 ? 1 : o.rows;
    return {o.addr, o.addr + ((rows - 1) * o.stride + o.cols) * size};
}

struct LiveBuffer {
    Range range;
    uint32_t lastUse = 0;
};

// (instruction, delta) pairs into compressed rows indexed by instruction.
class RowBuilder {
public:
    void add(uint32_t instr, int space, int64_t bytes) {
        m_items.push_back({instr, {space, bytes}});
    }
    template <typename Rows> void build(Rows& rows, size_t instrs) {
        std::stable_sort(m_items.begin(), m_items.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        rows.begin.assign(instrs + 1, 0);
        for (const auto& item : m_items) ++rows.begin[item.first + 1];
        for (size_t i = 0; i < instrs; ++i) rows.begin[i + 1] += rows.begin[i];
        rows.deltas.reserve(m_items.size());
        for (const auto& item : m_items) rows.deltas.push_back(item.second);
    }

private:
    std::vector<std::pair<uint32_t, OccupancyDelta>> m_items;
};

bool overlaps(const Range& a, const Range& b) {
    return a.lo < b.hi && b.lo < a.hi;
}

} // namespace

int occupancyIndex(MemSpace space) {
    for (int i = 0; i < kOccupancySpaces; ++i)
        if (kSpaces[i] == space) return i;
    return -1;
}

MemSpace occupancySpace(int index) {
    return kSpaces[index];
}

KernelOccupancy::KernelOccupancy(const Kernel& kernel) {
    std::array<std::vector<LiveBuffer>, kOccupancySpaces> live;
    RowBuilder starts, ends;
    auto release = [&](int space, const LiveBuffer& b) {
        ends.add(b.lastUse, space, -(b.range.hi - b.range.lo));
    };
    const auto count = static_cast<uint32_t>(kernel.instrs.size());
    for (uint32_t i = 0; i < count; ++i) {
        const Instr& in = kernel.instrs[i];
        const std::span<const Operand> ops = in.ops();
        for (size_t k = 1; k < ops.size(); ++k) { // reads
            const int space = occupancyIndex(ops[k].space);
            if (space < 0) continue;
            const Range r = rangeOf(ops[k]);
            for (LiveBuffer& b : live[space])
                if (overlaps(b.range, r)) b.lastUse = i;
        }
        if (ops.empty()) continue;
        const int space = occupancyIndex(ops[0].space);
        if (space < 0) continue;
        const Range w = rangeOf(ops[0]);
        std::vector<LiveBuffer>& buffers = live[space];
        // Accumulating into a live buffer, or writing a piece of one, keeps it alive.
        auto inside = std::find_if(buffers.begin(), buffers.end(), [&](const LiveBuffer& b) {
            const bool within = b.range.lo <= w.lo && w.hi <= b.range.hi;
            const bool same = b.range.lo == w.lo && b.range.hi == w.hi;
            return within && (!same || in.opcode == Opcode::TMatmulAcc);
        });
        if (inside != buffers.end()) {
            inside->lastUse = i;
            continue;
        }
        auto dead = std::stable_partition(buffers.begin(), buffers.end(), [&](const LiveBuffer& b) {
            return !overlaps(b.range, w);
        });
        for (auto it = dead; it != buffers.end(); ++it) release(space, *it);
        buffers.erase(dead, buffers.end());
        buffers.push_back({w, i});
        starts.add(i, space, w.hi - w.lo);
    }
    for (int space = 0; space < kOccupancySpaces; ++space)
        for (const LiveBuffer& b : live[space]) release(space, b);
    starts.build(m_start, count);
    ends.build(m_end, count);
    std::array<int64_t, kOccupancySpaces> now{};
    for (uint32_t i = 0; i < count; ++i) {
        for (const OccupancyDelta& d : atStart(i))
            m_peak[d.space] = std::max(m_peak[d.space], now[d.space] += d.bytes);
        for (const OccupancyDelta& d : atEnd(i)) now[d.space] += d.bytes;
    }
}

const KernelOccupancy& BufferOccupancy::kernel(uint32_t index) {
    std::vector<KernelOccupancy>& slot = m_kernels[index];
    if (slot.empty()) slot.emplace_back(m_program.kernels[index]);
    return slot.front();
}

} // namespace pto::sim
