// Stage-by-stage numerical bisection of a compile: evaluate the program after every pass and
// in the simulator on the same inputs, compare each op's result with its counterpart through
// provenance, and report the first stage, op and tiles whose result leaves tolerance.
#pragma once

// The algorithm (docs/VALIDATE.md has the long form):
// 1. Compile with a snapshot of the Tensor/Tile function after every pass (and the fault, if
//    one is planted). The reference is the Tensor interpreter on the program as parsed.
// 2. Tensor stages: every op is traced back through `parent` to the op the user wrote; the last
//    op (program order) of that origin whose result has the original shape is its counterpart
//    and is compared with the reference value. Other ops (the inside of a decomposition) are
//    not compared.
// 3. Tile stages: the tile of a value covers rows × cols of `origin` at `offset` (Graph.h);
//    it is compared with that region of the Tensor interpreter's value of the last Tensor stage
//    (itself checked in 2). Accumulator and partial-reduction tiles (consumed by a non-copy op
//    of the same region) and broadcasts are not compared.
// 4. Simulator: the program runs with its workspaces read back as outputs; the region every
//    tstore wrote is compared with the reference region of the stored tile. A SimFault is a
//    divergence at the faulting instruction's tile op and core.
// Each compared value gets a status: exact (equal values), drift (within tolerance) or fail.
// An op diverges when its result fails its tolerance (Tolerance.h: dtype, op class, K), or
// when it is not exact although all its inputs are and its op is deterministic elementwise
// (same inputs → same bits is the precision rule, so any difference is a defect even inside
// the dtype's tolerance). A divergence is "introduced" when the op's inputs were within
// tolerance and "inherited" when one already failed. The report names the first stage (pass)
// with a divergence, its first diverging op in program order, and the diverging tiles of it
// (offset, and in the simulator the block, task and core that computed it).

#include "compiler/FaultInjection.h"
#include "compiler/ResourceBudget.h"
#include "compiler/ir/BindScalars.h"
#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Hardware.h"
#include "validate/Diagnosis.h"
#include "validate/TensorCompare.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct BisectOptions {
    std::string program; // .pto path
    std::string entry;
    std::vector<ScalarBind> binds;       // the entry's index arguments (--bind)
    std::vector<std::string> inputFiles; // one .npy per argument; empty = random
    uint64_t seed = 1;
    FaultSpec fault;
    std::string tracePath; // empty = no trace file
    std::string archFile;
    std::vector<std::string> archOverrides;
    ComparePolicy policy; // overrides and standard; class and K come from each op
    int maxTilesListed = 16;
    ResourceBudget budget; // checked before inputs are made, before expansion and before
                           // the stages are evaluated and simulated
};

enum class ValueStatus : uint8_t { Unchecked, Exact, Drift, Fail };

// One diverging result: a Tensor-level value, a tile, or a region the simulator stored.
struct Divergence {
    uint32_t op = UINT32_MAX; // op id in the stage's function (Tile stages: the tile op)
    std::string mnemonic;
    std::string value; // "%name"
    SourceLoc loc;
    std::string tensorOp;        // the Tensor-level op it comes from: "%c = matmul"
    std::vector<int64_t> offset; // tile corner in its Tensor value (empty at Tensor level)
    std::vector<int64_t> shape;  // compared shape
    std::string reason;          // "out of tolerance", "not bit-exact although …"
    bool introduced = true;      // false: an input had already failed
    uint32_t block = UINT32_MAX; // simulator: block function
    int task = -1;               // simulator: task id
    CoreType coreType = CoreType::None;
    int core = -1; // simulator: core index within its type
    DiffMetrics metrics;
    Tolerance tolerance;
};

struct StageResult {
    int ordinal = 0;   // 0 = the parsed program
    std::string pass;  // "parse", a pass name, or "simulator"
    std::string level; // tensor, tile, block, exec, pto, simulator
    bool evaluated = false;
    std::string note; // why not evaluated, or a simulator fault
    int64_t compared = 0;
    int64_t exact = 0;
    int64_t drift = 0;
    int64_t failed = 0;
    int64_t inherited = 0;           // failed results whose inputs had already failed
    std::optional<Divergence> first; // first diverging result in program order
    std::vector<Divergence> tiles;   // the diverging results of the first op's Tensor op
    int64_t tilesFailed = 0;         // how many there are (tiles lists up to maxTilesListed)
    std::optional<int64_t> traceStageId;
};

struct BisectReport {
    std::string program;
    std::vector<StageResult> stages;
    std::optional<size_t> firstDiverging; // index into stages
    std::optional<PlantedFault> planted;
    std::vector<TensorComparison> outputs; // simulator outputs vs the reference
    std::vector<Diagnosis> diagnoses;      // the error pattern of each (no tiling: none known)
    std::string tracePath;
    bool passed() const {
        if (firstDiverging) return false;
        for (const TensorComparison& c : outputs)
            if (!c.verdict.passed) return false;
        return true;
    }
};

// Throws CompileError / NpyError / std::invalid_argument for bad programs and inputs.
BisectReport bisectProgram(const BisectOptions& options);

nlohmann::json bisectJson(const BisectReport& report);
std::string formatBisect(const BisectReport& report);

} // namespace pto
