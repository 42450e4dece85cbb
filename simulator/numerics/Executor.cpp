// FunctionalExecutor: per-core memories, the checks common to every instruction, and the
// dispatch of each opcode to its family's executor.
#include "simulator/numerics/Executor.h"

#include "compiler/ir/PtoShare.h"
#include "simulator/numerics/ExecuteOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace pto {
namespace {

constexpr int kOpcodeCount = 0
#define PTO_OPCODE(name, mnemonic, pipe, flops) +1
#include "compiler/ir/Opcodes.def"
#undef PTO_OPCODE
    ;

} // namespace

FunctionalExecutor::FunctionalExecutor(const PtoProgram& program, const TargetInfo& target,
                                       GlobalMemory& gm, ExecOptions options)
    : m_program(program), m_target(target), m_gm(gm), m_options(std::move(options)),
      m_aic(size_t(std::max(0, target.aicCores))), m_aiv(size_t(std::max(0, target.aivCores))) {}

FunctionalExecutor::~FunctionalExecutor() = default;

CoreMemory& FunctionalExecutor::coreMemory(int coreId, CoreType core) {
    if (core != CoreType::AIC && core != CoreType::AIV)
        throw std::out_of_range(
            fmt::format("core type '{}' has no memories (want aic or aiv)", coreTypeName(core)));
    auto& cores = core == CoreType::AIC ? m_aic : m_aiv;
    if (coreId < 0 || size_t(coreId) >= cores.size())
        throw std::out_of_range(fmt::format("target '{}' has {} {} cores; core {} does not exist",
                                            m_target.name, cores.size(), coreDisplayName(core),
                                            coreId));
    std::unique_ptr<CoreMemory>& slot = cores[size_t(coreId)];
    if (!slot) slot = std::make_unique<CoreMemory>(core, m_target, m_options.checkUninitialized);
    return *slot;
}

void FunctionalExecutor::execute(int coreId, CoreType core, const Instr& instr,
                                 std::span<const GmRebase> rebases) {
    if (rebases.empty()) return executeAt(coreId, core, instr, instr);
    executeAt(coreId, core, rebasedInstr(instr, rebases), instr);
}

void FunctionalExecutor::executeAt(int coreId, CoreType core, const Instr& instr,
                                   const Instr& located) {
    CoreMemory& memory = coreMemory(coreId, core);
    ++m_stats.instructions;
    if (static_cast<int>(instr.opcode) >= kOpcodeCount) {
        FaultSite site =
            numerics::instrSite({&m_program, &m_options.sourceFile, core, coreId, &located}, instr);
        site.opcode.reset(); // it has no name
        throw SimFault(FaultKind::BadInstruction, site,
                       fmt::format("opcode {} does not exist", static_cast<int>(instr.opcode)));
    }
    switch (instr.opcode) {
    case Opcode::SetFlag:
    case Opcode::WaitFlag:
    case Opcode::Barrier:
    case Opcode::CrossSetFlag:
    case Opcode::CrossWaitFlag:
        return; // ordering is the timing engine's job
    default:
        break;
    }
    const numerics::SiteInfo site{&m_program, &m_options.sourceFile, core, coreId, &located};
    numerics::InstrContext ctx(instr, site, m_gm, memory, m_options.checkUninitialized);
    if (!coreHasPipe(core, instr.pipe))
        ctx.bad(
            fmt::format("an {} core has no pipe {}", coreDisplayName(core), pipeName(instr.pipe)));
    if (instr.operandCount > instr.operands.size())
        ctx.bad(fmt::format("operand count {} exceeds the {} operand slots", instr.operandCount,
                            instr.operands.size()));
    switch (instr.opcode) {
    case Opcode::TLoad:
    case Opcode::TStore:
    case Opcode::TExtract:
    case Opcode::TMov:
    case Opcode::MGather:
    case Opcode::MScatter:
        numerics::executeMove(ctx);
        break;
    case Opcode::TMatmul:
    case Opcode::TMatmulAcc:
        numerics::executeCube(ctx);
        break;
    default:
        numerics::executeVector(ctx);
        break;
    }
    ctx.commit();
    m_stats.elements += ctx.elementsWritten();
    m_stats.bytesRead += ctx.bytesRead();
    m_stats.bytesWritten += ctx.bytesWritten();
}

} // namespace pto
