// reroll-loops: consecutive loop iterations of a kernel back into a counted loop (see
// RerollLoops.h).
#include "compiler/passes/RerollLoops.h"

#include "compiler/ir/PtoLoops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace pto {
namespace {

// A maximal run of instructions of one loop iteration (or of none: loop = -1).
struct Segment {
    uint32_t begin = 0, end = 0;
    int32_t loop = -1;         // index into the label table
    std::vector<int64_t> iter; // the iteration numbers, innermost last
    uint32_t size() const { return end - begin; }
};

// Rounds of up to this many iterations are tried (double buffering alternates two buffer sets,
// round-robin event ids repeat after a few iterations).
constexpr size_t kMaxPeriod = 8;

using Steps = std::vector<std::array<int64_t, 4>>;
using EventSteps = std::vector<uint8_t>; // per instruction, as InstrLoop::eventSteps

// What counts as one iteration besides the program's loops: a matmul's K step (the K steps
// fold, each output block written out around them); one output L1 block of a matmul with all
// its K steps (a task's blocks fold); or one tile a vector kernel streams. In the last two a
// flag id may rotate from round to round (InstrLoop::eventSteps).
enum class FoldBy { KStep, OutputBlock, Tile };

// The output L1 block of every tile op with `k_step` outside a program loop: expand-tiles emits
// a matmul's blocks one after another with K steps 0, 1, …, so a block starts where a matmul's
// K step goes down. -1 for every other op.
std::vector<int64_t> outputBlocks(const Function& tile) {
    std::vector<int64_t> blocks(tile.ops().size(), -1);
    std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> last; // loc: block, step
    for (OpId id = 0; id < tile.ops().size(); ++id) {
        const Op& op = tile.op(id);
        const AttrValue* step = op.attrs.find("k_step");
        if (!step || !std::holds_alternative<int64_t>(*step) || op.attrs.find("loop")) continue;
        const int64_t k = std::get<int64_t>(*step);
        auto [it, fresh] = last.try_emplace({op.loc.line, op.loc.col}, 0, k);
        if (!fresh && k < it->second.second) ++it->second.first;
        it->second.second = k;
        blocks[id] = it->second.first;
    }
    return blocks;
}

// The tile of every op outside program loops and K steps whose result covers a corner of a
// Tensor-level value: the corner's rank among all such corners (row-major), so that the tiles an
// elementwise chain writes one after another into a task are consecutive iterations. -1 for
// every other op.
std::vector<int64_t> tileOrdinals(const Function& tile) {
    // The corner an op's result covers, or none.
    auto cornerOf = [&](const Op& op) -> std::optional<std::vector<int64_t>> {
        if (op.result == kNoId || op.attrs.find("loop") || op.attrs.find("k_step"))
            return std::nullopt;
        const Value& v = tile.value(op.result);
        if (v.origin == kNoId) return std::nullopt;
        const auto dims = v.offset.dims();
        return std::vector<int64_t>(dims.begin(), dims.end());
    };
    std::map<std::vector<int64_t>, int64_t> rank;
    for (const Op& op : tile.ops())
        if (auto corner = cornerOf(op)) rank.try_emplace(std::move(*corner), 0);
    int64_t next = 0;
    for (auto& entry : rank) entry.second = next++;
    std::vector<int64_t> ordinals(tile.ops().size(), -1);
    for (OpId id = 0; id < tile.ops().size(); ++id)
        if (auto corner = cornerOf(tile.op(id))) ordinals[id] = rank.at(*corner);
    return ordinals;
}

bool isFlag(const Instr& in) {
    return in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag;
}

// A candidate loop: `units` rounds of `period` segments from segment `first`.
struct Chain {
    size_t first = 0, period = 1, units = 1;
    size_t instrs = 0; // per round
    Steps steps;
    EventSteps events;
    size_t saved() const { return (units - 1) * instrs; }
};

class KernelReroller {
public:
    // `ordinals`: the iteration of every tile op in `mode` (outputBlocks, tileOrdinals; unused
    // for K steps).
    KernelReroller(const Kernel& k, const Function& tile, FoldBy mode,
                   const std::vector<int64_t>& ordinals)
        : m_k(k), m_tile(tile), m_mode(mode), m_ordinals(ordinals) {}

    // The kernel with its runs of iterations folded, or nullopt when none folds.
    std::optional<Kernel> fold() {
        segment();
        std::vector<Instr> out;
        out.reserve(m_k.instrs.size());
        std::vector<InstrLoop> loops;
        for (size_t s = 0; s < m_segs.size();) {
            Chain best = bestChain(s);
            if (best.units < 2) {
                append(out, m_segs[s]);
                ++s;
                continue;
            }
            loops.push_back(makeLoop(best, uint32_t(out.size())));
            for (size_t q = 0; q < best.period; ++q) append(out, m_segs[s + q]);
            s += best.units * best.period;
        }
        if (loops.empty()) return std::nullopt;
        Kernel folded{m_k.id, m_k.name, m_k.core, std::move(out), {}};
        folded.loops = std::move(loops);
        if (!writesOutTo(folded, m_k)) return std::nullopt; // never expected: keep the kernel
        return folded;
    }

private:
    // The loop an instruction's tile op belongs to (index into the label table, -1 = none)
    // and its iterations: the program's loop (`loop`, `iter`), with a matmul's K steps
    // (`k_step`) as an inner loop named after the matmul. The instructions of one tile op are
    // mostly adjacent, so the last answer is kept.
    const std::pair<int32_t, std::vector<int64_t>>& labelOf(const Instr& in) {
        if (in.tileOp != m_lastOp) {
            m_lastOp = in.tileOp;
            m_lastLabel = computeLabel(in.tileOp);
        }
        return m_lastLabel;
    }

    std::pair<int32_t, std::vector<int64_t>> computeLabel(OpId id) {
        if (id == kNoId || id >= m_tile.ops().size()) return {-1, {}};
        const Op& op = m_tile.op(id);
        const Attrs& a = op.attrs;
        const AttrValue* loop = a.find("loop");
        const AttrValue* step = a.find("k_step");
        std::vector<int64_t> iter;
        if (loop) {
            std::optional<std::vector<int64_t>> outer = a.getInts("iter");
            if (!outer || outer->empty() || !std::holds_alternative<std::string>(*loop))
                return {-1, {}};
            iter = std::move(*outer);
        }
        if (step) {
            if (!std::holds_alternative<int64_t>(*step)) return {-1, {}};
            iter.push_back(std::get<int64_t>(*step));
        }
        if (m_mode == FoldBy::Tile && !loop && !step && m_ordinals[id] >= 0)
            return {labelIndex(std::string(kTilesLoopName), nullptr), {m_ordinals[id]}};
        if (!loop && !step) return {-1, {}};
        if (m_mode == FoldBy::OutputBlock && !loop && m_ordinals[id] >= 0)
            return {labelIndex(std::string(), &op.loc, true), {m_ordinals[id]}};
        return {labelIndex(loop ? std::get<std::string>(*loop) : std::string(),
                           step ? &op.loc : nullptr),
                std::move(iter)};
    }

    // The label table's index of the program loop `loop` ("" = none), with the K steps (or,
    // `blocks`, the output blocks) of the matmul at `matmul` inside it (nullptr = none).
    int32_t labelIndex(const std::string& loop, const SourceLoc* matmul, bool blocks = false) {
        const SourceLoc at = matmul ? *matmul : SourceLoc{};
        if (m_lastName && m_lastName->loop == loop && m_lastName->kSteps == (matmul != nullptr) &&
            m_lastName->blocks == blocks && m_lastName->at == at)
            return m_lastName->index;
        std::string name = loop;
        if (matmul)
            name += (loop.empty() ? "" : "/") + (blocks ? blockLoopName(at) : kStepLoopName(at));
        auto [it, fresh] = m_labels.emplace(std::move(name), int32_t(m_names.size()));
        if (fresh) m_names.push_back(it->first);
        m_lastName = LastName{loop, at, matmul != nullptr, blocks, it->second};
        return it->second;
    }

    // An instruction whose tile op carries no iteration (a copy or sync the Tile passes added
    // after unrolling) belongs to the segment before it.
    void segment() {
        for (uint32_t i = 0; i < m_k.instrs.size(); ++i) {
            const auto& [loop, iter] = labelOf(m_k.instrs[i]);
            if (!m_segs.empty() &&
                ((m_segs.back().loop == loop && m_segs.back().iter == iter) || loop < 0)) {
                m_segs.back().end = i + 1;
                continue;
            }
            m_segs.push_back(Segment{i, i + 1, loop, iter});
        }
    }

    // Segment b is segment a `delta` iterations later (same loop, size and outer iterations).
    static bool laterIteration(const Segment& a, const Segment& b, int64_t delta) {
        return a.loop >= 0 && a.loop == b.loop && a.size() == b.size() &&
               a.iter.size() == b.iter.size() && a.iter.back() + delta == b.iter.back() &&
               std::equal(a.iter.begin(), a.iter.end() - 1, b.iter.begin());
    }

    // The address steps (and, rotating, the event step) of instruction x to y, equal but for
    // their addresses (and flag ids); false otherwise.
    bool stepOf(const Instr& x, const Instr& y, std::array<int64_t, 4>& d, uint8_t& ev) const {
        ev = 0;
        if (m_mode != FoldBy::KStep && isFlag(x) && isFlag(y) && x.event != y.event &&
            x.event < kFlagEventIds && y.event < kFlagEventIds) {
            Instr same = y;
            same.event = x.event;
            if (!sameButAddresses(x, same)) return false;
            ev = uint8_t((y.event - x.event + kFlagEventIds) % kFlagEventIds);
        } else if (!sameButAddresses(x, y)) {
            return false;
        }
        d = {};
        for (size_t j = 0; j < x.operandCount; ++j)
            if (__builtin_sub_overflow(y.operands[j].addr, x.operands[j].addr, &d[j])) return false;
        return true;
    }

    // Segment b is segment a `delta` iterations later: appends the steps to `steps`, `events`.
    bool stepsBetween(const Segment& a, const Segment& b, int64_t delta, Steps& steps,
                      EventSteps& events) const {
        if (!laterIteration(a, b, delta)) return false;
        std::array<int64_t, 4> d;
        uint8_t ev = 0;
        for (uint32_t i = 0; i < a.size(); ++i) {
            if (!stepOf(m_k.instrs[a.begin + i], m_k.instrs[b.begin + i], d, ev)) return false;
            steps.push_back(d);
            events.push_back(ev);
        }
        return true;
    }

    // The steps from round `u` to round u + 1 of `period` segments from `first`, or nullopt.
    std::optional<std::pair<Steps, EventSteps>> roundSteps(size_t first, size_t period,
                                                           size_t u) const {
        const size_t a = first + u * period, b = a + period;
        if (b + period > m_segs.size()) return std::nullopt;
        std::pair<Steps, EventSteps> steps;
        for (size_t q = 0; q < period; ++q)
            if (!stepsBetween(m_segs[a + q], m_segs[b + q], int64_t(period), steps.first,
                              steps.second))
                return std::nullopt;
        return steps;
    }

    // Whether round u + 1 of `period` segments from `first` follows round `u` by `steps`
    // (roundSteps(first, period, u) == steps, without building the steps: a long K loop asks
    // this once per round).
    bool roundStepsAre(size_t first, size_t period, size_t u, const Steps& steps,
                       const EventSteps& events) const {
        const size_t a = first + u * period, b = a + period;
        if (b + period > m_segs.size()) return false;
        size_t at = 0;
        std::array<int64_t, 4> d;
        uint8_t ev = 0;
        for (size_t q = 0; q < period; ++q) {
            const Segment &x = m_segs[a + q], &y = m_segs[b + q];
            if (!laterIteration(x, y, int64_t(period))) return false;
            for (uint32_t i = 0; i < x.size(); ++i, ++at)
                if (at >= steps.size() ||
                    !stepOf(m_k.instrs[x.begin + i], m_k.instrs[y.begin + i], d, ev) ||
                    d != steps[at] || ev != events[at])
                    return false;
        }
        return at == steps.size();
    }

    // The segments of round 0 are consecutive iterations of one loop.
    bool consecutive(size_t first, size_t period) const {
        if (first + period > m_segs.size()) return false;
        const Segment& s0 = m_segs[first];
        for (size_t q = 1; q < period; ++q) {
            const Segment& s = m_segs[first + q];
            if (s.loop < 0 || s.loop != s0.loop || s.iter.size() != s0.iter.size() ||
                s.iter.back() != s0.iter.back() + int64_t(q) ||
                !std::equal(s.iter.begin(), s.iter.end() - 1, s0.iter.begin()))
                return false;
        }
        return s0.loop >= 0;
    }

    Chain bestChain(size_t first) const {
        Chain best;
        best.first = first;
        // Output blocks fold one per round: their flag ids rotate instead, and a round of
        // several blocks would pair blocks across a row of the output, whose steps hold for
        // one round only and then cost the long run along the next row.
        const size_t maxPeriod = m_mode == FoldBy::OutputBlock ? 1 : kMaxPeriod;
        for (size_t period = 1; period <= maxPeriod; ++period) {
            if (!consecutive(first, period)) break;
            auto steps = roundSteps(first, period, 0);
            if (!steps) continue;
            Chain c{first, period, 2, 0, std::move(steps->first), std::move(steps->second)};
            for (size_t q = 0; q < period; ++q) c.instrs += m_segs[first + q].size();
            while (roundStepsAre(first, period, c.units - 1, c.steps, c.events)) ++c.units;
            if (c.saved() > best.saved()) best = std::move(c);
        }
        return best;
    }

    InstrLoop makeLoop(Chain& c, uint32_t at) const {
        const Segment& first = m_segs[c.first];
        InstrLoop loop;
        loop.begin = at;
        loop.end = at + uint32_t(c.instrs);
        loop.count = int64_t(c.units);
        loop.firstIter = first.iter.back();
        loop.iterStride = int64_t(c.period);
        if (c.period > 1)
            for (size_t q = 0; q < c.period; ++q)
                loop.iterOffsets.insert(loop.iterOffsets.end(), m_segs[c.first + q].size(),
                                        int64_t(q));
        loop.outerIters.assign(first.iter.begin(), first.iter.end() - 1);
        loop.name = m_names[size_t(first.loop)];
        loop.steps = std::move(c.steps);
        if (std::any_of(c.events.begin(), c.events.end(), [](uint8_t e) { return e != 0; }))
            loop.eventSteps = std::move(c.events);
        return loop;
    }

    void append(std::vector<Instr>& out, const Segment& s) const {
        out.insert(out.end(), m_k.instrs.begin() + s.begin, m_k.instrs.begin() + s.end);
    }

    // Whether `folded`, its loops written out, is `original` (tile ops aside).
    static bool writesOutTo(const Kernel& folded, const Kernel& original) {
        if (executedInstrCount(folded) != int64_t(original.instrs.size())) return false;
        size_t at = 0;
        // x in round `round` of `loop` (nullptr: outside loops) is the next original one.
        auto same = [&](const Instr& x, const InstrLoop* loop, size_t offset, int64_t round) {
            const Instr& y = original.instrs[at++];
            const Instr run = loop ? loopRoundInstr(x, *loop, offset, round) : x;
            if (!sameButAddresses(run, y)) return false;
            for (size_t j = 0; j < run.operandCount; ++j)
                if (run.operands[j].addr != y.operands[j].addr) return false;
            return true;
        };
        uint32_t i = 0;
        for (size_t l = 0; l <= folded.loops.size(); ++l) {
            const uint32_t stop =
                l < folded.loops.size() ? folded.loops[l].begin : uint32_t(folded.instrs.size());
            for (; i < stop; ++i)
                if (!same(folded.instrs[i], nullptr, 0, 0)) return false;
            if (l == folded.loops.size()) break;
            const InstrLoop& loop = folded.loops[l];
            for (int64_t r = 0; r < loop.count; ++r)
                for (uint32_t j = loop.begin; j < loop.end; ++j)
                    if (!same(folded.instrs[j], &loop, j - loop.begin, r)) return false;
            i = loop.end;
        }
        return true;
    }

    const Kernel& m_k;
    const Function& m_tile;
    FoldBy m_mode;
    const std::vector<int64_t>& m_ordinals;
    std::vector<Segment> m_segs;
    std::map<std::string, int32_t> m_labels;
    std::vector<std::string> m_names;
    struct LastName {
        std::string loop;
        SourceLoc at;
        bool kSteps = false;
        bool blocks = false;
        int32_t index = -1;
    };
    std::optional<LastName> m_lastName;
    std::optional<OpId> m_lastOp; // the tile op of m_lastLabel
    std::pair<int32_t, std::vector<int64_t>> m_lastLabel{-1, {}};
};

} // namespace

std::string kStepLoopName(const SourceLoc& matmul) {
    return fmt::format("matmul@{}:{}.k", matmul.line, matmul.col);
}

std::string blockLoopName(const SourceLoc& matmul) {
    return fmt::format("matmul@{}:{}.block", matmul.line, matmul.col);
}

RerollStats rerollLoops(PtoProgram& program, const Function& tile) {
    RerollStats stats;
    const std::vector<int64_t> blocks = outputBlocks(tile), tiles = tileOrdinals(tile);
    // A way applies when the program has two iterations of its kind (its loops and K steps
    // then fold with rotating flag ids too).
    auto several = [](const std::vector<int64_t>& v) {
        return std::any_of(v.begin(), v.end(), [](int64_t o) { return o > 0; });
    };
    const bool severalBlocks = several(blocks), severalTiles = several(tiles);
    for (Kernel& k : program.kernels) {
        stats.instrsBefore += int64_t(k.instrs.size());
        if (k.loops.empty()) {
            // Each way of folding that applies: the one that leaves fewer instructions wins, a
            // tie keeps the K steps (the only way before output blocks and tiles).
            std::optional<Kernel> best = KernelReroller(k, tile, FoldBy::KStep, blocks).fold();
            for (auto [mode, ordinals] :
                 {std::pair{FoldBy::OutputBlock, &blocks}, std::pair{FoldBy::Tile, &tiles}}) {
                if (!(mode == FoldBy::OutputBlock ? severalBlocks : severalTiles)) continue;
                std::optional<Kernel> other = KernelReroller(k, tile, mode, *ordinals).fold();
                const size_t shortest = best ? best->instrs.size() : k.instrs.size();
                if (other && other->instrs.size() < shortest) best = std::move(other);
            }
            if (best) {
                stats.loops += int64_t(best->loops.size());
                k = std::move(*best);
            }
        }
        stats.instrsAfter += int64_t(k.instrs.size());
    }
    return stats;
}

} // namespace pto
