// Opcode tables of the PTO level.
#include "compiler/ir/Pto.h"

#include "compiler/ir/Block.h"

#include <algorithm>

namespace pto {
namespace {

struct OpcodeInfo {
    std::string_view mnemonic;
    Pipe pipe;
};

constexpr OpcodeInfo kOpcodes[] = {
#define PTO_OPCODE(name, mnemonic, pipe) OpcodeInfo{mnemonic, Pipe::pipe},
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

std::string_view gmRoleName(GmRole role) {
    constexpr std::string_view kNames[] = {"input", "output", "workspace"};
    return kNames[static_cast<int>(role)];
}

int64_t PtoProgram::gmBytes() const {
    int64_t end = 0;
    for (const GmTensor& t : gm) end = std::max(end, t.addr + t.bytes());
    return end;
}

std::string_view syncKindName(SyncKind kind) {
    constexpr std::string_view kNames[] = {"set_flag", "wait_flag", "barrier"};
    return kNames[static_cast<int>(kind)];
}

} // namespace pto
