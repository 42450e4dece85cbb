// Everything a compile carries from pass to pass: the program at each level it has reached,
// and the options that shape the lowering.
#pragma once

#include "compiler/FaultInjection.h"
#include "compiler/ResourceBudget.h"
#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"
#include "compiler/passes/ClusterProbe.h"
#include "compiler/passes/LoopWindow.h"

#include <optional>
#include <string>
#include <string_view>

namespace pto {

// The five levels of the lowering, in order. Each has one job:
//   Tensor — what the user wrote: whole-tensor ops (composites decomposed in place).
//   Tile   — the unrolled tile graph with memory spaces and data movement.
//   Block  — tile ops partitioned into per-core block functions with buffers and sync.
//   Exec   — the task graph the device scheduler runs.
//   Pto    — per-kernel PTO virtual instructions with resolved operands.
enum class StageKind : uint8_t { Tensor, Tile, Block, Exec, Pto };
std::string_view stageKindName(StageKind kind);

/// Whether emit-pto ends by sharing isomorphic kernels (shareIsomorphicKernels): auto does for
/// programs of at least kShareKernelsAutoInstrs instructions.
enum class ShareKernels : uint8_t { Auto, On, Off };
inline constexpr size_t kShareKernelsAutoInstrs = 1'000'000;
inline std::optional<ShareKernels> parseShareKernels(std::string_view text) {
    if (text == "auto") return ShareKernels::Auto;
    if (text == "on") return ShareKernels::On;
    if (text == "off") return ShareKernels::Off;
    return std::nullopt;
}

/// When the level's verifier runs: after the last pass of each level (and at a --stop-after
/// point), after every pass (`--verify-each`: names the pass that broke an invariant), or never
/// (probes, whose traced compile verifies what it extends).
enum class VerifyStages : uint8_t { LevelEnds, EachPass, Off };

struct CompileOptions {
    TargetInfo target;
    bool doubleBuffer = true;
    int tilesPerTask = 0; // 0 = fill the cores
    VerifyStages verify = VerifyStages::LevelEnds;
    bool fuse = true;        // fuse-cube-vector: fused clusters for alternating chains of a loop
    FaultSpec fault;         // debug: a defect to plant (compiler/FaultInjection.h)
    ResourceBudget budget;   // limits checked before expand-tiles and after emit-pto
    bool rerollLoops = true; // emit-pto folds unrolled iterations into counted loops
    bool loopWindow = true;  // a long loop whose lowering repeats is lowered through a window
    // Many isomorphic fused clusters are compiled through a few and replicated
    // (compiler/passes/ClusterProbe.h), from minProbeClusters clusters on.
    bool clusterProbe = true;
    int64_t minProbeClusters = kMinProbeClusters;
    ShareKernels shareKernels = ShareKernels::Auto; // emit-pto's last step (PtoShare.h)
    // Keep a copy of the Tile function as the Tile level left it (`pto run --dump` interprets
    // it; fuse-cube-vector rewrites the Block program's own, appending its workspaces).
    bool keepTileLevel = false;
};

struct CompileState {
    std::string file;   // .pto path (for diagnostics)
    std::string source; // its text
    StageKind kind = StageKind::Tensor;
    Function tensor; // Tensor level (also kept after lowering: provenance and bisection need it)
    std::vector<Function> functions; // every function of the module (what `call` names)
    // The Tile function until partition-blocks moves it into the Block program (the largest IR
    // of a big compile, held once: gemm_6144's 388 k tile ops); tileFunction() finds it.
    Function tile;
    BlockProgram block;
    ExecGraph exec;
    PtoProgram pto;
    std::optional<PlantedFault> planted; // the defect options.fault planted, if any
    // A long loop lowered through a window of its iterations (compiler/passes/LoopWindow.h):
    // unroll-loops copies windowTrips iterations, emit-pto stretches the counted loops.
    std::optional<LoopWindow> window;
    // What became of a long loop's window: lowered through it and stretched, or lowered in full
    // and why (probes that do not compile or extend linearly, a stretched program that fails the
    // static sync check, compiler/ir/PtoSyncCheck.h). "" when no loop was a candidate.
    std::string windowNote;
    // A row-parallel program of many fused clusters compiled through a few of them: expand-tiles
    // cuts the rows to clusters->probeClusters clusters, emit-pto replicates them.
    std::optional<ClusterProbe> clusters;
    // What became of it: compiled through a few clusters and replicated, or in full and why.
    std::string clusterNote;
    // "768 kernels share 3 kernel texts" when emit-pto shared isomorphic kernels, else "".
    std::string shareNote;

    // The copy CompileOptions::keepTileLevel asks for, made as partition-blocks takes `tile`.
    std::optional<Function> tileLevel;

    /// The Tile function of the compile so far: `tile` up to the Tile level, `block.tile` after.
    const Function& tileFunction() const { return kind > StageKind::Tile ? block.tile : tile; }
    /// The Tile function as the Tile level left it: the kept copy, else tileFunction().
    const Function& tileLevelFunction() const { return tileLevel ? *tileLevel : tileFunction(); }
};

} // namespace pto
