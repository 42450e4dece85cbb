// Runs passes by name on a CompileState: verifies after each pass, times it, prints the IR
// after it on request, and hands every stage to observers (the trace_db recorder).
#pragma once

#include "compiler/CompileState.h"
#include "compiler/PassRegistry.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace pto {

// One snapshot of the program: after parsing (pass = "parse") or after a pass.
struct StageEvent {
    int ordinal = 0;       // 0 for the parsed program, then 1, 2, … per pass
    std::string_view pass; // pass name
    StageKind kind;        // the level the state is at now
    const CompileState& state;
    double micros = 0; // the pass's wall time
};

class StageObserver {
public:
    virtual ~StageObserver() = default;
    virtual void onStage(const StageEvent& event) = 0;
};

struct PassTiming {
    std::string pass;
    double micros = 0;
};

struct PassManagerOptions {
    bool printAfterAll = false;
    std::vector<std::string> printAfter; // pass names
    std::ostream* printStream = nullptr; // where printed IR goes (default: none)
    std::string stopAfter;               // a pass name or a level name (tensor, tile, …)
};

class PassManager {
public:
    PassManager(CompileState& state, CompileOptions options, PassManagerOptions pmOptions = {});

    void addObserver(StageObserver* observer) { m_observers.push_back(observer); }
    // Announces the parsed program as stage 0.
    void start();
    // Runs one pass. Returns false once the stop-after point has been passed (nothing runs).
    bool run(std::string_view passName);

    bool stopped() const { return m_stopped; }
    const std::vector<PassTiming>& timings() const { return m_timings; }
    const CompileOptions& options() const { return m_options; }

private:
    void verify(StageKind kind);
    void notify(std::string_view pass, double micros);
    void maybePrint(std::string_view pass);
    bool isStopPoint(const PassInfo& pass) const;
    // Whether the level's verifier runs after `pass` (CompileOptions::verify).
    bool verifiesAfter(const PassInfo& pass) const;

    CompileState& m_state;
    CompileOptions m_options;
    PassManagerOptions m_pm;
    std::vector<StageObserver*> m_observers;
    std::vector<PassTiming> m_timings;
    int m_ordinal = 0;
    bool m_stopped = false;
};

// Prints the program at the level the state is at (Tensor/Tile text, Block, Exec, PTO listing).
std::string printStage(const CompileState& state);

} // namespace pto
