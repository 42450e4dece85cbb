// Test helper: writes a small, hand-made trace with TraceWriter — a program of a few ops,
// tasks with known times on known cores, instructions on pipes — so analyses have exact answers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pto::test {

struct SynthInstr {
    std::string pipe;     // S MTE1 MTE2 MTE3 M FIX V
    std::string opcode;   // TLOAD, TADD…
    std::string operands; // as printed, e.g. "GM[0x0]:f16[16x64/64]"
    std::int64_t ts = 0, dur = 0;
    std::int64_t tensorOp = 0; // node id in the root stage
    double flops = 0;          // the instr row's recorded cost (compiler/ir/Cost.h's rule)
    std::int64_t gmBytes = 0;
    std::string srcDtype = "f16";
};

struct SynthTask {
    std::int64_t id = 0;
    std::string coreType = "AIV";
    std::int64_t core = 0;
    std::int64_t start = 0, end = 0;
    std::vector<std::int64_t> deps{}; // tasks it depends on
    std::vector<SynthInstr> instrs{};
    /// false: no node of the Exec stage names it (a replica of a probed cluster).
    bool inExecStage = true;
};

struct SynthOp {
    std::int64_t id = 0;
    std::string kind, name;
    std::int64_t line = 0;
};

struct SynthTrace {
    std::vector<SynthOp> ops;
    std::vector<SynthTask> tasks;
    std::int64_t totalCycles = 0;
    int aicCores = 1, aivCores = 2;
    std::int64_t dispatchCycles = 100;
};

// Clock 1 GHz (1 cycle = 1 ns), so µs = cycles / 1000.
void writeSyntheticTrace(const std::filesystem::path& path, const SynthTrace& trace);

// Three tasks on two AIV cores (see SyntheticTrace.cpp for the timeline and its answers).
SynthTrace twoCoreTrace();

} // namespace pto::test
