// The static synchronisation check of PTO kernels: an abstract run with vector clocks per pipe
// and last readers/writers per on-chip region (see PtoSyncCheck.h).
#include "compiler/ir/PtoSyncCheck.h"

#include "compiler/ir/PtoLoops.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace pto {
namespace {

/// Per pipe: how many of its instructions are known to have completed.
using Clock = std::array<int64_t, kPipeCount>;

void join(Clock& into, const Clock& other) {
    for (int p = 0; p < kPipeCount; ++p) into[p] = std::max(into[p], other[p]);
}

// A straight run of the kernel (1 round) or one counted loop, its instructions split by pipe.
struct Segment {
    uint32_t begin = 0;
    int64_t rounds = 1;
    int32_t loop = -1;
    std::array<std::vector<uint32_t>, kPipeCount> byPipe;
    Clock before{}; ///< executed instructions of each pipe before the segment
};

std::vector<Segment> segmentsOf(const Kernel& k) {
    std::vector<Segment> out;
    Clock executed{};
    auto add = [&](uint32_t begin, uint32_t end, int64_t rounds, int32_t loop) {
        if (begin >= end || rounds <= 0) return;
        Segment& s = out.emplace_back();
        s.begin = begin;
        s.rounds = rounds;
        s.loop = loop;
        s.before = executed;
        for (uint32_t i = begin; i < end; ++i) s.byPipe[int(k.instrs[i].pipe)].push_back(i);
        for (int p = 0; p < kPipeCount; ++p) executed[p] += rounds * int64_t(s.byPipe[p].size());
    };
    uint32_t next = 0;
    for (size_t l = 0; l < k.loops.size(); ++l) {
        add(next, k.loops[l].begin, 1, -1);
        add(k.loops[l].begin, k.loops[l].end, k.loops[l].count, int32_t(l));
        next = k.loops[l].end;
    }
    add(next, uint32_t(k.instrs.size()), 1, -1);
    return out;
}

// Where a pipe's next instruction is: segment, round, position in the segment's pipe list.
struct Cursor {
    size_t segment = 0;
    int64_t round = 0;
    size_t at = 0;
};

// The last read or write of a region by one pipe.
struct Last {
    int64_t pos = -1; ///< its position in the pipe's order, -1 = none
    uint32_t instr = 0;
    int64_t round = 0;
    size_t segment = 0;
};

struct Entry {
    Region region;
    std::array<Last, kPipeCount> reads, writes;
    std::vector<uint32_t> meets; ///< entries whose bytes meet this one's (itself included)
};

struct RegionKey {
    MemSpace space;
    int64_t lo, hi;
    int32_t pitch, rowBytes, rows;
    friend bool operator==(const RegionKey&, const RegionKey&) = default;
};
struct RegionKeyHash {
    size_t operator()(const RegionKey& k) const {
        uint64_t h = uint64_t(k.space);
        for (uint64_t v : {uint64_t(k.lo), uint64_t(k.hi), uint64_t(uint32_t(k.pitch)),
                           uint64_t(uint32_t(k.rowBytes)), uint64_t(uint32_t(k.rows))})
            h = (h ^ v) * 0x100000001b3ull + (h >> 29);
        return size_t(h);
    }
};

constexpr bool onChip(MemSpace s) {
    return s != MemSpace::GM && s != MemSpace::None;
}

// "TLOAD (pipe MTE2, instr 3, kv, iter 5, tile op #2, x.pto:4:3)".
std::string describe(const SyncAccess& a, const Kernel& k, const std::string& file) {
    std::string text =
        fmt::format("{} (pipe {}, instr {}", opcodeName(a.opcode), pipeName(a.pipe), a.instrIndex);
    if (a.loop >= 0) {
        const InstrLoop& loop = k.loops[size_t(a.loop)];
        text += ", " + loopIterLabel(loop, a.round, a.instrIndex - loop.begin);
    }
    if (a.tileOp != kNoId) text += fmt::format(", tile op #{}", a.tileOp);
    if (a.loc.known()) {
        const std::string pos =
            a.loc.col ? fmt::format("{}:{}", a.loc.line, a.loc.col) : fmt::format("{}", a.loc.line);
        text += ", " + (file.empty() ? "line " + pos : file + ":" + pos);
    }
    return text + ")";
}

class KernelSyncCheck {
public:
    KernelSyncCheck(const Kernel& k, uint32_t index, const std::string& file)
        : m_k(k), m_index(index), m_file(file), m_segments(segmentsOf(k)),
          m_cache(k.instrs.size(), {-1, -1, -1, -1}) {
        noteBarrierRequests();
    }

    std::optional<SyncProblem> run() {
        for (int p = 0; p < kPipeCount; ++p) settle(Pipe(p));
        // The earliest instruction in program order that may start: the run follows the
        // listing where the flags allow, so the pair reported is the first one a reader meets.
        while (!m_problem) {
            std::optional<Pipe> next;
            for (int p = 0; p < kPipeCount; ++p)
                if (canStep(Pipe(p)) && (!next || order(Pipe(p)) < order(*next))) next = Pipe(p);
            if (!next) break;
            step(*next);
        }
        if (!m_problem) reportStuck();
        return std::move(m_problem);
    }

private:
    std::tuple<size_t, int64_t, uint32_t> order(Pipe p) const {
        const Cursor& c = m_cursor[int(p)];
        return {c.segment, c.round, head(p)};
    }
    bool atEnd(Pipe p) const { return m_cursor[int(p)].segment >= m_segments.size(); }
    uint32_t head(Pipe p) const {
        const Cursor& c = m_cursor[int(p)];
        return m_segments[c.segment].byPipe[int(p)][c.at];
    }

    // Moves the cursor past exhausted rounds and segments without instructions of the pipe.
    void settle(Pipe p) {
        Cursor& c = m_cursor[int(p)];
        while (c.segment < m_segments.size()) {
            const size_t n = m_segments[c.segment].byPipe[int(p)].size();
            if (c.at < n) return;
            c.at = 0;
            if (n > 0 && ++c.round < m_segments[c.segment].rounds) return;
            c.round = 0;
            ++c.segment;
        }
    }

    // The event id of flag instruction i in round r of segment s (a loop may rotate it).
    int eventAt(uint32_t i, size_t s, int64_t r) const {
        const Instr& in = m_k.instrs[i];
        const Segment& seg = m_segments[s];
        if (seg.loop < 0) return in.event;
        return loopRoundEvent(in, m_k.loops[size_t(seg.loop)], i - seg.begin, r);
    }

    // The key of pipe p's head flag as it runs now.
    int headFlagKey(Pipe p) const {
        const Cursor& c = m_cursor[int(p)];
        const Instr& in = m_k.instrs[head(p)];
        return (int(in.flagSrc) * kPipeCount + int(in.flagDst)) * 256 +
               eventAt(head(p), c.segment, c.round);
    }

    // Executed instructions of `awaited` before the barrier `instr` of segment `s`, round `r`
    // (the simulator's Barrier aux).
    int64_t barrierAux(size_t s, int64_t r, uint32_t instr, Pipe awaited) const {
        const Segment& seg = m_segments[s];
        const std::vector<uint32_t>& list = seg.byPipe[int(awaited)];
        const auto within = std::lower_bound(list.begin(), list.end(), instr) - list.begin();
        return seg.before[int(awaited)] + r * int64_t(list.size()) + within;
    }

    // A barrier of pipe P awaiting Q joins Q's clock as it was when Q completed the awaited
    // instruction: the positions wanted are listed before the run, kept when Q gets there.
    void noteBarrierRequests() {
        for (size_t s = 0; s < m_segments.size(); ++s)
            for (int p = 0; p < kPipeCount; ++p)
                for (uint32_t i : m_segments[s].byPipe[p]) {
                    const Instr& in = m_k.instrs[i];
                    if (in.opcode != Opcode::Barrier || in.flagSrc == in.pipe) continue;
                    for (int64_t r = 0; r < m_segments[s].rounds; ++r)
                        if (int64_t aux = barrierAux(s, r, i, in.flagSrc); aux > 0)
                            m_requests[int(in.flagSrc)].push_back(aux);
                }
        for (std::vector<int64_t>& r : m_requests) {
            std::sort(r.begin(), r.end());
            r.erase(std::unique(r.begin(), r.end()), r.end());
        }
    }

    bool canStep(Pipe p) const {
        if (atEnd(p)) return false;
        const Instr& in = m_k.instrs[head(p)];
        if (in.opcode == Opcode::WaitFlag) {
            const auto it = m_sets.find(headFlagKey(p));
            return it != m_sets.end() && !it->second.empty();
        }
        if (in.opcode == Opcode::Barrier && in.flagSrc != p) {
            const Cursor& c = m_cursor[int(p)];
            return m_pos[int(in.flagSrc)] >= barrierAux(c.segment, c.round, head(p), in.flagSrc);
        }
        return true;
    }

    void step(Pipe p) {
        const Cursor& c = m_cursor[int(p)];
        const uint32_t i = head(p);
        const Instr& in = m_k.instrs[i];
        Clock& known = m_known[int(p)];
        if (in.opcode == Opcode::WaitFlag) {
            std::deque<Clock>& sets = m_sets[headFlagKey(p)];
            join(known, sets.front());
            sets.pop_front();
        } else if (in.opcode == Opcode::Barrier && in.flagSrc != p) {
            const int64_t aux = barrierAux(c.segment, c.round, i, in.flagSrc);
            if (aux > 0) join(known, m_snapshots[int(in.flagSrc)].at(aux));
        }
        for (size_t j = 0; j < in.operandCount && j < 4 && !m_problem; ++j)
            if (onChip(in.operands[j].space)) access(p, i, j);
        if (m_problem) return;
        known[int(p)] = ++m_pos[int(p)];
        if (in.opcode == Opcode::SetFlag) m_sets[headFlagKey(p)].push_back(known);
        std::vector<int64_t>& wanted = m_requests[int(p)];
        size_t& next = m_requestAt[int(p)];
        if (next < wanted.size() && wanted[next] == m_pos[int(p)]) {
            m_snapshots[int(p)][m_pos[int(p)]] = known;
            ++next;
        }
        ++m_cursor[int(p)].at;
        settle(p);
    }

    // Operand j of instruction i as the pipe runs it now: compared with the last accesses of
    // the other pipes to every region its bytes meet, then recorded as the pipe's last.
    void access(Pipe p, uint32_t i, size_t j) {
        const Cursor& c = m_cursor[int(p)];
        const Segment& seg = m_segments[c.segment];
        const Instr& in = m_k.instrs[i];
        const bool write = j == 0;
        Operand o = in.operands[j];
        int64_t step = 0;
        if (seg.loop >= 0) step = m_k.loops[size_t(seg.loop)].steps[i - seg.begin][j];
        o.addr += c.round * step;
        const Region region = regionOf(o, write);
        int32_t& cached = m_cache[i][j];
        const uint32_t id = step == 0 && cached >= 0 ? uint32_t(cached) : entryOf(region);
        if (step == 0) cached = int32_t(id);
        const Clock& known = m_known[int(p)];
        const Last self{m_pos[int(p)], i, c.round, c.segment};
        for (uint32_t e : m_entries[id].meets) {
            const Entry& other = m_entries[e];
            for (int q = 0; q < kPipeCount; ++q) {
                if (q == int(p)) continue;
                for (bool otherWrites : {true, false}) {
                    if (!otherWrites && !write) continue; // read after read
                    const Last& last = otherWrites ? other.writes[q] : other.reads[q];
                    if (last.pos < 0 || known[q] > last.pos) continue;
                    Region theirs = other.region;
                    theirs.write = otherWrites;
                    reportPair(last, Pipe(q), theirs, self, p, region);
                    return;
                }
            }
        }
        (write ? m_entries[id].writes : m_entries[id].reads)[int(p)] = self;
    }

    uint32_t entryOf(const Region& r) {
        const RegionKey key{r.space, r.lo, r.hi, r.pitch, r.rowBytes, r.rows};
        const auto [it, fresh] = m_ids.try_emplace(key, uint32_t(m_entries.size()));
        if (!fresh) return it->second;
        const uint32_t id = it->second;
        std::vector<uint32_t>& sameSpace = m_bySpace[int(r.space)];
        Entry& e = m_entries.emplace_back();
        e.region = r;
        e.region.write = false;
        for (uint32_t other : sameSpace)
            if (intersects(m_entries[other].region, r)) {
                m_entries[other].meets.push_back(id);
                m_entries[id].meets.push_back(other);
            }
        m_entries[id].meets.push_back(id);
        sameSpace.push_back(id);
        return id;
    }

    SyncAccess accessOf(const Last& l, Pipe p, const Region& r) const {
        const Instr& in = m_k.instrs[l.instr];
        return {l.instr, m_segments[l.segment].loop, l.round, in.opcode, p, in.tileOp, in.loc, r};
    }

    void reportPair(const Last& a, Pipe pa, const Region& ra, const Last& b, Pipe pb,
                    const Region& rb) {
        SyncAccess x = accessOf(a, pa, ra), y = accessOf(b, pb, rb);
        const auto order = [](const Last& l) { return std::tuple(l.segment, l.round, l.instr); };
        if (order(b) < order(a)) std::swap(x, y);
        SyncProblem problem;
        problem.kernel = m_index;
        problem.first = x;
        problem.second = y;
        problem.message = fmt::format(
            "kernel @{}: {} {} and {} {} are not ordered ({}): no SET_FLAG/WAIT_FLAG pair or "
            "barrier orders them",
            m_k.name, describe(x, m_k, m_file), accessText(x.region), describe(y, m_k, m_file),
            accessText(y.region), hazardKindName(problem));
        m_problem = std::move(problem);
    }

    // Some pipe's head can never start: name the earliest such instruction in program order.
    void reportStuck() {
        std::optional<Pipe> stuck;
        for (int p = 0; p < kPipeCount; ++p)
            if (!atEnd(Pipe(p)) && (!stuck || order(Pipe(p)) < order(*stuck))) stuck = Pipe(p);
        if (!stuck) return;
        const Cursor& c = m_cursor[int(*stuck)];
        const Last at{m_pos[int(*stuck)], head(*stuck), c.round, c.segment};
        SyncProblem problem;
        problem.kind = SyncProblem::Kind::Stuck;
        problem.kernel = m_index;
        problem.first = accessOf(at, *stuck, Region{});
        const Instr& in = m_k.instrs[at.instr];
        const std::string what =
            in.opcode == Opcode::WaitFlag
                ? fmt::format("no SET_FLAG {}->{}#{} is left to match it", pipeName(in.flagSrc),
                              pipeName(in.flagDst), eventAt(at.instr, c.segment, c.round))
                : fmt::format("the pipe {} it awaits never gets there", pipeName(in.flagSrc));
        problem.message = fmt::format("kernel @{}: {} can never start: {} (a deadlock)", m_k.name,
                                      describe(problem.first, m_k, m_file), what);
        m_problem = std::move(problem);
    }

    const Kernel& m_k;
    uint32_t m_index;
    const std::string& m_file;
    std::vector<Segment> m_segments;
    std::array<Cursor, kPipeCount> m_cursor{};
    std::array<int64_t, kPipeCount> m_pos{}; ///< instructions of each pipe completed
    std::array<Clock, kPipeCount> m_known{};
    std::unordered_map<int, std::deque<Clock>> m_sets;       ///< per flag: clocks of pending sets
    std::array<std::vector<int64_t>, kPipeCount> m_requests; ///< barrier snapshots wanted
    std::array<size_t, kPipeCount> m_requestAt{};
    std::array<std::unordered_map<int64_t, Clock>, kPipeCount> m_snapshots;
    std::vector<Entry> m_entries;
    std::unordered_map<RegionKey, uint32_t, RegionKeyHash> m_ids;
    std::array<std::vector<uint32_t>, 8> m_bySpace;
    std::vector<std::array<int32_t, 4>> m_cache; ///< entry of a non-stepping operand
    std::optional<SyncProblem> m_problem;
};

} // namespace

std::optional<SyncProblem> checkKernelSync(const PtoProgram& p, uint32_t index,
                                           const std::string& file) {
    return KernelSyncCheck(p.kernels.at(index), index, file).run();
}

std::optional<SyncProblem> checkPtoSync(const PtoProgram& p, const std::string& file) {
    for (uint32_t k = 0; k < p.kernels.size(); ++k)
        if (std::optional<SyncProblem> problem = checkKernelSync(p, k, file)) return problem;
    return std::nullopt;
}

std::string_view hazardKindName(const SyncProblem& problem) {
    if (problem.kind == SyncProblem::Kind::Stuck) return "deadlock";
    if (problem.first.region.write) return problem.second.region.write ? "WAW" : "RAW";
    return "WAR";
}

} // namespace pto
