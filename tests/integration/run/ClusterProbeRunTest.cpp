// Compiling isomorphic fused clusters once (compiler/passes/ClusterProbe.h): flash attention
// compiled through 12 clusters and replicated equals its full lowering instruction for
// instruction and runs bit for bit and cycle for cycle as it; programs that mix rows and probes
// that disagree are compiled in full.
#include "compiler/Pipeline.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoShare.h"
#include "compiler/passes/ClusterProbe.h"
#include "compiler/passes/RowParallel.h"
#include "driver/Session.h"
#include "tests/support/Process.h"
#include "tests/support/ProvenanceQuery.h"
#include "tests/support/ReadFile.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace pto {
namespace {

using test::readFile;

// flash_attention_long.pto at sequence length S (S / 256 K/V blocks of 256 keys).
std::string flashAttentionText(int s) {
    std::string text = readFile(fmt::format("{}/samples/flash_attention_long.pto", PTO_SOURCE_DIR));
    text = std::regex_replace(text, std::regex("32768x"), fmt::format("{}x", s));
    return std::regex_replace(text, std::regex("to 128 step"), fmt::format("to {} step", s / 256));
}

std::string writeProgram(const test::TempDir& dir, const std::string& name,
                         const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
}

CompileState compile(const std::string& text, bool probe, int64_t minClusters, ShareKernels share) {
    CompileState s = loadProgramText(text, "fa.pto");
    CompileOptions o;
    o.clusterProbe = probe;
    o.minProbeClusters = minClusters;
    o.shareKernels = share;
    compileProgram(s, o);
    return s;
}

// Equal in every field but the tile op (the probe's tile ops number its own clusters).
bool sameInstr(const Instr& a, const Instr& b) {
    if (!sameButAddresses(a, b)) return false;
    for (size_t j = 0; j < a.operandCount; ++j)
        if (a.operands[j].addr != b.operands[j].addr) return false;
    return true;
}

// The probed program, written out one kernel per task, against the full lowering: the GM
// table, the tasks (but their kernels' names) and each task's kernel instruction for
// instruction except tile ops.
void expectSameProgram(const PtoProgram& probed, const PtoProgram& full) {
    const PtoProgram p = expandSharedKernels(probed);
    ASSERT_EQ(p.gm.size(), full.gm.size());
    for (size_t t = 0; t < p.gm.size(); ++t) {
        EXPECT_EQ(p.gm[t].name, full.gm[t].name);
        EXPECT_EQ(p.gm[t].addr, full.gm[t].addr) << p.gm[t].name;
        EXPECT_EQ(p.gm[t].shape, full.gm[t].shape) << p.gm[t].name;
        EXPECT_EQ(p.gm[t].dtype, full.gm[t].dtype) << p.gm[t].name;
        EXPECT_EQ(p.gm[t].role, full.gm[t].role) << p.gm[t].name;
    }
    EXPECT_EQ(p.exec.deps.size(), full.exec.deps.size());
    ASSERT_EQ(p.exec.tasks.size(), full.exec.tasks.size());
    for (size_t t = 0; t < p.exec.tasks.size(); ++t) {
        const Task& x = p.exec.tasks[t];
        const Task& y = full.exec.tasks[t];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.core, y.core);
        EXPECT_EQ(x.cluster, y.cluster);
        EXPECT_EQ(x.sub, y.sub);
        const Kernel& kx = p.kernels.at(x.block);
        const Kernel& ky = full.kernels.at(y.block);
        EXPECT_EQ(kx.loops, ky.loops) << y.name;
        ASSERT_EQ(kx.instrs.size(), ky.instrs.size()) << y.name;
        for (size_t e = 0; e < kx.instrs.size(); ++e)
            ASSERT_TRUE(sameInstr(kx.instrs[e], ky.instrs[e]))
                << "task " << y.name << " instruction " << e;
    }
}

TEST(ClusterProbe, AtS8192The64ClustersAreCompiledThrough12AndEqualTheFullLowering) {
    const std::string text = flashAttentionText(8192);
    const CompileState probed = compile(text, true, kMinProbeClusters, ShareKernels::On);
    const CompileState full = compile(text, false, kMinProbeClusters, ShareKernels::Off);
    EXPECT_EQ(probed.clusterNote, "64 fused clusters compiled through 12 and replicated (3 kernels "
                                  "launched by 192 tasks; sync check passed)");
    EXPECT_EQ(full.clusterNote, "");
    // fuse-cube-vector's note counts the probe's clusters, and says so.
    bool fuseNote = false;
    for (const std::string& note : probed.block.notes)
        if (note.starts_with("fuse-cube-vector: 12 cube-vector clusters")) {
            fuseNote = true;
            EXPECT_NE(note.find("in the probe of 12 clusters (the program's 64"), std::string::npos)
                << note;
        }
    EXPECT_TRUE(fuseNote);
    // The shared form: three kernel texts, every cluster's tasks rebased but cluster 0's.
    ASSERT_EQ(probed.pto.kernels.size(), 3u);
    ASSERT_EQ(probed.pto.exec.tasks.size(), 192u);
    EXPECT_TRUE(probed.pto.exec.tasks[0].rebases.empty());
    EXPECT_FALSE(probed.pto.exec.tasks[3].rebases.empty());
    // The probe's Tile function holds 12 clusters' rows (q is 1536 x 128).
    EXPECT_EQ(probed.tensor.type(probed.tensor.args[0]).shape, (Shape{1536, 128}));
    expectSameProgram(probed.pto, full.pto);
}

// The traced compile is the smallest probe: its Tile stage holds 12 clusters, the PTO stage the
// three shared kernel texts, and every instruction reaches a tile op of the probe, the parsed
// program's op and its source line.
TEST(ClusterProbe, TheTraceHoldsTheProbeAndEveryInstructionReachesItsSourceLine) {
    test::TempDir dir;
    const auto db = dir / "fa.db";
    CompileState s = loadProgramText(flashAttentionText(8192), "fa.pto");
    CompileOptions o;
    o.shareKernels = ShareKernels::On;
    {
        auto writer = tracedb::TraceWriter::create(db);
        compileProgram(s, o, &writer);
        writer.commit();
    }
    ASSERT_FALSE(s.clusterNote.empty());
    size_t instrs = 0;
    for (const Kernel& k : s.pto.kernels) instrs += k.instrs.size();
    auto reader = tracedb::TraceReader::open(db);
    EXPECT_EQ(std::get<int64_t>(reader.query("SELECT count(*) FROM instr").rows[0][0]),
              int64_t(instrs));
    EXPECT_EQ(std::get<int64_t>(reader.query(test::kOrphanInstrsQuery).rows[0][0]), 0);
    // The Exec stage is the probe's 12 clusters of three tasks, the PTO stage three kernels.
    auto nodes = [&](const char* level) {
        return std::get<int64_t>(
            reader
                .query(fmt::format("SELECT node_count FROM stage WHERE level = '{}' ORDER BY ord "
                                   "DESC LIMIT 1",
                                   level))
                .rows[0][0]);
    };
    EXPECT_EQ(nodes("exec"), 36);
    EXPECT_EQ(nodes("pto"), 3);
}

TEST(ClusterProbe, AtS8192TheRunTakesTheFullLoweringsCycles) {
    test::TempDir dir;
    const std::string path = writeProgram(dir, "fa.pto", flashAttentionText(8192));
    auto run = [&](bool probe) {
        RunOptions o;
        o.program = path;
        o.sim.timingOnly = true;
        o.sim.traceLevel = sim::TraceLevel::None;
        o.compile.clusterProbe = probe;
        return runProgram(o);
    };
    const RunResult probed = run(true), full = run(false);
    ASSERT_EQ(probed.faultMessage, "");
    EXPECT_FALSE(probed.state.clusterNote.empty());
    EXPECT_EQ(probed.sim.totalCycles.count(), full.sim.totalCycles.count());
    EXPECT_EQ(probed.sim.instructions, full.sim.instructions);
    EXPECT_EQ(probed.sim.bytesMoved, full.sim.bytesMoved);
    EXPECT_DOUBLE_EQ(probed.flops, full.flops);
}

// The instruction budget counts what the 192 tasks execute, not the three kernel texts: the
// probed compile is refused as the full one is, before the traced compile starts.
TEST(ClusterProbe, TheBudgetCountsEveryLaunchOfASharedKernel) {
    auto budgetMessage = [](bool probe) {
        CompileState s = loadProgramText(flashAttentionText(8192), "fa.pto");
        CompileOptions o;
        o.clusterProbe = probe;
        o.shareKernels = ShareKernels::On;
        o.budget.maxInstrs = 400000;
        try {
            compileProgram(s, o);
        } catch (const BudgetError& e) {
            return e.message();
        }
        return std::string("no budget error");
    };
    const std::string probed = budgetMessage(true);
    EXPECT_NE(probed.find("has 445440 PTO instructions"), std::string::npos) << probed;
    EXPECT_EQ(probed, budgetMessage(false));
}

// At S = 4096 (32 clusters, probed here from 16 on): the outputs too, bit for bit.
TEST(ClusterProbe, AtS4096TheProbedRunsOutputsAndCyclesAreTheFullLowerings) {
    test::TempDir dir;
    const std::string path = writeProgram(dir, "fa.pto", flashAttentionText(4096));
    auto run = [&](bool probe, ShareKernels share) {
        RunOptions o;
        o.program = path;
        o.seed = 5;
        o.sim.traceLevel = sim::TraceLevel::None;
        o.compile.clusterProbe = probe;
        o.compile.minProbeClusters = 16;
        o.compile.shareKernels = share;
        return runProgram(o);
    };
    const RunResult full = run(false, ShareKernels::Off);
    for (ShareKernels share : {ShareKernels::On, ShareKernels::Off}) {
        const RunResult probed = run(true, share);
        ASSERT_EQ(probed.faultMessage, "");
        EXPECT_EQ(probed.state.clusterNote, "32 fused clusters compiled through 12 and replicated "
                                            "(3 kernels launched by 96 tasks; sync check passed)");
        EXPECT_EQ(probed.state.pto.kernels.size(), share == ShareKernels::On ? 3u : 96u);
        EXPECT_EQ(probed.sim.totalCycles.count(), full.sim.totalCycles.count());
        ASSERT_EQ(probed.sim.outputs.size(), 1u);
        EXPECT_EQ(probed.sim.outputs[0].second.bytes, full.sim.outputs[0].second.bytes);
    }
}

TEST(ClusterProbe, AProgramThatReducesOverTheRowsIsCompiledInFullWithTheReason) {
    std::string text = flashAttentionText(4096);
    text = std::regex_replace(text, std::regex(R"(  return %out)"),
                              "  %sum = reduce_sum %out {axis = 0, keepdim}\n  return %sum");
    text =
        std::regex_replace(text, std::regex(R"(-> tensor<4096x128xf16>)"), "-> tensor<1x128xf16>");
    const CompileState s = compile(text, true, 16, ShareKernels::Off);
    EXPECT_EQ(s.clusterNote,
              "fused clusters compiled in full: `reduce_sum` at line 32:10 reduces over the rows");
    // Compiled in full: the 96 kernels of the 32 clusters and the reduction's.
    EXPECT_EQ(s.pto.kernels.size(), compile(text, false, 16, ShareKernels::Off).pto.kernels.size());
    EXPECT_GT(s.pto.kernels.size(), 96u);
}

// The three probes of the S = 4096 program, compiled as compileProgram compiles them.
std::vector<PtoProgram> probesOf(const std::string& text) {
    std::vector<PtoProgram> out;
    for (int64_t c = kProbeClusters; c < kProbeClusters + 3; ++c) {
        CompileState s = loadProgramText(text, "fa.pto");
        s.clusters = ClusterProbe{4096, 128, 32, c, {}};
        CompileOptions o;
        o.verify = VerifyStages::Off;
        PassManager pm(s, o);
        lowerToPto(pm);
        out.push_back(std::move(s.pto));
    }
    return out;
}

Instr& firstWait(Kernel& k) {
    for (Instr& in : k.instrs)
        if (in.opcode == Opcode::WaitFlag) return in;
    throw std::logic_error("no wait_flag");
}

TEST(ClusterProbe, ProbesThatDisagreeAreNotReplicated) {
    const std::vector<PtoProgram> p = probesOf(flashAttentionText(4096));
    std::string why;
    ASSERT_TRUE(checkedReplicatedClusters(p[0], p[1], p[2], kProbeClusters, 32, why)) << why;
    EXPECT_EQ(why, "");
    {
        // One cluster of the first probe waits on another event than its cluster 0.
        std::vector<PtoProgram> q = p;
        firstWait(q[0].kernels[q[0].exec.tasks[3 * 3 + 1].block]).event ^= 1;
        EXPECT_FALSE(replicateClusters(q[0], q[1], q[2], kProbeClusters, 32, why));
        EXPECT_EQ(why.rfind("cluster 3's kernel @", 0), 0u) << why;
    }
    {
        // Every AIV0 of the third probe does: the probes disagree.
        std::vector<PtoProgram> q = p;
        for (const Task& t : q[2].exec.tasks)
            if (t.role() == ClusterRole::Aiv0) firstWait(q[2].kernels[t.block]).event ^= 1;
        EXPECT_FALSE(replicateClusters(q[0], q[1], q[2], kProbeClusters, 32, why));
        EXPECT_EQ(why, "the probes of 12 and 14 clusters differ in "
                       "@flash_attention_long_fused0_aiv0");
    }
    {
        // Cluster 5 of the second probe loads q rows of cluster 4: not one move per cluster.
        std::vector<PtoProgram> q = p;
        Kernel& k = q[1].kernels[q[1].exec.tasks[5 * 3].block];
        for (Instr& in : k.instrs)
            if (in.opcode == Opcode::TLoad && in.operands[1].space == MemSpace::GM &&
                in.operands[1].addr < q[1].gm[0].bytes()) {
                in.operands[1].addr -= 128 * 128 * 2;
                break;
            }
        EXPECT_FALSE(replicateClusters(q[0], q[1], q[2], kProbeClusters, 32, why));
        EXPECT_EQ(why, "the GM accesses of %q do not move by one amount per cluster");
    }
    {
        // Every cluster's AIV writes the first row of out: the clusters' writes would overlap.
        std::vector<PtoProgram> q = p;
        for (PtoProgram& probe : q)
            for (Kernel& k : probe.kernels)
                for (Instr& in : k.instrs)
                    if (in.opcode == Opcode::TStore && in.operands[0].space == MemSpace::GM &&
                        in.operands[0].addr >= probe.gm[3].addr &&
                        in.operands[0].addr < probe.gm[3].addr + probe.gm[3].bytes())
                        in.operands[0].addr = probe.gm[3].addr;
        EXPECT_FALSE(replicateClusters(q[0], q[1], q[2], kProbeClusters, 32, why));
        EXPECT_EQ(why, "the clusters' writes of %out overlap (a task dependency would be needed)");
    }
}

Function tensorAfterDeadCode(const std::string& text) {
    CompileState s = loadProgramText(text, "t.pto");
    PassManagerOptions pm;
    pm.stopAfter = "dead-code";
    PassManager m(s, CompileOptions{}, pm);
    lowerToPto(m);
    return s.tensor;
}

TEST(RowParallel, AttentionKeepsItsKeysAndValuesWhole) {
    const Function f = tensorAfterDeadCode(flashAttentionText(4096));
    const RowParallel rp = analyzeRowParallel(f);
    EXPECT_EQ(rp.refusal, "");
    EXPECT_EQ(rp.rows, 4096);
    EXPECT_TRUE(rp.rowValue[f.args[0]]);  // q
    EXPECT_FALSE(rp.rowValue[f.args[1]]); // k: the matmul's B
    EXPECT_FALSE(rp.rowValue[f.args[2]]); // v
}

TEST(RowParallel, OpsThatMixRowsAreNamed) {
    const char* kMatmulB = R"(func @f(%a: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %y = matmul %a, %a
  return %y
}
)";
    EXPECT_EQ(analyzeRowParallel(tensorAfterDeadCode(kMatmulB)).refusal,
              "`matmul` at line 2:8 takes a row-parallel value as its B operand (every row of the "
              "result reads every row of it)");
    const char* kRowView = R"(func @f(%a: tensor<256x64xf32>) -> tensor<128x64xf32> {
  %v = view %a {offsets = [128, 0], sizes = [128, 64]}
  %y = exp %v
  return %y
}
)";
    EXPECT_EQ(analyzeRowParallel(tensorAfterDeadCode(kRowView)).refusal,
              "`view` at line 2:8 moves or cuts the rows (a view offset on the row dim)");
    const char* kTranspose = R"(func @f(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = transpose %a {perm = [1, 0]}
  %y = exp %t
  return %y
}
)";
    EXPECT_EQ(analyzeRowParallel(tensorAfterDeadCode(kTranspose)).refusal,
              "`transpose` at line 2:8 is not known to keep rows apart");
}

} // namespace
} // namespace pto
