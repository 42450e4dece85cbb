// Which unit of a core an opcode uses, as far as timing is concerned: DMA engines, the cube,
// the vector unit or the flag/barrier logic.
#pragma once

#include "compiler/ir/Pto.h"

namespace pto::sim {

enum class OpcodeClass : unsigned char {
    Dma,  ///< TLOAD, TSTORE, TEXTRACT, TMOV, MGATHER, MSCATTER: time from dma.* rates and latencies
    Cube, ///< TMATMUL, TMATMUL_ACC: startup + slope x fractals
    Vector, ///< elementwise, tile-scalar, row/column, layout: startup + slope x repeats
    Sync,   ///< SET_FLAG, WAIT_FLAG, BARRIER, CROSS_*: startup (+ the wait)
};

constexpr OpcodeClass opcodeClass(Opcode op) {
    if (isDataMove(op)) return OpcodeClass::Dma;
    switch (op) {
    case Opcode::TMatmul:
    case Opcode::TMatmulAcc:
        return OpcodeClass::Cube;
    case Opcode::SetFlag:
    case Opcode::WaitFlag:
    case Opcode::Barrier:
    case Opcode::CrossSetFlag:
    case Opcode::CrossWaitFlag:
        return OpcodeClass::Sync;
    default:
        return OpcodeClass::Vector;
    }
}

/// The number of opcodes of compiler/ir/Opcodes.def.
inline constexpr int kOpcodeCount = 0
#define PTO_OPCODE(name, mnemonic, pipe, flops) +1
#include "compiler/ir/Opcodes.def"
#undef PTO_OPCODE
    ;

} // namespace pto::sim
