// Counted instruction loops of PTO kernels: rules, rounds and expansion (see PtoLoops.h).
#include "compiler/ir/PtoLoops.h"

#include <fmt/format.h>

#include <stdexcept>

namespace pto {

bool sameButAddresses(const Instr& a, const Instr& b) {
    if (a.opcode != b.opcode || a.pipe != b.pipe || a.operandCount != b.operandCount ||
        a.flagSrc != b.flagSrc || a.flagDst != b.flagDst || a.event != b.event ||
        a.peer != b.peer || a.scalar != b.scalar || a.mode != b.mode ||
        a.transposeA != b.transposeA || a.transposeB != b.transposeB || a.loc != b.loc)
        return false;
    for (size_t j = 0; j < a.operandCount; ++j) {
        const Operand& x = a.operands[j];
        const Operand& y = b.operands[j];
        if (x.space != y.space || x.dtype != y.dtype || x.rows != y.rows || x.cols != y.cols ||
            x.stride != y.stride)
            return false;
    }
    return true;
}

bool hasInstrLoops(const PtoProgram& p) {
    for (const Kernel& k : p.kernels)
        if (!k.loops.empty()) return true;
    return false;
}

Instr loopRoundInstr(const Instr& in, const InstrLoop& loop, size_t offset, int64_t round) {
    Instr out = in;
    const std::array<int64_t, 4>& steps = loop.steps[offset];
    for (size_t j = 0; j < in.operandCount; ++j) out.operands[j].addr += round * steps[j];
    out.event = uint8_t(loopRoundEvent(in, loop, offset, round));
    return out;
}

int loopRoundEvent(const Instr& in, const InstrLoop& loop, size_t offset, int64_t round) {
    const int step = loop.eventStep(offset);
    if (step == 0) return in.event;
    return int((in.event + (round % kFlagEventIds) * step) % kFlagEventIds);
}

std::string instrLoopProblem(const Kernel& k) {
    uint32_t end = 0;
    for (size_t l = 0; l < k.loops.size(); ++l) {
        const InstrLoop& loop = k.loops[l];
        if (loop.begin < end || loop.begin >= loop.end || loop.end > k.instrs.size())
            return fmt::format("loop {} covers instructions [{}, {}), which is empty, outside the "
                               "kernel's {} instructions or overlaps the loop before it",
                               l, loop.begin, loop.end, k.instrs.size());
        if (loop.count < 0) return fmt::format("loop {} has a negative count {}", l, loop.count);
        if (loop.firstIter < 0)
            return fmt::format("loop {} starts at the negative iteration {}", l, loop.firstIter);
        if (loop.steps.size() != loop.end - loop.begin)
            return fmt::format("loop {} has {} address steps for {} instructions", l,
                               loop.steps.size(), loop.end - loop.begin);
        if (loop.iterStride < 1)
            return fmt::format("loop {} covers {} iterations per round (at least 1)", l,
                               loop.iterStride);
        if (!loop.iterOffsets.empty() && loop.iterOffsets.size() != loop.steps.size())
            return fmt::format("loop {} has {} iteration offsets for {} instructions", l,
                               loop.iterOffsets.size(), loop.steps.size());
        if (!loop.eventSteps.empty() && loop.eventSteps.size() != loop.steps.size())
            return fmt::format("loop {} has {} event steps for {} instructions", l,
                               loop.eventSteps.size(), loop.steps.size());
        for (size_t i = 0; i < loop.eventSteps.size(); ++i) {
            const Instr& in = k.instrs[loop.begin + i];
            const bool flag = in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag;
            if (loop.eventSteps[i] != 0 &&
                (!flag || in.event >= kFlagEventIds || loop.eventSteps[i] >= kFlagEventIds))
                return fmt::format("loop {}: instruction {} rotates an event id, but is not a "
                                   "SET_FLAG or WAIT_FLAG with an id and a step below {}",
                                   l, loop.begin + i, kFlagEventIds);
        }
        for (int64_t o : loop.iterOffsets)
            if (o < 0 || o >= loop.iterStride)
                return fmt::format("loop {}: iteration offset {} is outside its round of {}", l, o,
                                   loop.iterStride);
        for (size_t i = 0; i < loop.steps.size(); ++i) {
            const Instr& in = k.instrs[loop.begin + i];
            for (size_t j = in.operandCount; j < 4; ++j)
                if (loop.steps[i][j] != 0)
                    return fmt::format("loop {}: instruction {} has no operand {} to step", l,
                                       loop.begin + i, j);
            // Every round's address must fit in 64 bits (the verifier checks the bounds of the
            // first and the last round, which enclose the others).
            for (size_t j = 0; j < in.operandCount; ++j) {
                int64_t last = 0, addr = 0;
                if (loop.count > 0 &&
                    (__builtin_mul_overflow(loop.steps[i][j], loop.count - 1, &last) ||
                     __builtin_add_overflow(in.operands[j].addr, last, &addr)))
                    return fmt::format("loop {}: the address of instruction {} operand {} "
                                       "overflows in its last round",
                                       l, loop.begin + i, j);
            }
        }
        end = loop.end;
    }
    return {};
}

int64_t executedInstrCount(const Kernel& k) {
    int64_t n = int64_t(k.instrs.size());
    for (const InstrLoop& loop : k.loops) {
        int64_t body = int64_t(loop.end) - int64_t(loop.begin), extra = 0;
        if (__builtin_mul_overflow(body, loop.count - 1, &extra) ||
            __builtin_add_overflow(n, extra, &n))
            return INT64_MAX;
    }
    return n;
}

int64_t writtenIndexOf(const Kernel& k, int64_t executed) {
    int64_t at = 0; // executed instructions before instruction `next`
    uint32_t next = 0;
    for (const InstrLoop& loop : k.loops) {
        if (executed < at + int64_t(loop.begin - next)) return executed - at + next;
        at += loop.begin - next;
        const int64_t body = int64_t(loop.end - loop.begin);
        if (executed < at + body * loop.count) return loop.begin + (executed - at) % body;
        at += body * loop.count;
        next = loop.end;
    }
    const int64_t index = executed - at + next;
    return index < int64_t(k.instrs.size()) ? index : -1;
}

std::string loopIterLabel(const InstrLoop& loop, int64_t round, size_t offset) {
    std::string iters;
    for (int64_t i : loop.outerIters) iters += fmt::format("{}/", i);
    const int64_t within = offset < loop.iterOffsets.size() ? loop.iterOffsets[offset] : 0;
    return fmt::format("{}, iter {}{}", loop.name, iters,
                       loop.firstIter + round * loop.iterStride + within);
}

std::string loopSliceLabel(const InstrLoop& loop, int64_t round, size_t offset) {
    if (loop.name == kTilesLoopName)
        return fmt::format("{}, round {} of {}", loop.name, round + 1, loop.count);
    return loopIterLabel(loop, round, offset);
}

namespace {

void expandKernel(const Kernel& k, Kernel& out, ExpandedKernelMap& map, int64_t maxInstrs) {
    const int64_t total = executedInstrCount(k);
    if (total > maxInstrs)
        throw std::length_error(fmt::format("kernel @{} executes {} instructions with its loops "
                                            "written out, more than {}",
                                            k.name, total, maxInstrs));
    out.instrs.clear();
    out.loops.clear();
    out.instrs.reserve(size_t(total));
    map.compactIndex.reserve(size_t(total));
    map.loop.reserve(size_t(total));
    map.round.reserve(size_t(total));
    auto push = [&](const Instr& in, uint32_t index, int32_t loop, int64_t round) {
        out.instrs.push_back(in);
        map.compactIndex.push_back(index);
        map.loop.push_back(loop);
        map.round.push_back(round);
    };
    uint32_t i = 0;
    for (size_t l = 0; l <= k.loops.size(); ++l) {
        const uint32_t stop = l < k.loops.size() ? k.loops[l].begin : uint32_t(k.instrs.size());
        for (; i < stop; ++i) push(k.instrs[i], i, -1, 0);
        if (l == k.loops.size()) break;
        const InstrLoop& loop = k.loops[l];
        for (int64_t r = 0; r < loop.count; ++r)
            for (uint32_t j = loop.begin; j < loop.end; ++j)
                push(loopRoundInstr(k.instrs[j], loop, j - loop.begin, r), j, int32_t(l), r);
        i = loop.end;
    }
}

} // namespace

LoopExpansion expandInstrLoops(const PtoProgram& p, int64_t maxInstrs) {
    LoopExpansion e;
    e.flat.name = p.name;
    e.flat.gm = p.gm;
    e.flat.exec = p.exec;
    e.flat.kernels.resize(p.kernels.size());
    e.kernels.resize(p.kernels.size());
    for (size_t k = 0; k < p.kernels.size(); ++k) {
        Kernel& out = e.flat.kernels[k];
        out.id = p.kernels[k].id;
        out.name = p.kernels[k].name;
        out.core = p.kernels[k].core;
        expandKernel(p.kernels[k], out, e.kernels[k], maxInstrs);
    }
    return e;
}

} // namespace pto
