// The pass manager: run, verify, time, print and observe each pass.
#include "compiler/PassManager.h"

#include "compiler/FaultInjection.h"
#include "compiler/ir/BlockPrinter.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/Verifier.h"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

namespace pto {

PassManager::PassManager(CompileState& state, CompileOptions options, PassManagerOptions pmOptions)
    : m_state(state), m_options(std::move(options)), m_pm(std::move(pmOptions)) {
    if (!m_pm.stopAfter.empty() && !findPass(m_pm.stopAfter)) {
        bool isLevel = false;
        for (int k = 0; k <= int(StageKind::Pto); ++k)
            isLevel |= stageKindName(StageKind(k)) == m_pm.stopAfter;
        if (!isLevel)
            throw std::invalid_argument(fmt::format(
                "unknown stage '{}' for --stop-after (a pass name or tensor/tile/block/exec/pto)",
                m_pm.stopAfter));
    }
}

void PassManager::start() {
    notify("parse", 0);
    maybePrint("parse");
}

bool PassManager::run(std::string_view passName) {
    if (m_stopped) return false;
    const PassInfo* pass = findPass(passName);
    if (!pass) throw std::logic_error(fmt::format("no pass named '{}'", passName));
    if (pass->from < m_state.kind) return true; // the program was written at a lower level
    if (pass->from == StageKind::Tensor) m_state.tensor.linkToPreviousStage();
    if (pass->from == StageKind::Tile && pass->to == StageKind::Tile)
        m_state.tile.linkToPreviousStage();

    auto t0 = std::chrono::steady_clock::now();
    try {
        pass->run(m_state, m_options);
    } catch (const CompileError& error) {
        if (!error.file().empty() || m_state.file.empty()) throw;
        // Passes deep in the lowering know the op and its line but not the file name.
        throw CompileError(m_state.file, error.loc(), error.message());
    }
    if (pass->to == StageKind::Tensor) m_state.tensor.renumber();
    if (pass->to == StageKind::Tile) m_state.tile.renumber();
    if (m_options.fault.active() && faultPass(m_options.fault.kind) == passName)
        m_state.planted = injectFault(m_state, m_options.fault); // debug: plant a known defect
    double micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();

    m_timings.push_back({std::string(passName), micros});
    if (verifiesAfter(*pass)) verify(pass->to);
    notify(passName, micros);
    maybePrint(passName);
    if (isStopPoint(*pass)) m_stopped = true;
    return true;
}

void PassManager::verify(StageKind kind) {
    switch (kind) {
    case StageKind::Tensor:
        verifyFunction(m_state.tensor, m_state.file);
        break;
    case StageKind::Tile:
        verifyFunction(m_state.tile, m_state.file);
        break;
    case StageKind::Pto:
        verifyPtoProgram(m_state.pto, m_state.file);
        break;
    case StageKind::Block:
    case StageKind::Exec:
        break; // their passes check their own invariants
    }
}

void PassManager::notify(std::string_view pass, double micros) {
    StageEvent event{m_ordinal++, pass, m_state.kind, m_state, micros};
    for (StageObserver* o : m_observers) o->onStage(event);
}

void PassManager::maybePrint(std::string_view pass) {
    if (!m_pm.printStream) return;
    bool wanted = m_pm.printAfterAll || std::find(m_pm.printAfter.begin(), m_pm.printAfter.end(),
                                                  pass) != m_pm.printAfter.end();
    if (!wanted) return;
    *m_pm.printStream << fmt::format("// ----- IR after {} ({} level) -----\n", pass,
                                     stageKindName(m_state.kind))
                      << printStage(m_state) << "\n";
}

bool PassManager::verifiesAfter(const PassInfo& pass) const {
    switch (m_options.verify) {
    case VerifyStages::EachPass:
        return true;
    case VerifyStages::LevelEnds:
        return isLastPassOfLevel(pass) || isStopPoint(pass);
    case VerifyStages::Off:
        return false;
    }
    return true;
}

bool PassManager::isStopPoint(const PassInfo& pass) const {
    if (m_pm.stopAfter.empty()) return false;
    if (pass.name == m_pm.stopAfter) return true;
    // A level name stops after the last pass that produces that level.
    return stageKindName(pass.to) == m_pm.stopAfter && isLastPassOfLevel(pass);
}

std::string printStage(const CompileState& state) {
    switch (state.kind) {
    case StageKind::Tensor:
        return printFunction(state.tensor);
    case StageKind::Tile:
        return printFunction(state.tile);
    case StageKind::Block:
        return printBlockProgram(state.block);
    case StageKind::Exec:
        return printExecGraph(state.exec, state.block);
    case StageKind::Pto:
        return printPtoProgram(state.pto);
    }
    return {};
}

} // namespace pto
