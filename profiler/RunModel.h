// What the analyses need of one simulated run, loaded once from a trace file: the chip's
// peaks, the cores and their pipe tracks, every task with its timing, pipe busy cycles,
// waits, FLOPs and GM bytes, the exec-graph dependencies, and the cost attributed to each
// Tensor op of the program through provenance.
#pragma once

#include "profiler/ArchPeaks.h"
#include "trace_db/TraceReader.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pto::prof {

/// The pipes of both core types, in display order. AIC: S MTE2 MTE1 M FIX MTE3; AIV: S MTE2 V MTE3.
enum class PipeId { S, MTE1, MTE2, MTE3, M, FIX, V, Count };
inline constexpr std::size_t kPipeCount = std::size_t(PipeId::Count);
std::string_view pipeIdName(PipeId pipe);
std::optional<PipeId> parsePipeId(std::string_view name);

/// Cycles per pipe.
using PipeCycles = std::array<std::int64_t, kPipeCount>;

/// Where waiting time went, in cycles (trace level full; zero otherwise).
struct WaitCycles {
    std::int64_t flag = 0;      ///< wait slices of WAIT_FLAG
    std::int64_t barrier = 0;   ///< wait slices of BARRIER
    std::int64_t crossFlag = 0; ///< wait slices of CROSS_WAIT_FLAG (cube-vector hand-offs)
    std::int64_t bandwidth = 0; ///< bandwidth stall slices inside GM transfers
    std::int64_t dispatch = 0;  ///< dispatch stall from dispatch to start
};

struct CoreInfo {
    std::int64_t trackId = 0; ///< the core's track (entity_id of `core` metrics)
    std::string type;         ///< AIC or AIV
    std::int64_t index = 0;   ///< within its type
    std::string name;         ///< "AIC 0"
    bool isCube() const { return type == "AIC"; }
};

struct TaskRun {
    std::int64_t id = 0; ///< node id in the Exec stage
    std::string name;
    std::string coreType;     ///< AIC or AIV
    int core = -1;            ///< index into RunModel::cores; -1 if it never ran
    std::int64_t kernel = -1; ///< kernel text it launched (instr.block_id of its slices)
    /// Block function whose work it did (Block and Exec stage ids); equals `kernel` unless the
    /// kernel text is shared (docs/TRACE_SCHEMA.md); -1 for a task the stages do not name.
    std::int64_t block = -1;
    /// Block function its kernel text was compiled from (a shared text: its first task's):
    /// the buffers the task ran with, also when `block` is unknown.
    std::int64_t textBlock = -1;
    std::int64_t dispatch = -1; ///< cycle the scheduler dispatched it (start if not traced)
    std::int64_t start = 0, end = 0;
    PipeCycles busy{}; ///< instruction time per pipe
    WaitCycles waits;
    double flops = 0;
    double nominalFlops = 0;       ///< Σ InstrCost::nominalFlops (dtype-aware compute roof)
    std::int64_t gmBytes = 0;      ///< GM bytes read and written
    std::int64_t gmWriteBytes = 0; ///< of which written (TSTORE, MSCATTER)
    std::int64_t gmTransfers = 0;  ///< TLOAD/TSTORE instructions it executed (instr slices)
    /// Its GM transfer slices per pipe (MTE2 loads; MTE3, FIX stores): each pays the GM latency.
    PipeCycles gmTransfersOnPipe{};
    /// First start and last end of its instructions that compute (FLOPs > 0); -1 if none.
    std::int64_t computeStart = -1, computeEnd = -1;
    /// GM transfers that ended before its first compute instruction started (the fill) and that
    /// started after its last one ended (the drain): their latencies are paid one after another.
    int fillTransfers = 0, drainTransfers = 0;
    /// The latency those fill and drain transfers showed: each one's duration less its bytes at
    /// its path's rate, within [0, hbm.latency], summed (cycles).
    double fillLatency = 0, drainLatency = 0;
    /// When its work is chains that each carry a value from one loop iteration to a later one
    /// (analyses/TaskChains.h): the rows of their smallest tiles, summed — the most pieces any
    /// tiling cuts it into. 0 otherwise or unknown.
    std::int64_t carriedRows = 0;
    /// Of such a task: its chains counted as they depend on one another — more than the groups
    /// behind carriedRows when chains share a source (one initial fill), which the compiler
    /// keeps in one task. 0 when unknown.
    std::int64_t carriedChains = 0;
    /// A measured kernel whose profiler files give no pipe ratio (op_summary without the
    /// *_ratio columns, a DSA kernel): its busy times are unknown, not 0.
    bool pipeRatiosMissing = false;
    std::int64_t duration() const { return end - start; }
    bool ran() const { return core >= 0; }
};

/// An op of the program as the user wrote it, with the cost of every instruction generated for
/// it: an op of the root stage (the parsed .pto), or an op of a loop's body. The parsed program
/// records a loop as its `for` op only, and unroll-loops writes the body out once per iteration,
/// so an unrolled op's provenance climbs from its copy to the `for`; the copies of one body op
/// (same loop, kind and source position) are gathered into one entry of their own
/// (ProvenanceResolver::loopBodyOf), and the `for`'s entry holds the total of its body ops.
struct TensorOpCost {
    std::int64_t id = 0; ///< node id in `stageId`
    /// The stage of node `id`: the root stage, or for a body op the stage where its loop was
    /// written out (`id` = its copy with the lowest id, i.e. of the first iteration).
    std::int64_t stageId = -1;
    std::string kind, name;
    std::int64_t srcLine = 0;
    std::int64_t srcCol = 0;
    /// A body op: index of its loop (the `for` of the root stage) in RunModel::tensorOps; -1 for
    /// an op of the root stage.
    int loop = -1;
    /// A loop: its body ops that ran instructions; its costs are then their sum (a group).
    int bodyOps = 0;
    /// A loop: its name ("kv", "for@16:3" unnamed) and trip count when static (0: unknown);
    /// a body op: the loop label of its copies ("kv", "outer/inner" when nested).
    std::string loopName;
    std::int64_t iterations = 0;
    double flops = 0;
    double nominalFlops = 0;            ///< Σ InstrCost::nominalFlops (dtype-aware compute roof)
    std::int64_t gmBytes = 0;           ///< GM bytes read and written
    std::int64_t gmWriteBytes = 0;      ///< of which written (TSTORE, MSCATTER)
    PipeCycles busy{};                  ///< instruction cycles per pipe, summed over cores
    std::int64_t first = -1, last = -1; ///< first instruction start, last end (cycles)
    std::vector<std::int64_t> tasks;    ///< tasks that ran its instructions
    std::int64_t cycles() const;        ///< sum of busy
    /// A tiling directive (vec_tile, cube_tile): a statement of the program that runs no
    /// instruction, not an op — reports list no cycles, roof or bound class for it.
    bool isDirective() const { return kind == "vec_tile" || kind == "cube_tile"; }
    /// A loop whose costs are the sum of its body ops' entries (which name it in `loop`).
    bool isLoopTotal() const { return bodyOps > 0; }
    /// The entity of its `metric` rows: `tensor_op` (root stage), `loop_op` (a body op).
    std::string_view entity() const { return loop >= 0 ? "loop_op" : "tensor_op"; }
};

struct RunModel {
    std::string path;
    ArchPeaks peaks;
    std::string traceLevel; ///< tasks, instructions or full
    /// meta sim_fault: the simulator stopped the run with this fault; the trace holds the run up
    /// to it (tasks still running have no task slice). Empty for a run that finished.
    std::string simFault;
    std::vector<std::string> compileNotes; ///< the compiler's notes (meta compile_notes)
    std::string program;                   ///< entry function name
    bool doubleBuffer = true;              ///< from meta `target`
    bool hasInstrSlices = false;           ///< trace level instructions or full
    /// The opcodes of the program's instructions (its `instr` rows, written at every trace
    /// level): whether it has gathers or cross-core hand-offs when no slice shows them.
    std::set<std::string> opcodes;
    bool measured = false; ///< imported from a real profiler (profiler/MeasuredRun.h)
    /// A measured trace's pipe ratio columns that hold a value for some kernel
    /// ("aic_mac_ratio", …): reports list these, not every pipe a core type has.
    std::set<std::string> measuredRatioKeys;
    /// Where the run starts on the trace's clock: 0 for a simulated run; a measured trace's
    /// first kernel start (its ts 0 is its earliest event of any kind — host ops, counters).
    std::int64_t startCycle = 0;
    /// The run's length from startCycle: sim_total_cycles, else the last task end; for a
    /// measured trace the first kernel start to the last kernel end.
    std::int64_t totalCycles = 0;
    std::int64_t execStageId = -1;                           ///< last Exec stage
    std::int64_t rootStageId = -1;                           ///< parsed program
    std::vector<CoreInfo> cores;                             ///< by track id
    std::vector<TaskRun> tasks;                              ///< by task id
    std::vector<std::pair<std::int64_t, std::int64_t>> deps; ///< (from, to) task ids
    /// The root stage's ops by id, then the loop body ops in the order they were met.
    std::vector<TensorOpCost> tensorOps;
    std::map<std::int64_t, std::int64_t> lineCycles; ///< src line → instruction cycles
    /// Indexed DMAs (issue 16) of one opcode, from its slices and their args: count, pipe
    /// time, rows and bytes moved, and the byte-weighted DMA efficiency of the row transfers.
    struct IndexedDma {
        std::int64_t count = 0, cycles = 0, rows = 0, bytes = 0;
        double efficiency = 1.0;
    };
    IndexedDma gathers;  ///< MGATHER: GM rows by index into UB, on MTE2
    IndexedDma scatters; ///< MSCATTER: UB rows added into GM rows by index, on MTE3
    /// Block functions whose buffers use double-buffering slot 1.
    std::vector<std::int64_t> doubleBufferedBlocks;
    /// Defects of the file the loader worked around (a stage.parent_stage_id loop, slices set
    /// aside by profiler/UsableSlices.h), one sentence each: tools print them as warnings.
    std::vector<std::string> fileWarnings;

    const TaskRun* task(std::int64_t id) const;
    const CoreInfo* coreOf(const TaskRun& t) const;
    /// Some task ran: the trace holds usable task slices (an emptied slice table has none —
    /// then there is nothing to classify or find).
    bool executed() const;
    /// Why a run that did not execute() has nothing to classify: a fault before any task
    /// finished, or no task or instruction slice at all.
    std::string_view notExecutedReason() const {
        return simFault.empty() ? "the trace holds no executed instructions"
                                : "the run stopped by a fault before any task finished";
    }
    /// Flag, barrier and bandwidth waits are recorded: trace level full, or a trace that does not
    /// state its level (its wait slices are all there is). Otherwise every WaitCycles is 0
    /// because nothing was recorded, not because nothing waited.
    bool recordsWaits() const { return traceLevel.empty() || traceLevel == "full"; }
    /// Pipe busy times and Tensor op cycles are recorded: a measured trace, or a simulated one
    /// with instruction slices. At --trace tasks they are 0 because nothing was recorded (an
    /// op's roof divided by its 0-cycle span gave 250776 %; the GUI drew 0 % pipes).
    bool recordsInstrCycles() const { return measured || hasInstrSlices; }
    /// Where the run ends on the trace's clock.
    std::int64_t endCycle() const { return startCycle + totalCycles; }
    /// The unit of every time in the model: cycles of a simulated run, nanoseconds of a
    /// measured trace (its clock_hz is 1e9) — what reports print after a time.
    std::string_view timeUnit() const { return measured ? "ns" : "cycles"; }
    /// The fixed cost between a task becoming ready and starting, when the trace records no
    /// dispatch stall: the simulated arch's sched.dispatch_cost; 0 for a measured trace (the
    /// real launch cost is not known, so a gap is not taken for it).
    std::int64_t assumedDispatch() const {
        return measured ? 0 : std::int64_t(peaks.dispatchCycles);
    }
};

/// Loads the model. Throws tracedb::TraceError when the file holds no simulated run.
RunModel loadRunModel(const tracedb::TraceReader& reader);

/// Indices into model.tensorOps in program order: each op of the root stage, a loop followed
/// by its body ops by source position.
std::vector<std::size_t> programOrder(const RunModel& model);

/// "matmul %qk", or "for kv" for a loop (its name for the result it does not have).
std::string opLabel(const TensorOpCost& op);

} // namespace pto::prof
