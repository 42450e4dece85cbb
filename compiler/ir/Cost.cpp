// The FLOP rule of the roofline, applied to Tensor ops and to PTO instructions.
#include "compiler/ir/Cost.h"

#include "compiler/ir/Graph.h"
#include "compiler/ir/OpKind.h"

#include <vector>

namespace pto {

double ruleFlops(FlopRule rule, int64_t resultElems, int64_t sourceElems, int64_t k) {
    switch (rule) {
    case FlopRule::Matmul:
        return 2.0 * double(resultElems) * double(k);
    case FlopRule::Reduce:
        return double(sourceElems);
    case FlopRule::Elementwise:
        return double(resultElems);
    case FlopRule::None:
        break;
    }
    return 0;
}

namespace {

FlopRule opFlopRule(OpKind kind) {
    if (kind == OpKind::Matmul || kind == OpKind::MatmulAcc) return FlopRule::Matmul;
    if (opInfo(kind).cls == OpClass::Reduce) return FlopRule::Reduce;
    if (isElementwise(kind) && kind != OpKind::Cast) return FlopRule::Elementwise;
    return FlopRule::None;
}

} // namespace

double countFlops(const Function& f) {
    return countFlops(f, {}, 1.0);
}

double countFlops(const Function& f, std::string_view loop, double loopScale) {
    double flops = 0;
    for (const Op& op : f.ops()) {
        // A loop still written as one (a Tile-level kernel's, as parsed): its body every trip.
        if (op.kind == OpKind::For && op.body.size() == 1) {
            flops += double(loopTripCount(op)) * countFlops(op.body.front(), loop, loopScale);
            continue;
        }
        if (op.result == kNoId) continue;
        const FlopRule rule = opFlopRule(op.kind);
        if (rule == FlopRule::None) continue;
        const Type& out = f.type(op.result);
        // matmul_acc's A follows its accumulator.
        const Type& src = f.type(op.operands[op.kind == OpKind::MatmulAcc ? 1 : 0]);
        int64_t k = 0;
        if (rule == FlopRule::Matmul)
            k = op.attrs.has("transpose_a") ? src.shape[src.shape.rank() - 2] : src.shape.back();
        const double scale = !loop.empty() && op.attrs.getString("loop") == loop ? loopScale : 1.0;
        flops += scale * ruleFlops(rule, out.shape.numel(), src.shape.numel(), k);
    }
    return flops;
}

int rateOperand(const Instr& in) {
    if (opcodeFlopRule(in.opcode) != FlopRule::Matmul) return in.operandCount > 1 ? 1 : -1;
    int a = -1;
    for (int i = 1; i < in.operandCount; ++i)
        if (in.operands[i].space == MemSpace::L0A) a = i;
    return a;
}

double instrFlops(const Instr& in) {
    const FlopRule rule = opcodeFlopRule(in.opcode);
    if (rule == FlopRule::None || in.operandCount == 0) return 0;
    auto elems = [&](int i) { return int64_t(in.operands[i].rows) * in.operands[i].cols; };
    const Operand& dst = in.operands[0];
    if (rule == FlopRule::Matmul) {
        // A is m×k (k×m when transposed): its elements over the result's m rows give k.
        const int a = rateOperand(in);
        if (a < 0 || dst.rows <= 0) return 0;
        return ruleFlops(rule, elems(0), elems(a), elems(a) / dst.rows);
    }
    return ruleFlops(rule, elems(0), in.operandCount > 1 ? elems(1) : elems(0), 0);
}

double countFlops(const PtoProgram& program) {
    std::vector<double> launches(program.kernels.size(), 0.0);
    for (const Task& t : program.exec.tasks)
        if (t.block < launches.size()) launches[t.block] += 1;
    double flops = 0;
    for (size_t k = 0; k < program.kernels.size(); ++k) {
        const Kernel& kernel = program.kernels[k];
        // Every round of a loop has the shapes of its first (only addresses step).
        std::vector<double> rounds(kernel.instrs.size(), 1.0);
        for (const InstrLoop& loop : kernel.loops)
            for (uint32_t i = loop.begin; i < loop.end && i < rounds.size(); ++i)
                rounds[i] = double(loop.count);
        double once = 0;
        for (size_t i = 0; i < kernel.instrs.size(); ++i)
            once += rounds[i] * instrFlops(kernel.instrs[i]);
        flops += launches[k] * once;
    }
    return flops;
}

int64_t instrGmBytes(const Instr& in) {
    // A gather moves the destination's rows (its GM operand spans every row it may pick).
    if (in.opcode == Opcode::MGather) return in.operandCount > 0 ? in.operands[0].bytes() : 0;
    if (in.opcode != Opcode::TLoad && in.opcode != Opcode::TStore) return 0;
    int64_t bytes = 0;
    for (const Operand& o : in.ops())
        if (o.space == MemSpace::GM) bytes = o.bytes();
    return bytes;
}

} // namespace pto
