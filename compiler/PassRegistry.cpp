// The pass table: every pass of the lowering, adapted to run on a CompileState.
#include "compiler/PassRegistry.h"

#include "compiler/ir/PtoShare.h"
#include "compiler/ir/Verifier.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/ClusterProbe.h"
#include "compiler/passes/CubeRoundTrips.h"
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/EmitPto.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/FoldConstants.h"
#include "compiler/passes/FuseCubeVector.h"
#include "compiler/passes/InlineCalls.h"
#include "compiler/passes/InsertCopies.h"
#include "compiler/passes/InsertCrossFlags.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/LoopWindow.h"
#include "compiler/passes/OrderInstructions.h"
#include "compiler/passes/PartitionBlocks.h"
#include "compiler/passes/RerollLoops.h"
#include "compiler/passes/RowParallel.h"
#include "compiler/passes/UnrollLoops.h"

#include <fmt/format.h>

#include <stdexcept>

namespace pto {
namespace {

using S = StageKind;

void runVerify(CompileState& s, const CompileOptions&) {
    verifyFunction(s.tensor, s.file);
}
void runInlineCalls(CompileState& s, const CompileOptions&) {
    inlineCalls(s.tensor, s.functions, s.file);
}
void runUnrollLoops(CompileState& s, const CompileOptions& o) {
    if (s.window) // a window of the loop's iterations (compileProgram checked it is the only one)
        for (Op& op : s.tensor.ops())
            if (op.kind == OpKind::For) truncateLoop(op, s.window->windowTrips);
    checkUnrollBudget(s.tensor, o.budget, s.file); // before anything is copied
    unrollLoops(s.tensor, s.file);
}
void runDecompose(CompileState& s, const CompileOptions&) {
    decomposeComposites(s.tensor);
}
void runFold(CompileState& s, const CompileOptions&) {
    foldConstants(s.tensor);
}
void runDeadCode(CompileState& s, const CompileOptions&) {
    eliminateDeadCode(s.tensor);
}

// A probe of a row-parallel program: its default tiles fixed for the full rows, then the rows
// cut to its clusters' (compileProgram checked the program is row-parallel).
void cutToProbe(CompileState& s, const TargetInfo& target) {
    const RowParallel rp = analyzeRowParallel(s.tensor);
    if (!rp.refusal.empty() || rp.rows != s.clusters->rows)
        throw std::logic_error("cluster probe: the program is not row-parallel as probed");
    pinDefaultTiles(s.tensor, target);
    cutRows(s.tensor, rp, s.clusters->clusterRows * s.clusters->probeClusters);
}

void runExpandTiles(CompileState& s, const CompileOptions& o) {
    if (s.clusters) cutToProbe(s, o.target);
    checkTileOpBudget(s.tensor, o.target, o.budget, s.file); // before anything is expanded
    s.tile = expandTilesAvoidingCubeRoundTrips(s.tensor, o.target, s.file);
    s.kind = S::Tile;
    checkTileOpCount(s.tile, o.budget, s.file); // the estimate may have been low
}
void runAssignMemory(CompileState& s, const CompileOptions& o) {
    assignMemory(s.tile, o.target, s.file);
}
void runInsertCopies(CompileState& s, const CompileOptions& o) {
    insertCopies(s.tile, o.target, s.file);
}
void runTileDeadCode(CompileState& s, const CompileOptions&) {
    eliminateDeadCode(s.tile);
}

void runPartition(CompileState& s, const CompileOptions& o) {
    PartitionOptions p;
    p.aicCores = o.target.aicCores;
    p.aivCores = o.target.aivCores;
    p.tilesPerTask = o.tilesPerTask;
    if (o.keepTileLevel) s.tileLevel = s.tile;
    s.block = partitionBlocks(std::move(s.tile), p);
    s.block.doubleBuffer = o.doubleBuffer;
    s.block.handWritten = s.tensor.level == Level::Tile;
    s.kind = S::Block;
}
void runOrder(CompileState& s, const CompileOptions&) {
    orderInstructions(s.block);
}
void runFuse(CompileState& s, const CompileOptions& o) {
    if (!o.fuse) return;
    const size_t before = s.block.notes.size();
    fuseCubeVector(s.block, o.target.aicCores);
    // A cluster probe fuses the probe's clusters: its note says so, beside the program's count
    // in the `clusters` line (read as a contradiction: "12 clusters" under "64 … through 12").
    if (s.clusters)
        for (size_t i = before; i < s.block.notes.size(); ++i)
            s.block.notes[i] += fmt::format(" in the probe of {} clusters (the program's {} are "
                                            "replicated from it)",
                                            s.clusters->probeClusters, s.clusters->clusters);
}
void runAllocate(CompileState& s, const CompileOptions& o) {
    allocateBuffers(s.block, o.target, s.file);
}
void runSync(CompileState& s, const CompileOptions&) {
    insertSync(s.block);
}
void runCrossFlags(CompileState& s, const CompileOptions&) {
    insertCrossFlags(s.block);
}
void runExec(CompileState& s, const CompileOptions&) {
    s.exec = buildExecGraph(s.block);
    s.kind = S::Exec;
}
// The window's counted loops stretched to the loop's full trip count.
void stretchWindow(CompileState& s) {
    const LoopWindow& w = *s.window;
    const int64_t k = (w.trips - w.windowTrips) / w.period;
    std::optional<PtoProgram> full = extrapolateLoopWindow(s.pto, w.later[0], w.later[1], k);
    if (!full) // compileProgram extrapolated the same program before choosing the window
        throw std::logic_error("loop window: the windowed compile differs from its probe");
    s.pto = std::move(*full);
    relabelLoopEpilogue(s.pto, s.block.tile, w.loopName, w.trips - w.windowTrips);
}
// The probe's clusters replicated to the full program (shared kernels, tasks with rebases).
void replicateProbe(CompileState& s, const CompileOptions& o) {
    const ClusterProbe& c = *s.clusters;
    std::string why;
    std::optional<PtoProgram> full =
        replicateClusters(s.pto, c.later[0], c.later[1], c.probeClusters, c.clusters, why);
    if (!full) // compileProgram replicated the same program before choosing to probe
        throw std::logic_error("cluster probe: the traced compile differs from its probe: " + why);
    // Written out with one kernel per task, as the full lowering writes them, where emit-pto
    // would not share kernels (--share-kernels off, or auto below its size).
    int64_t instrs = 0;
    for (const Task& t : full->exec.tasks) instrs += int64_t(full->kernels[t.block].instrs.size());
    const bool share =
        o.shareKernels == ShareKernels::On ||
        (o.shareKernels == ShareKernels::Auto && instrs >= int64_t(kShareKernelsAutoInstrs));
    s.pto = share ? std::move(*full) : expandSharedKernels(*full);
}
// The end of emit-pto: isomorphic kernels become one kernel launched by many tasks
// (docs/ARCHITECTURE.md, "Kernels shared by isomorphic tasks").
void shareKernels(CompileState& s, ShareKernels mode) {
    if (mode == ShareKernels::Off) return;
    size_t instrs = 0;
    for (const Kernel& k : s.pto.kernels) instrs += k.instrs.size();
    if (mode == ShareKernels::Auto && instrs < kShareKernelsAutoInstrs) return;
    const ShareStats stats = shareIsomorphicKernels(s.pto);
    if (stats.merged() > 0)
        s.shareNote = fmt::format("{} kernels share {} kernel texts", stats.kernelsBefore,
                                  stats.kernelsAfter);
}

void runEmit(CompileState& s, const CompileOptions& o) {
    s.pto = emitPto(s.block, s.exec);
    s.pto.name = s.tensor.name;
    if (s.tensor.level == Level::Tile) markStoredArguments(s.pto, s.tensor);
    if (o.rerollLoops) rerollLoops(s.pto, s.block.tile);
    if (s.window && s.window->later.size() == 2) stretchWindow(s);
    if (s.clusters && s.clusters->later.size() == 2) replicateProbe(s, o);
    s.kind = S::Pto;
    checkInstrBudget(s.pto, o.budget, s.file);
    if (!s.clusters) shareKernels(s, o.shareKernels); // a replicated program is shared already
}

// The pipeline: every pass in the order lowerToPto runs them (the one place it is written).
constexpr PassInfo kPasses[] = {
    // Tensor level: the program as written, checked and simplified.
    {"verify", "check SSA, types and directives of the program as written", S::Tensor, S::Tensor,
     runVerify},
    {"inline-calls", "replace every call @f(...) by a copy of @f's body", S::Tensor, S::Tensor,
     runInlineCalls},
    {"unroll-loops", "copy each loop body once per iteration (view offsets become constants)",
     S::Tensor, S::Tensor, runUnrollLoops},
    {"decompose-composites", "rewrite softmax, norms, gelu, silu… into primitive ops", S::Tensor,
     S::Tensor, runDecompose},
    {"fold-constants", "remove exact identities (x*1, x+0, same-type casts, double negation)",
     S::Tensor, S::Tensor, runFold},
    {"dead-code", "drop ops whose results are never used", S::Tensor, S::Tensor, runDeadCode},
    // Tensor → Tile: unroll over tile shapes, place tiles, move data.
    {"expand-tiles", "unroll every tensor op over its tile grid (vec_tile / cube_tile)", S::Tensor,
     S::Tile, runExpandTiles},
    {"assign-memory", "place every tile in GM, L1, L0A, L0B, L0C or UB", S::Tile, S::Tile,
     runAssignMemory},
    {"insert-copies", "add GM<->L1<->L0 and GM<->UB moves where spaces differ", S::Tile, S::Tile,
     runInsertCopies},
    {"tile-dead-code", "drop tile ops whose results are never used", S::Tile, S::Tile,
     runTileDeadCode},
    // Tile → Block: per-core functions with buffers and sync.
    {"partition-blocks", "group tile ops into per-core block functions (cube / vector)", S::Tile,
     S::Block, runPartition},
    {"order-instructions", "order each block's ops so pipes can overlap", S::Block, S::Block,
     runOrder},
    {"fuse-cube-vector",
     "fuse alternating cube/vector chains of a loop into AIC+2 AIV clusters with ping-pong "
     "workspaces, ordered as a pipeline (off with --no-fuse)",
     S::Block, S::Block, runFuse},
    {"allocate-buffers", "assign on-chip addresses by liveness, with double buffering", S::Block,
     S::Block, runAllocate},
    {"insert-sync", "add set/wait flags between pipes for every cross-pipe dependency", S::Block,
     S::Block, runSync},
    {"insert-cross-flags",
     "add CROSS_SET_FLAG/CROSS_WAIT_FLAG for every GM hand-off between the cores of a cluster",
     S::Block, S::Block, runCrossFlags},
    // Block → Exec → PTO.
    {"build-exec-graph", "one task per block function, dependencies through GM", S::Block, S::Exec,
     runExec},
    {"emit-pto", "emit PTO virtual instructions with resolved operands", S::Exec, S::Pto, runEmit},
};

} // namespace

std::span<const PassInfo> passRegistry() {
    return kPasses;
}

const PassInfo* findPass(std::string_view name) {
    for (const PassInfo& p : kPasses)
        if (p.name == name) return &p;
    return nullptr;
}

bool isLastPassOfLevel(const PassInfo& pass) {
    auto passes = passRegistry();
    const PassInfo* next = &pass + 1;
    return next == passes.data() + passes.size() || next->to != pass.to;
}

std::string_view stageKindName(StageKind kind) {
    constexpr std::string_view kNames[] = {"tensor", "tile", "block", "exec", "pto"};
    return kNames[static_cast<int>(kind)];
}

} // namespace pto
