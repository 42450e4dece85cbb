// Simulator throughput: simulated instructions per second in timing-only mode without a
// trace (CPU time; end to end through simulate(), and the event loop alone), and trace rows
// (slices, flows, counter samples) per second at the Full trace level (wall time, until the writer
// thread has inserted every row; commit excluded), on a double-buffered load / compute / store
// pipeline over every core of the default chip.
#include "simulator/Simulator.h"
#include "simulator/engine/Engine.h"
#include "trace_db/TraceWriter.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using namespace pto;

Operand tile(MemSpace space, int64_t addr, int32_t rows, int32_t cols, DType dtype = DType::F16) {
    Operand o;
    o.space = space;
    o.dtype = dtype;
    o.addr = addr;
    o.rows = rows;
    o.cols = cols;
    o.stride = cols;
    return o;
}

Instr make(Opcode op, Pipe pipe, std::initializer_list<Operand> operands) {
    Instr in;
    in.opcode = op;
    in.pipe = pipe;
    for (const Operand& o : operands) in.operands[in.operandCount++] = o;
    return in;
}

Instr flag(Opcode op, Pipe src, Pipe dst, int event) {
    Instr in;
    in.opcode = op;
    in.pipe = op == Opcode::SetFlag ? src : dst;
    in.flagSrc = src;
    in.flagDst = dst;
    in.event = static_cast<uint8_t>(event);
    return in;
}

// An AIV kernel: `tiles` iterations of load (MTE2) -> exp, adds (V) -> store (MTE3) on 32x128
// f16 tiles, double buffered with the usual flags (12 instructions per tile).
Kernel vectorKernel(int tiles, int64_t gmIn, int64_t gmOut) {
    Kernel k;
    k.core = CoreType::AIV;
    constexpr int64_t kTile = 32 * 128 * 2;
    for (int slot = 0; slot < 2; ++slot) {
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::V, Pipe::MTE2, slot));
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::MTE3, Pipe::V, slot));
    }
    for (int t = 0; t < tiles; ++t) {
        const int s = t % 2;
        const Operand in = tile(MemSpace::UB, s * kTile, 32, 128);
        const Operand out = tile(MemSpace::UB, (2 + s) * kTile, 32, 128);
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::V, Pipe::MTE2, s));
        k.instrs.push_back(
            make(Opcode::TLoad, Pipe::MTE2, {in, tile(MemSpace::GM, gmIn, 32, 128)}));
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::MTE2, Pipe::V, s));
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::MTE2, Pipe::V, s));
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::MTE3, Pipe::V, s));
        k.instrs.push_back(make(Opcode::TExp, Pipe::V, {out, in}));
        Instr adds = make(Opcode::TAddS, Pipe::V, {out, out});
        adds.scalar = 1.0;
        k.instrs.push_back(adds);
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::V, Pipe::MTE2, s));
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::V, Pipe::MTE3, s));
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::V, Pipe::MTE3, s));
        k.instrs.push_back(
            make(Opcode::TStore, Pipe::MTE3, {tile(MemSpace::GM, gmOut, 32, 128), out}));
        k.instrs.push_back(flag(Opcode::SetFlag, Pipe::MTE3, Pipe::V, s));
    }
    for (int slot = 0; slot < 2; ++slot) {
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::V, Pipe::MTE2, slot));
        k.instrs.push_back(flag(Opcode::WaitFlag, Pipe::MTE3, Pipe::V, slot));
    }
    return k;
}

// Every AIV core runs `waves` tasks of `tiles` tiles each.
PtoProgram pipelineProgram(int tiles, int waves) {
    PtoProgram p;
    p.name = "bench_pipeline";
    GmTensor x{"x", DType::F16, {32, 128}, 0, GmRole::Input, kNoId};
    GmTensor y{"y", DType::F16, {32, 128}, 8192, GmRole::Output, kNoId};
    p.gm = {x, y};
    for (uint32_t t = 0; t < static_cast<uint32_t>(48 * waves); ++t) {
        Kernel k = vectorKernel(tiles, 0, 8192);
        k.id = t;
        // (append, not "lit" + std::string: GCC 12 -O3 reports a false -Wrestrict on the latter)
        k.name = std::string("k").append(std::to_string(t));
        p.kernels.push_back(std::move(k));
        p.exec.tasks.push_back(
            Task{t, t, CoreType::AIV, std::string("t").append(std::to_string(t))});
    }
    return p;
}

int64_t instructionCount(const PtoProgram& p) {
    int64_t n = 0;
    for (const Kernel& k : p.kernels) n += static_cast<int64_t>(k.instrs.size());
    return n;
}

void BM_SimTimingOnly(benchmark::State& st) {
    const PtoProgram program = pipelineProgram(static_cast<int>(st.range(0)), 2);
    const sim::ArchConfig arch;
    sim::SimOptions options;
    options.timingOnly = true;
    options.traceLevel = sim::TraceLevel::None;
    int64_t cycles = 0;
    for (auto _ : st) cycles = sim::simulate(program, arch, {}, options).totalCycles.count();
    const auto n = static_cast<double>(instructionCount(program));
    st.counters["instrs"] = n;
    st.counters["sim_cycles"] = static_cast<double>(cycles);
    st.counters["instrs_per_s"] =
        benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}
// Timed: simulate() end to end — checking and preparing the program (TimedProgram), the
// event loop, the result. Not timed: building the PtoProgram.
BENCHMARK(BM_SimTimingOnly)->Arg(1000)->Unit(benchmark::kMillisecond);

// Timed: the event loop alone (Engine::run). Not timed: the TimedProgram, prepared once.
void BM_SimEngineOnly(benchmark::State& st) {
    const PtoProgram program = pipelineProgram(static_cast<int>(st.range(0)), 2);
    const sim::ArchConfig arch;
    sim::SimOptions options;
    options.timingOnly = true;
    options.traceLevel = sim::TraceLevel::None;
    const sim::CostModel costs(arch);
    const sim::TimedProgram timed(program, arch, costs);
    int64_t cycles = 0;
    for (auto _ : st) {
        sim::Engine engine(timed, arch, costs, options, nullptr, nullptr);
        cycles = engine.run().totalCycles.count();
    }
    const auto n = static_cast<double>(timed.instructionCount());
    st.counters["instrs"] = n;
    st.counters["sim_cycles"] = static_cast<double>(cycles);
    st.counters["instrs_per_s"] =
        benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SimEngineOnly)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_SimTracedFull(benchmark::State& st) {
    const PtoProgram program = pipelineProgram(static_cast<int>(st.range(0)), 1);
    const sim::ArchConfig arch;
    sim::SimOptions options;
    options.timingOnly = true;
    options.traceLevel = sim::TraceLevel::Full;
    const auto path = std::filesystem::temp_directory_path() / "pto_bench_sim.db";
    int64_t rows = 0;
    for (auto _ : st) {
        // Timed: the run with every row inserted (simulate returns after the writer thread
        // drained). Not timed: creating the file and commit's index build.
        st.PauseTiming();
        auto writer = pto::tracedb::TraceWriter::create(path);
        st.ResumeTiming();
        rows = sim::simulate(program, arch, {}, options, &writer).traceRows;
        st.PauseTiming();
        writer.commit();
        st.ResumeTiming();
    }
    std::filesystem::remove(path);
    st.counters["trace_rows"] = static_cast<double>(rows);
    st.counters["events_per_s"] = benchmark::Counter(static_cast<double>(rows),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SimTracedFull)->Arg(200)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

} // namespace

// `pto run samples/gemm_4096.pto` with numerics (seeded f16 inputs, every instruction executed
// on real data, outputs written), wall time of the whole command.
void BM_SimGemm4096WithNumerics(benchmark::State& st) {
    const auto dir = std::filesystem::temp_directory_path() / "pto-bench-gemm-numerics";
    std::filesystem::create_directories(dir);
    const std::string command = std::string(PTO_CLI) + " run " + PTO_SOURCE_DIR +
                                "/samples/gemm_4096.pto --seed 1 --trace tasks -o " +
                                (dir / "gemm.db").string() + " --outputs " +
                                (dir / "out").string() + " > /dev/null";
    for (auto _ : st) {
        const auto start = std::chrono::steady_clock::now();
        if (std::system(command.c_str()) != 0) {
            st.SkipWithError("pto run failed");
            break;
        }
        st.SetIterationTime(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SimGemm4096WithNumerics)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
