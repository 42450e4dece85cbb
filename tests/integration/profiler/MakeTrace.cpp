// Test helper tool: compiles and simulates a .pto program into a trace file (as `pto run`),
// so the profiler tests and benchmarks can make traces with chosen options.
#include "driver/Session.h"

#include <fmt/format.h>

#include <cstring>
#include <exception>

int main(int argc, char** argv) {
    if (argc < 3) {
        fmt::print(stderr, "usage: profiler_make_trace PROGRAM.pto OUT.db [--level L] "
                           "[--no-double-buffer] [--timing-only] [--set k=v]...\n");
        return 2;
    }
    pto::RunOptions o;
    o.program = argv[1];
    o.tracePath = argv[2];
    o.sim.traceLevel = pto::sim::TraceLevel::Full;
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--no-double-buffer")
            o.compile.doubleBuffer = false;
        else if (a == "--timing-only")
            o.sim.timingOnly = true;
        else if (a == "--level" && i + 1 < argc)
            o.sim.traceLevel = *pto::sim::parseTraceLevel(argv[++i]);
        else if (a == "--set" && i + 1 < argc)
            o.archOverrides.push_back(argv[++i]);
        else if (a == "--tiles-per-task" && i + 1 < argc)
            o.compile.tilesPerTask = std::atoi(argv[++i]);
    }
    try {
        pto::RunResult r = pto::runProgram(o);
        fmt::print("{} cycles, {} tasks, {} instrs{}\n", r.sim.totalCycles.count(),
                   r.sim.tasks.size(), r.sim.instructions,
                   r.faultMessage.empty() ? "" : " FAULT " + r.faultMessage);
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    }
    return 0;
}
