// Opcode tables of the PTO level.
#include "compiler/ir/Pto.h"

#include "compiler/ir/Block.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto {
namespace {

struct OpcodeInfo {
    std::string_view mnemonic;
    Pipe pipe;
    FlopRule flops;
};

constexpr OpcodeInfo kOpcodes[] = {
#define PTO_OPCODE(name, mnemonic, pipe, flops) OpcodeInfo{mnemonic, Pipe::pipe, FlopRule::flops},
#include "compiler/ir/Opcodes.def"
#undef PTO_OPCODE
};

} // namespace

std::string_view opcodeName(Opcode op) {
    return kOpcodes[static_cast<int>(op)].mnemonic;
}
Pipe opcodeDefaultPipe(Opcode op) {
    return kOpcodes[static_cast<int>(op)].pipe;
}
FlopRule opcodeFlopRule(Opcode op) {
    return kOpcodes[static_cast<int>(op)].flops;
}

std::optional<Opcode> parseOpcode(std::string_view mnemonic) {
    for (size_t i = 0; i < std::size(kOpcodes); ++i)
        if (kOpcodes[i].mnemonic == mnemonic) return Opcode(i);
    return std::nullopt;
}

bool rowStrideValid(const Instr& in, size_t index) {
    const Operand& o = in.operands[index];
    if (o.stride < 0) return false;
    if (o.rows <= 1 || o.stride >= o.cols) return true;
    return o.stride == 0 && index > 0 && opcodeDefaultPipe(in.opcode) == Pipe::V;
}

std::optional<ByteRange> operandBytes(const Operand& o) {
    int64_t span = 0, bytes = 0, end = 0;
    if (__builtin_mul_overflow(int64_t(o.rows) - 1, o.stride, &span) ||
        __builtin_add_overflow(span, int64_t(o.cols), &span) ||
        __builtin_mul_overflow(span, int64_t(dtypeSize(o.dtype)), &bytes) ||
        __builtin_add_overflow(o.addr, bytes, &end))
        return std::nullopt;
    return ByteRange{o.addr, end};
}

std::string operandShapeProblem(const Instr& in, size_t index) {
    const Operand& o = in.operands[index];
    if (o.rows >= 1 && o.cols >= 1 && rowStrideValid(in, index)) return {};
    return fmt::format("has shape {}x{} with row stride {} (need rows, cols >= 1 and a row stride "
                       ">= cols, or 0 for a vector source's row broadcast)",
                       o.rows, o.cols, o.stride);
}

std::string operandSpaceProblem(const Operand& o, CoreType core) {
    if (coreHasSpace(core, o.space)) return {};
    return fmt::format("is in {}, which an {} core does not have", memSpaceName(o.space),
                       coreDisplayName(core));
}

namespace {
// -0x20, not 0x-20.
std::string signedHex(int64_t v) {
    return v < 0 ? fmt::format("-0x{:x}", -uint64_t(v)) : fmt::format("0x{:x}", v);
}
} // namespace

std::string operandBoundsProblem(const Operand& o, int64_t limit) {
    const std::optional<ByteRange> r = operandBytes(o);
    if (!r) return fmt::format("covers more than 2^63 bytes of {}", memSpaceName(o.space));
    if (r->begin >= 0 && r->end <= limit) return {};
    if (r->begin < 0)
        return fmt::format("covers {} [{}, {}), which starts below address 0",
                           memSpaceName(o.space), signedHex(r->begin), signedHex(r->end));
    return fmt::format("covers {} [0x{:x}, 0x{:x}), beyond its {} bytes", memSpaceName(o.space),
                       r->begin, r->end, limit);
}

std::string_view gmRoleName(GmRole role) {
    constexpr std::string_view kNames[] = {"input", "output", "workspace", "inout"};
    return kNames[static_cast<int>(role)];
}

int64_t PtoProgram::gmBytes() const {
    int64_t end = 0;
    for (const GmTensor& t : gm) end = std::max(end, t.addr + t.bytes());
    return end;
}

std::string_view syncKindName(SyncKind kind) {
    constexpr std::string_view kNames[] = {"set_flag", "wait_flag", "barrier", "cross_set_flag",
                                           "cross_wait_flag"};
    return kNames[static_cast<int>(kind)];
}

std::optional<Pipe> movePipe(const Instr& in) {
    if (!isDataMove(in.opcode) || in.operandCount < 2) return std::nullopt;
    using M = MemSpace;
    const M dst = in.operands[0].space, src = in.operands[1].space;
    if (src == M::GM && (dst == M::UB || dst == M::L1)) return Pipe::MTE2;
    if ((src == M::UB || src == M::L1) && dst == M::GM) return Pipe::MTE3;
    if (src == M::L0C && (dst == M::GM || dst == M::L1)) return Pipe::FIX;
    if (src == M::L1 && (dst == M::L0A || dst == M::L0B)) return Pipe::MTE1;
    if (src == M::UB && dst == M::UB) return Pipe::V;
    return std::nullopt;
}

} // namespace pto
