// The per-family executors of PTO instructions: each checks one instruction's operands through
// its InstrContext (throwing SimFault) and then runs the kernel.
#pragma once

#include "simulator/numerics/InstrContext.h"

namespace pto::numerics {

/// TLOAD, TSTORE, TEXTRACT, TMOV (ExecuteMove.cpp).
void executeMove(InstrContext& ctx);
/// TMATMUL, TMATMUL_ACC (ExecuteCube.cpp).
void executeCube(InstrContext& ctx);
/// Every V-pipe opcode (ExecuteVector.cpp).
void executeVector(InstrContext& ctx);

} // namespace pto::numerics
