// Tests of the simulator's trace output: the track hierarchy, one slice per instruction and
// task, waits and stalls with reasons, flows that bind to existing slices, counters, meta, the
// trace levels, and appending to a trace that already holds slices.
#include "simulator/Simulator.h"
#include "simulator/engine/BufferOccupancy.h"
#include "trace_db/TraceReader.h"

#include "SimTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

namespace pto::sim {
namespace {

namespace fs = std::filesystem;
using test::addScalar;
using test::instr;
using test::ProgramBuilder;
using test::setFlag;
using test::tile;
using test::waitFlag;
using tracedb::SliceCategory;
using tracedb::TrackKind;

// An AIV task (load, +1, store, with flags) followed by a dependent AIC matmul task.
PtoProgram twoTasks() {
    ProgramBuilder b("two_tasks");
    const int64_t x = b.tensor("x", DType::F16, {64, 128}, GmRole::Input);
    const int64_t y = b.tensor("y", DType::F16, {64, 128}, GmRole::Output);
    const Operand u0 = tile(MemSpace::UB, 0, 64, 128);
    const Operand u1 = tile(MemSpace::UB, 16384, 64, 128);
    const uint32_t vec = b.kernel(
        CoreType::AIV,
        {instr(Opcode::TLoad, Pipe::MTE2, {u0, tile(MemSpace::GM, x, 64, 128)}),
         setFlag(Pipe::MTE2, Pipe::V), waitFlag(Pipe::MTE2, Pipe::V), addScalar(u1, u0, 1.0),
         setFlag(Pipe::V, Pipe::MTE3), waitFlag(Pipe::V, Pipe::MTE3),
         instr(Opcode::TStore, Pipe::MTE3, {tile(MemSpace::GM, y, 64, 128), u1})});
    const uint32_t cube = b.kernel(
        CoreType::AIC, {instr(Opcode::TMatmul, Pipe::M,
                              {tile(MemSpace::L0C, 0, 128, 256, DType::F32),
                               tile(MemSpace::L0A, 0, 128, 64), tile(MemSpace::L0B, 0, 64, 256)})});
    b.task(vec);
    b.task(cube);
    b.dep(0, 1);
    return b.program();
}

class TraceTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_path =
            fs::temp_directory_path() /
            ("pto_sim_trace_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
        fs::remove(m_path);
    }
    void TearDown() override { fs::remove(m_path); }

    SimResult run(TraceLevel level, bool timingOnly = true) {
        auto writer = tracedb::TraceWriter::create(m_path);
        SimOptions options;
        options.timingOnly = timingOnly;
        options.traceLevel = level;
        const TensorData x = randomTensor(DType::F16, {64, 128}, 1);
        SimResult r = simulate(m_program, ArchConfig(), std::span(&x, 1), options, &writer);
        writer.commit();
        return r;
    }

    std::vector<tracedb::SliceRow> allSlices(const tracedb::TraceReader& reader) const {
        std::vector<tracedb::SliceRow> out;
        for (const tracedb::TrackRow& t : reader.tracks())
            for (tracedb::SliceRow& s : reader.slices(t.id)) out.push_back(std::move(s));
        return out;
    }

    PtoProgram m_program = twoTasks();
    fs::path m_path;
};

TEST_F(TraceTest, TrackHierarchyChipCorePipe) {
    run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    const auto tracks = reader.tracks();
    std::map<int64_t, tracedb::TrackRow> byId;
    for (const auto& t : tracks) byId[t.id] = t;
    int chips = 0, cores = 0, counters = 0, busyCounters = 0;
    for (const auto& t : tracks) {
        if (t.kind == TrackKind::Chip) {
            ++chips;
            EXPECT_FALSE(t.parentId);
        }
        if (t.kind == TrackKind::Counter) ++counters;
        if (t.kind != TrackKind::Core) continue;
        ++cores;
        EXPECT_EQ(byId.at(*t.parentId).kind, TrackKind::Chip);
        std::set<std::string> pipes, occupancy;
        for (const auto& c : tracks) {
            if (c.parentId != t.id) continue;
            EXPECT_EQ(c.coreId, t.coreId);
            EXPECT_EQ(c.coreType, t.coreType);
            if (c.kind == TrackKind::Counter) {
                const std::string counter = *reader.stringOf(c.nameId);
                if (counter.ends_with(" busy %")) {
                    ++busyCounters;
                    EXPECT_EQ(counter, c.pipe + " busy %");
                } else {
                    occupancy.insert(counter);
                }
                continue;
            }
            EXPECT_EQ(c.kind, TrackKind::Pipe);
            pipes.insert(c.pipe);
        }
        const bool aic = t.coreType == "AIC";
        const std::set<std::string> expected =
            aic ? std::set<std::string>{"S", "MTE1", "MTE2", "M", "FIX", "MTE3"}
                : std::set<std::string>{"S", "MTE2", "V", "MTE3"};
        EXPECT_EQ(pipes, expected);
        const std::set<std::string> aicSpaces = {"L1 KiB", "L0A KiB", "L0B KiB", "L0C KiB"};
        EXPECT_EQ(occupancy, aic ? aicSpaces : std::set<std::string>{"UB KiB"});
        const std::string name = *reader.stringOf(t.nameId);
        EXPECT_EQ(name, t.coreType + " " + std::to_string(*t.coreId));
    }
    EXPECT_EQ(chips, 1);
    EXPECT_EQ(cores, 72);
    // HBM GB/s, L2 GB/s, L2 hit %, ready AIC/AIV tasks; buffer occupancy; busy % of each pipe
    // that ran something
    EXPECT_GT(busyCounters, 0);
    EXPECT_EQ(counters, 5 + 24 * 4 + 48 + busyCounters);
}

// Each "<pipe> busy %" sample equals the share of its window the pipe's instruction slices
// cover, recomputed here from the slices.
TEST_F(TraceTest, BusyCountersMatchTheSlicesOfTheirPipe) {
    const SimResult result = run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    const auto tracks = reader.tracks();
    int checked = 0;
    for (const auto& counter : tracks) {
        if (counter.kind != TrackKind::Counter || counter.pipe.empty()) continue;
        int64_t pipeTrack = -1;
        for (const auto& t : tracks)
            if (t.kind == TrackKind::Pipe && t.parentId == counter.parentId &&
                t.pipe == counter.pipe)
                pipeTrack = t.id;
        ASSERT_GE(pipeTrack, 0) << counter.pipe;
        const auto samples = reader.counters(counter.id);
        const auto slices = reader.slices(pipeTrack);
        ASSERT_FALSE(samples.empty());
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const int64_t from = samples[i].ts;
            const int64_t to =
                i + 1 < samples.size() ? samples[i + 1].ts : result.totalCycles.count();
            int64_t busy = 0;
            for (const auto& s : slices)
                if (s.category == SliceCategory::Instr)
                    busy += std::max<int64_t>(0, std::min(to, s.ts + s.dur) - std::max(from, s.ts));
            EXPECT_NEAR(samples[i].value, 100.0 * double(busy) / double(to - from), 1e-9)
                << counter.pipe << " window " << from;
            ++checked;
        }
    }
    EXPECT_GT(checked, 3);
}

// 60 independent AIV tasks on 48 AIV cores: 12 wait for a core at cycle 0, none at the end.
TEST_F(TraceTest, ReadyTaskCounterCountsTasksWaitingForACore) {
    ProgramBuilder b("many_tasks");
    const int64_t x = b.tensor("x", DType::F16, {64, 128}, GmRole::Input);
    const uint32_t vec = b.kernel(
        CoreType::AIV, {instr(Opcode::TLoad, Pipe::MTE2,
                              {tile(MemSpace::UB, 0, 64, 128), tile(MemSpace::GM, x, 64, 128)})});
    for (int i = 0; i < 60; ++i) b.task(vec);
    m_program = b.program();
    run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    std::map<std::string, std::vector<tracedb::CounterRow>> ready;
    for (const auto& t : reader.tracks())
        if (t.kind == TrackKind::Counter && reader.stringOf(t.nameId)->starts_with("ready "))
            ready[*reader.stringOf(t.nameId)] = reader.counters(t.id);
    ASSERT_EQ(ready.size(), 2U);
    const auto& aiv = ready["ready AIV tasks"];
    ASSERT_FALSE(aiv.empty());
    EXPECT_EQ(aiv.front().ts, 0);
    EXPECT_EQ(aiv.front().value, 12.0);
    EXPECT_EQ(aiv.back().value, 0.0);
    for (const auto& r : ready["ready AIC tasks"]) EXPECT_EQ(r.value, 0.0);
}

TEST_F(TraceTest, SlicesFlowsCountersAndMeta) {
    const SimResult r = run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    EXPECT_EQ(reader.meta("clock_hz"), "1800000000");
    EXPECT_EQ(reader.meta("trace_level"), "full");
    EXPECT_EQ(reader.meta("sim_total_cycles"), std::to_string(r.totalCycles.count()));
    EXPECT_EQ(reader.meta("arch_name"), "910B-like");
    EXPECT_NE(reader.meta("arch_config")->find(R"("hbm.bandwidth":"1.6 TB/s")"), std::string::npos);

    const auto slices = allSlices(reader);
    std::map<int64_t, tracedb::SliceRow> byId;
    std::map<SliceCategory, int> perCategory;
    for (const auto& s : slices) {
        byId[s.id] = s;
        ++perCategory[s.category];
    }
    EXPECT_EQ(perCategory[SliceCategory::Instr], r.instructions);
    EXPECT_EQ(perCategory[SliceCategory::Task], 2 + 1); // + the run's marker
    EXPECT_GE(perCategory[SliceCategory::Wait], 2);     // V waits for the load, MTE3 for V
    EXPECT_EQ(perCategory[SliceCategory::Stall], 2);    // one dispatch stall per task

    // Instruction slices: named by opcode, numbered 1 + running index over kernels.
    std::set<int64_t> instrIds;
    for (const auto& s : slices) {
        if (s.category != SliceCategory::Instr) continue;
        ASSERT_TRUE(s.instrId && s.taskId);
        instrIds.insert(*s.instrId);
        const int64_t index = *s.instrId - 1;
        const Instr& in =
            index < 7 ? m_program.kernels[0].instrs[index] : m_program.kernels[1].instrs[index - 7];
        EXPECT_EQ(*reader.stringOf(s.nameId), opcodeName(in.opcode));
        EXPECT_EQ(*s.taskId, index < 7 ? 0 : 1);
        EXPECT_GE(s.dur, 1);
    }
    EXPECT_EQ(instrIds.size(), 8u);

    // Every flow binds to existing slices: flag flows SET_FLAG -> WAIT_FLAG, dep flows task ->
    // task.
    int flagFlows = 0, depFlows = 0;
    for (const auto& f : reader.flows()) {
        ASSERT_TRUE(byId.count(f.sliceOut) && byId.count(f.sliceIn));
        const auto& out = byId.at(f.sliceOut);
        const auto& in = byId.at(f.sliceIn);
        if (f.kind == tracedb::FlowKind::Flag) {
            ++flagFlows;
            EXPECT_EQ(*reader.stringOf(out.nameId), "SET_FLAG");
            EXPECT_EQ(*reader.stringOf(in.nameId), "WAIT_FLAG");
            EXPECT_LE(out.ts + out.dur, in.ts);
        } else {
            ++depFlows;
            EXPECT_EQ(out.category, SliceCategory::Task);
            EXPECT_EQ(in.category, SliceCategory::Task);
            EXPECT_EQ(out.taskId, 0);
            EXPECT_EQ(in.taskId, 1);
            EXPECT_LE(out.ts + out.dur, in.ts);
        }
    }
    EXPECT_EQ(flagFlows, 2);
    EXPECT_EQ(depFlows, 1);

    // Waits carry their reason; the first V wait covers the load.
    for (const auto& s : slices) {
        if (s.category != SliceCategory::Wait) continue;
        ASSERT_TRUE(s.argSetId);
        std::map<std::string, tracedb::ArgValue> args;
        for (const auto& a : reader.args(*s.argSetId)) args[a.key] = a.value;
        EXPECT_EQ(std::get<std::string>(args.at("reason")), "flag");
    }

    // The HBM counter rises while the load and the store stream and ends at 0; nothing hits
    // L2 (each byte is read once), so L2 GB/s and the L2 hit rate stay at 0.
    for (const auto& t : reader.tracks()) {
        if (t.kind != TrackKind::Counter) continue;
        const std::string name = *reader.stringOf(t.nameId);
        if (name.ends_with(" KiB")) continue;     // occupancy: OccupancyCountersFollowTheBuffers
        if (name.ends_with(" busy %")) continue;  // BusyCountersMatchTheSlicesOfTheirPipe
        if (name.starts_with("ready ")) continue; // ReadyTaskCounterCountsTasksWaitingForACore
        const auto samples = reader.counters(t.id);
        ASSERT_GE(samples.size(), 1u) << name;
        double peak = 0;
        for (const auto& c : samples) peak = std::max(peak, c.value);
        EXPECT_EQ(samples.back().value, 0) << name;
        if (name == "HBM GB/s") {
            EXPECT_GE(samples.size(), 2u);
            EXPECT_GT(peak, 0);
        } else {
            EXPECT_TRUE(name == "L2 GB/s" || name == "L2 hit %") << name;
            EXPECT_EQ(peak, 0) << name;
        }
    }
}

// The occupancy counters of a core step at the starts and ends of the instructions that
// write and last read each buffer (times taken from the instruction slices).
TEST_F(TraceTest, OccupancyCountersFollowTheBuffers) {
    run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    std::map<std::string, int64_t> counterTrack; // "AIV 0/UB KiB" -> track
    std::map<int64_t, std::string> coreName;
    for (const auto& t : reader.tracks())
        if (t.kind == TrackKind::Core) coreName[t.id] = *reader.stringOf(t.nameId);
    for (const auto& t : reader.tracks())
        if (t.kind == TrackKind::Counter && t.parentId && coreName.count(*t.parentId))
            counterTrack[coreName[*t.parentId] + "/" + *reader.stringOf(t.nameId)] = t.id;
    std::map<std::string, tracedb::SliceRow> instrs; // by opcode (each runs once)
    for (const auto& s : allSlices(reader))
        if (s.category == SliceCategory::Instr) instrs[*reader.stringOf(s.nameId)] = s;
    const auto& load = instrs.at("TLOAD");
    const auto& adds = instrs.at("TADDS");
    const auto& store = instrs.at("TSTORE");
    const auto& mm = instrs.at("TMATMUL");
    using Sample = std::pair<int64_t, double>;
    auto samples = [&](const std::string& key) {
        std::vector<Sample> out;
        for (const auto& c : reader.counters(counterTrack.at(key))) out.push_back({c.ts, c.value});
        return out;
    };
    // UB: the 16 KiB load from its start, the 16 KiB result from TADDS's start; the loaded
    // tile is free when TADDS (its last reader) ends, the result when the store ends.
    EXPECT_EQ(
        samples("AIV 0/UB KiB"),
        (std::vector<Sample>{
            {load.ts, 16}, {adds.ts, 32}, {adds.ts + adds.dur, 16}, {store.ts + store.dur, 0}}));
    // The matmul's 128x256 f32 accumulator (128 KiB) lives while it runs; L0A/L0B are only
    // read (nothing in this kernel wrote them), so they hold no buffer.
    EXPECT_EQ(samples("AIC 0/L0C KiB"), (std::vector<Sample>{{mm.ts, 128}, {mm.ts + mm.dur, 0}}));
    EXPECT_TRUE(samples("AIC 0/L0A KiB").empty());
    EXPECT_TRUE(samples("AIV 1/UB KiB").empty());
}

// Live ranges in kernel order: in-place accumulation extends a buffer, rewriting the same
// range with a new value starts a new one, an overlapping write ends the old ones.
TEST(BufferOccupancyTest, LiveRangesFromKernelOrder) {
    Kernel k;
    const Operand acc = tile(MemSpace::L0C, 0, 16, 16, DType::F32);
    const Operand a = tile(MemSpace::L0A, 0, 16, 16), b = tile(MemSpace::L0B, 0, 16, 16);
    const Operand a2 = tile(MemSpace::L0A, 256, 16, 16);
    k.instrs = {
        instr(Opcode::TMatmul, Pipe::M, {acc, a, b}),    // 0: acc 1 KiB
        instr(Opcode::TMatmulAcc, Pipe::M, {acc, a, b}), // 1: same buffer
        instr(Opcode::TStore, Pipe::FIX, {tile(MemSpace::GM, 0, 16, 16), acc}),
        instr(Opcode::TMatmul, Pipe::M, {acc, a2, b}), // 3: a new accumulator
        instr(Opcode::TMatmulAcc, Pipe::M, {tile(MemSpace::L0C, 512, 16, 16, DType::F32), a, b})};
    const KernelOccupancy occ(k);
    const int c = occupancyIndex(MemSpace::L0C);
    auto deltas = [&](std::span<const OccupancyDelta> row) {
        std::vector<std::pair<int, int64_t>> out;
        for (const auto& d : row) out.push_back({d.space, d.bytes});
        return out;
    };
    using D = std::vector<std::pair<int, int64_t>>;
    EXPECT_EQ(deltas(occ.atStart(0)), (D{{c, 1024}}));
    EXPECT_EQ(deltas(occ.atStart(1)), D{});
    EXPECT_EQ(deltas(occ.atEnd(1)), D{});
    EXPECT_EQ(deltas(occ.atEnd(2)), (D{{c, -1024}})); // the store is its last reader
    EXPECT_EQ(deltas(occ.atStart(3)), (D{{c, 1024}}));
    // Instruction 4 writes bytes 512.. of the live accumulator at 0 (not inside it: a
    // partial overlap), which ends that one at its last use (3) and starts a new one.
    EXPECT_EQ(deltas(occ.atEnd(3)), (D{{c, -1024}}));
    EXPECT_EQ(deltas(occ.atStart(4)), (D{{c, 1024}}));
    EXPECT_EQ(deltas(occ.atEnd(4)), (D{{c, -1024}}));
    EXPECT_EQ(occ.peak()[c], 1024); // in kernel order 3's accumulator ends before 4 starts
    EXPECT_EQ(occ.peak()[occupancyIndex(MemSpace::UB)], 0);
}

TEST_F(TraceTest, TasksSitOnTheirCoreTrackAndTheSchemaDocQueriesWork) {
    run(TraceLevel::Full);
    const auto reader = tracedb::TraceReader::open(m_path);
    std::map<int64_t, tracedb::TrackRow> tracks;
    for (const auto& t : reader.tracks()) tracks[t.id] = t;
    for (const auto& s : allSlices(reader)) {
        if (s.category != SliceCategory::Task || !s.taskId) continue;
        const auto& track = tracks.at(s.trackId);
        EXPECT_EQ(track.kind, TrackKind::Core);
        EXPECT_EQ(track.coreType, *s.taskId == 0 ? "AIV" : "AIC");
    }
    // Pipe busy ratio per core, as docs/TRACE_SCHEMA.md writes it.
    const auto result = reader.query(R"(
        SELECT core.core_type, core.core_id, pipe.pipe,
               round(sum(s.dur) * 1.0 /
                     (SELECT sum(dur) FROM slice WHERE track_id = core.id AND category = 'task'), 3)
                   AS ratio
        FROM track pipe
        JOIN track core ON core.id = pipe.parent_id AND core.kind = 'core'
        JOIN slice s ON s.track_id = pipe.id AND s.category = 'instr'
        WHERE pipe.kind = 'pipe'
        GROUP BY pipe.id)");
    ASSERT_FALSE(result.rows.empty());
    for (const auto& row : result.rows) {
        const double ratio = std::get<double>(row[3]);
        EXPECT_GT(ratio, 0);
        EXPECT_LE(ratio, 1);
        if (std::get<std::string>(row[2]) == "M") {
            EXPECT_EQ(ratio, 1.0);
        }
    }
}

TEST_F(TraceTest, TasksLevelHasOnlyTasksAndDependencies) {
    run(TraceLevel::Tasks);
    const auto reader = tracedb::TraceReader::open(m_path);
    for (const auto& s : allSlices(reader)) EXPECT_EQ(s.category, SliceCategory::Task);
    const auto flows = reader.flows();
    ASSERT_EQ(flows.size(), 1u);
    EXPECT_EQ(flows[0].kind, tracedb::FlowKind::Dep);
    EXPECT_EQ(reader.meta("trace_level"), "tasks");
}

TEST_F(TraceTest, InstructionsLevelHasNoWaitsOrCounters) {
    const SimResult r = run(TraceLevel::Instructions, false);
    const auto reader = tracedb::TraceReader::open(m_path);
    int instrs = 0;
    for (const auto& s : allSlices(reader)) {
        EXPECT_TRUE(s.category == SliceCategory::Instr || s.category == SliceCategory::Task);
        instrs += s.category == SliceCategory::Instr;
    }
    EXPECT_EQ(instrs, r.instructions);
    for (const auto& t : reader.tracks()) EXPECT_NE(t.kind, TrackKind::Counter);
    EXPECT_EQ(r.traceRows, instrs + 2 + 1); // instr + task slices + the dep flow
}

TEST_F(TraceTest, AppendingKeepsEarlierSlicesAndIds) {
    {
        auto writer = tracedb::TraceWriter::create(m_path);
        tracedb::TrackRow t;
        t.nameId = writer.intern("earlier");
        t.kind = TrackKind::Chip;
        tracedb::SliceRow s;
        s.id = 500;
        s.trackId = writer.add(t);
        s.nameId = t.nameId;
        s.dur = 3;
        writer.add(s);
        writer.commit();
    }
    auto writer = tracedb::TraceWriter::append(m_path);
    SimOptions options;
    options.timingOnly = true;
    options.traceLevel = TraceLevel::Full;
    simulate(m_program, ArchConfig(), {}, options, &writer);
    writer.commit();
    const auto reader = tracedb::TraceReader::open(m_path);
    const auto slices = allSlices(reader);
    std::set<int64_t> ids;
    for (const auto& s : slices) ids.insert(s.id);
    EXPECT_TRUE(ids.count(500));
    EXPECT_EQ(ids.size(), slices.size());
    for (const auto& s : slices)
        if (s.id != 500) {
            EXPECT_GT(s.id, 500);
        }
    for (const auto& f : reader.flows()) EXPECT_TRUE(ids.count(f.sliceOut) && ids.count(f.sliceIn));
}

TEST_F(TraceTest, FaultLeavesAFinishedTraceWithTheMessage) {
    m_program.kernels[0].instrs.erase(m_program.kernels[0].instrs.begin() + 1); // no SET_FLAG
    auto writer = tracedb::TraceWriter::create(m_path);
    SimOptions options;
    options.timingOnly = true;
    options.traceLevel = TraceLevel::Full;
    EXPECT_THROW(simulate(m_program, ArchConfig(), {}, options, &writer), DeadlockFault);
    writer.commit();
    const auto reader = tracedb::TraceReader::open(m_path);
    EXPECT_NE(reader.meta("sim_fault")->find("deadlock"), std::string::npos);
    bool sawLoad = false;
    for (const auto& s : allSlices(reader)) sawLoad |= *reader.stringOf(s.nameId) == "TLOAD";
    EXPECT_TRUE(sawLoad);
}

} // namespace
} // namespace pto::sim
