// What a simulation run reports: total time, per-core pipe busy time, per-task placement and
// times, bytes per DMA path, L2 and HBM traffic, output tensors, instruction and event counts,
// warnings.
#pragma once

#include "compiler/ir/Hardware.h"
#include "compiler/ir/TensorData.h"
#include "simulator/engine/CostModel.h"
#include "simulator/engine/Cycles.h"
#include "simulator/numerics/SimFault.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pto::sim {

struct TaskRun {
    uint32_t task = 0; ///< Task::id
    CoreType coreType = CoreType::None;
    int core = -1;     ///< index within the core type
    Cycles dispatched; ///< picked by the scheduler (start − dispatched = sched.dispatch_cost)
    Cycles start;
    Cycles end;
};

struct CoreStats {
    CoreType type = CoreType::None;
    int core = -1; ///< index within the type
    /// Cycles each pipe spent executing instructions (waits for flags not included).
    std::array<Cycles, kPipeCount> busy{};
    Cycles taskTime; ///< cycles between task starts and ends
    int tasks = 0;
};

/// A problem that did not stop the run (e.g. a SET_FLAG never waited for).
struct SimWarning {
    FaultSite site;
    std::string message;
};

/// What the shared memory system saw: GM reads split by L2 hit and miss, HBM traffic.
struct MemoryStats {
    int64_t l2HitBytes = 0;  ///< GM bytes read from resident L2 lines
    int64_t l2MissBytes = 0; ///< GM bytes read from HBM (then resident in L2)
    int64_t hbmReadBytes = 0;
    int64_t hbmWriteBytes = 0; ///< every GM write (L2 is write-through)
    int64_t l2Evictions = 0;   ///< lines (granules) evicted
    int64_t l2Granule = 0;     ///< bytes per tracked L2 line

    /// Share of GM read bytes that hit L2 (0 when nothing was read).
    double l2HitRate() const {
        const int64_t reads = l2HitBytes + l2MissBytes;
        return reads ? static_cast<double>(l2HitBytes) / static_cast<double>(reads) : 0.0;
    }
};

struct SimResult {
    Cycles totalCycles;
    int64_t instructions = 0;                        ///< instructions executed
    std::vector<CoreStats> cores;                    ///< AIC 0..n−1, then AIV 0..m−1
    std::vector<TaskRun> tasks;                      ///< in ExecGraph::tasks order
    std::array<int64_t, kDmaPathCount> bytesMoved{}; ///< per DmaPath
    MemoryStats memory;
    /// Tensors of role Output, in GM table order, with their names (empty when timing only).
    std::vector<std::pair<std::string, TensorData>> outputs;
    std::vector<SimWarning> warnings;
    int64_t events = 0;    ///< discrete events processed
    int64_t traceRows = 0; ///< slices, flows and counter samples written to the trace

    const CoreStats& core(CoreType type, int index) const;
    int64_t bytes(DmaPath path) const { return bytesMoved[static_cast<int>(path)]; }
};

} // namespace pto::sim
