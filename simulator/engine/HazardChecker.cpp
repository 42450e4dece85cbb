// Detection of instructions on different pipes of one core touching the same on-chip bytes at
// overlapping times or against program order, one of them writing (see HazardChecker.h).
#include "simulator/engine/HazardChecker.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <utility>

namespace pto::sim {
namespace {

/// The first pair of regions, one of each side, that share bytes with at least one writing:
/// their indices, or (-1, -1).
std::pair<int, int> firstConflict(std::span<const Region> mine, std::span<const Region> theirs) {
    for (size_t a = 0; a < mine.size(); ++a)
        for (size_t b = 0; b < theirs.size(); ++b)
            if ((mine[a].write || theirs[b].write) && intersects(mine[a], theirs[b]))
                return {int(a), int(b)};
    return {-1, -1};
}

// "TCVT (pipe V, instr 7, tile op #3, x.pto:5:3)".
std::string describe(const HazardAccess& a, const std::string& file) {
    std::string text =
        fmt::format("{} (pipe {}, instr {}", opcodeName(a.opcode), pipeName(a.pipe), a.instrIndex);
    if (a.tileOp != kNoId) text += fmt::format(", tile op #{}", a.tileOp);
    if (a.loc.known()) {
        const std::string pos =
            a.loc.col ? fmt::format("{}:{}", a.loc.line, a.loc.col) : fmt::format("{}", a.loc.line);
        text += ", from " + (file.empty() ? "line " + pos : file + ":" + pos);
    }
    return text + ")";
}

std::string overlapText(const HazardAccess& a, const HazardAccess& b, const std::string& file) {
    return fmt::format("overlapping live buffers: {} {} during cycles {}–{} while {} {} during "
                       "cycles {}–{}; no flag or barrier orders them",
                       describe(a, file), accessText(a.region), a.start, a.end, describe(b, file),
                       accessText(b.region), b.start, b.end);
}

std::string orderText(const HazardAccess& ran, const HazardAccess& earlier,
                      const std::string& file) {
    const std::string when =
        earlier.start < 0 ? std::string("has started")
                          : fmt::format("has completed (running since cycle {})", earlier.start);
    return fmt::format("out of program order: {} {} from cycle {}, before {} — which comes "
                       "first in the program and {} — {}; no flag or barrier orders them",
                       describe(ran, file), accessText(ran.region), ran.start,
                       describe(earlier, file), accessText(earlier.region), when);
}

FaultSite overlapSite(CoreType coreType, int core, int64_t kernel, int64_t cycle,
                      const std::string& file) {
    FaultSite site;
    site.coreType = coreType;
    site.core = core;
    site.kernel = kernel;
    site.cycle = cycle;
    site.file = file;
    return site;
}

// The on-chip regions of an instruction's operands (up to four; operand 0 is written).
uint8_t regionsOf(const Instr& in, std::array<Region, 4>& out) {
    uint8_t count = 0;
    for (size_t i = 0; i < in.operandCount && count < 4; ++i) {
        const Operand& o = in.operands[i];
        if (o.space != MemSpace::GM && o.space != MemSpace::None)
            out[count++] = regionOf(o, i == 0);
    }
    return count;
}

bool timesOverlap(int64_t s1, int64_t e1, int64_t s2, int64_t e2) {
    return s1 < e2 && s2 < e1;
}

} // namespace

OverlapFault::OverlapFault(CoreType coreType, int core, int64_t kernel, HazardAccess first,
                           HazardAccess second, int64_t cycle, const std::string& sourceFile,
                           bool outOfOrder)
    : SimFault(FaultKind::Overlap, overlapSite(coreType, core, kernel, cycle, sourceFile),
               outOfOrder ? orderText(first, second, sourceFile)
                          : overlapText(first, second, sourceFile)),
      m_first(std::move(first)), m_second(std::move(second)) {}

HazardChecker::HazardChecker(int aicCount, int cores, std::string sourceFile)
    : m_aicCount(aicCount), m_sourceFile(std::move(sourceFile)),
      m_inFlight(static_cast<size_t>(cores) * kPipeCount), m_active(static_cast<size_t>(cores)) {}

void HazardChecker::start(int slot, const TimedKernel& /*kernel*/, const Kernel& source,
                          uint32_t kernelIndex, const TimedInstr& ti, int64_t now, int64_t end) {
    InFlight& starting = entry(slot, ti.pipe);
    starting.source = &source;
    starting.instr = &ti;
    starting.kernelIndex = kernelIndex;
    starting.start = now;
    starting.end = end;
    starting.regionCount = std::min<uint8_t>(ti.regionCount, 4);
    starting.readSpaces = ti.readSpaces;
    starting.writeSpaces = ti.writeSpaces;
    regionsOf(source.instrs[ti.index], starting.regions);
    const auto touched = static_cast<uint8_t>(ti.readSpaces | ti.writeSpaces);
    for (uint32_t mask = m_active[slot]; mask != 0; mask &= mask - 1) {
        const InFlight& running = entry(slot, static_cast<Pipe>(std::countr_zero(mask)));
        const bool shared = (ti.writeSpaces & (running.readSpaces | running.writeSpaces)) ||
                            (touched & running.writeSpaces);
        if (!shared || (running.end >= 0 && running.end <= now)) continue;
        compare(slot, running, starting);
    }
    m_active[slot] |= 1u << static_cast<uint32_t>(ti.pipe);
}

void HazardChecker::compare(int slot, const InFlight& running, const InFlight& starting) {
    const uint8_t na = running.regionCount;
    const uint8_t nb = starting.regionCount;
    for (uint8_t i = 0; i < na; ++i) {
        const Region& a = running.regions[i];
        for (uint8_t j = 0; j < nb; ++j) {
            const Region& b = starting.regions[j];
            if (!(a.write || b.write) || !intersects(a, b)) continue;
            const Conflict c{slot, running, starting, a, b};
            if (running.end < 0 || starting.end < 0) {
                m_pending.push_back(c);
                return;
            }
            if (timesOverlap(running.start, running.end, starting.start, starting.end))
                raise(c, starting.start);
            return;
        }
    }
}

void HazardChecker::finish(int slot, Pipe pipe, int64_t now) {
    const uint32_t bit = 1u << static_cast<uint32_t>(pipe);
    if (!(m_active[slot] & bit)) return;
    m_active[slot] &= ~bit;
    if (m_pending.empty()) return;
    const TimedInstr* done = entry(slot, pipe).instr;
    for (size_t i = 0; i < m_pending.size();) {
        Conflict& c = m_pending[i];
        if (c.slot == slot) {
            if (c.first.instr == done && c.first.end < 0) c.first.end = now;
            if (c.second.instr == done && c.second.end < 0) c.second.end = now;
        }
        if (c.first.end < 0 || c.second.end < 0) {
            ++i;
            continue;
        }
        if (timesOverlap(c.first.start, c.first.end, c.second.start, c.second.end)) raise(c, now);
        m_pending.erase(m_pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

void HazardChecker::checkOrder(int slot, const TimedKernel& kernel, const Kernel& source,
                               uint32_t kernelIndex, const TimedInstr& ti,
                               const std::array<uint32_t, kPipeCount>& queued,
                               std::span<const int32_t> flags, int64_t now) const {
    const auto touched = static_cast<uint8_t>(ti.readSpaces | ti.writeSpaces);
    std::array<Region, 4> mine{};
    uint8_t count = 0;
    for (size_t p = 0; p < kPipeCount; ++p) {
        if (p == static_cast<size_t>(ti.pipe)) continue;
        const uint32_t end = kernel.pipeBegin[p + 1];
        for (uint32_t i = queued[p], seen = 0; i < end && seen < kOrderLookahead; ++i, ++seen) {
            const TimedInstr& other = kernel.instrs[i];
            if (other.index > ti.index) break; // the rest of the queue comes later
            const bool shared = (ti.writeSpaces & (other.readSpaces | other.writeSpaces)) ||
                                (touched & other.writeSpaces);
            if (!shared || !other.regionCount) continue;
            if (count == 0) count = regionsOf(source.instrs[ti.index], mine);
            std::array<Region, 4> theirs{};
            const uint8_t n = regionsOf(source.instrs[other.index], theirs);
            const auto [a, b] =
                firstConflict(std::span(mine.data(), count), std::span(theirs.data(), n));
            if (a < 0) continue;
            if (heldBack(kernel, queued[p], i, ti.pipe, flags)) break; // and the rest of the queue
            raiseOrder(slot, source, kernelIndex, ti, mine[a], other, theirs[b], now);
        }
    }
}

bool HazardChecker::heldBack(const TimedKernel& kernel, uint32_t from, uint32_t at, Pipe pipe,
                             std::span<const int32_t> flags) {
    std::array<std::pair<uint16_t, int32_t>, kOrderLookahead> used{}; // (flag, waits so far)
    size_t usedCount = 0;
    for (uint32_t i = from; i < at; ++i) {
        const TimedInstr& t = kernel.instrs[i];
        if (t.kind != InstrKind::WaitFlag || t.flag / kEventIds / kPipeCount != int(pipe)) continue;
        auto* it = std::find_if(used.begin(), used.begin() + usedCount,
                                [&](const auto& u) { return u.first == t.flag; });
        if (it == used.begin() + usedCount) {
            if (usedCount == used.size()) return false; // beyond the look-ahead: not proven
            *it = {t.flag, 0};
            ++usedCount;
        }
        if (++it->second > flags[t.flag]) return true;
    }
    return false;
}

void HazardChecker::raiseOrder(int slot, const Kernel& source, uint32_t kernelIndex,
                               const TimedInstr& ti, const Region& mine, const TimedInstr& earlier,
                               const Region& theirs, int64_t now, int64_t earlierStart) const {
    auto access = [&](const TimedInstr& t, const Region& r, int64_t at) {
        const Instr& in = source.instrs[t.index];
        return HazardAccess{t.pipe, t.index, in.opcode, in.tileOp, in.loc, r, at, -1};
    };
    const bool aic = slot < m_aicCount;
    throw OverlapFault(aic ? CoreType::AIC : CoreType::AIV, aic ? slot : slot - m_aicCount,
                       kernelIndex, access(ti, mine, now), access(earlier, theirs, earlierStart),
                       now, m_sourceFile, true);
}

void HazardChecker::raise(const Conflict& c, int64_t cycle) const {
    auto access = [](const InFlight& f, const Region& region) {
        const Instr& in = f.source->instrs[f.instr->index];
        return HazardAccess{f.instr->pipe, f.instr->index, in.opcode, in.tileOp,
                            in.loc,        region,         f.start,   f.end};
    };
    const bool aic = c.slot < m_aicCount;
    throw OverlapFault(aic ? CoreType::AIC : CoreType::AIV, aic ? c.slot : c.slot - m_aicCount,
                       c.first.kernelIndex, access(c.first, c.firstRegion),
                       access(c.second, c.secondRegion), cycle, m_sourceFile);
}

} // namespace pto::sim
