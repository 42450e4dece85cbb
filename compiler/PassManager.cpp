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

namespace {

std::string_view startingProgram(StageKind kind) {
    return kind == StageKind::Pto ? "a PTO listing" : "a Tile-level program";
}

// The passes a program that starts at `from` goes through, comma-separated.
std::string passNames(StageKind from) {
    std::string names;
    for (const PassInfo& p : passRegistry())
        if (p.from >= from) names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
    return names;
}

// A program written below the Tensor level skips the passes before its level: naming one is an
// error, not a stop point or print request that silently never happens.
void checkGoesThrough(const PassInfo& pass, StageKind start, std::string_view option) {
    if (pass.from >= start) return;
    const std::string passes = passNames(start);
    throw std::invalid_argument(fmt::format(
        "{} {}: {} does not go through {}, a pass of the {} level (its lowering "
        "starts at the {} level{})",
        option, pass.name, startingProgram(start), pass.name, stageKindName(pass.from),
        stageKindName(start), passes.empty() ? ", with no pass" : ", with the passes " + passes));
}

void checkStopAfter(const std::string& name, StageKind start) {
    if (const PassInfo* pass = findPass(name))
        return checkGoesThrough(*pass, start, "--stop-after");
    for (int k = 0; k <= int(StageKind::Pto); ++k) {
        if (stageKindName(StageKind(k)) != name) continue;
        if (StageKind(k) >= start) return;
        throw std::invalid_argument(
            fmt::format("--stop-after {}: {} has no {} stage (it starts at the {} level)", name,
                        startingProgram(start), name, stageKindName(start)));
    }
    throw std::invalid_argument(fmt::format(
        "unknown stage '{}' for --stop-after (a level: tensor, tile, block, exec, pto; or a pass: "
        "{})",
        name, passNames(StageKind::Tensor)));
}

void checkPrintAfter(const std::string& name, StageKind start) {
    if (name == "parse") return;
    if (const PassInfo* pass = findPass(name))
        return checkGoesThrough(*pass, start, "--print-after");
    throw std::invalid_argument(
        fmt::format("unknown pass '{}' for --print-after (parse or a pass: {})", name,
                    passNames(StageKind::Tensor)));
}

} // namespace

PassManager::PassManager(CompileState& state, CompileOptions options, PassManagerOptions pmOptions)
    : m_state(state), m_options(std::move(options)), m_pm(std::move(pmOptions)) {
    if (!m_pm.stopAfter.empty()) checkStopAfter(m_pm.stopAfter, m_state.kind);
    for (const std::string& name : m_pm.printAfter) checkPrintAfter(name, m_state.kind);
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
