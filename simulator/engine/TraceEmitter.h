// Writes a simulation run into a trace file: tracks chip → core → pipe/task, one slice per
// instruction and per task, waits and stalls with their reasons, flag and dependency flows,
// bandwidth counters — batched through an AsyncSliceSink so the engine barely pays for it.
#pragma once

// Tracks (created when the emitter is built, before any slice):
//   chip "<arch name> chip"                   kind chip
//     core "AIC 0" … "AIV 47"                 kind core, core_id = index within the type; it
//                                             is the core's task lane: task slices and
//                                             dispatch stalls (docs/TRACE_SCHEMA.md)
//       pipe "S", "MTE2", … (the type's pipes) kind pipe: instructions, waits, stalls
//       "L1 KiB", "L0A KiB", "L0B KiB", "L0C KiB" (AIC) / "UB KiB" (AIV)
//                                             kind counter (Full level only): bytes of the
//                                             core's live buffers (BufferOccupancy)
//     "HBM GB/s", "L2 GB/s", "L2 hit %"       kind counter (Full level only)
// Slice ids: the emitter inserts one instant slice ("simulate <program>", ts 0, on the chip
// track) synchronously to learn the next free id, then numbers every later slice itself so
// flows can refer to them while rows are still queued. Argument sets use the id of the slice
// they belong to as arg_set_id; they are written after the sink finishes.

#include "simulator/engine/BufferOccupancy.h"
#include "simulator/engine/PipeUtilization.h"
#include "simulator/engine/SimOptions.h"
#include "trace_db/AsyncSliceSink.h"
#include "trace_db/TraceWriter.h"

#include "compiler/ir/Pto.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pto::sim {

struct TraceSetup {
    TraceLevel level = TraceLevel::Instructions;
    double clockHz = 1.8e9;
    int aicCores = 0;
    int aivCores = 0;
    std::string archName;
    std::string archJson; ///< archJson of the config, stored as meta 'arch_config'
    std::string programName;
    /// The program runs fused clusters: core tracks are ordered AIC c, AIV 2c, AIV 2c+1 (the
    /// cores of hardware cluster c side by side), then the AIVs no cluster uses.
    bool clusters = false;
};

class TraceEmitter {
public:
    /// Creates the tracks and starts the writer thread. `writer` must outlive the emitter and
    /// belongs to it until finish().
    TraceEmitter(tracedb::TraceWriter& writer, const TraceSetup& setup);
    ~TraceEmitter();
    TraceEmitter(const TraceEmitter&) = delete;
    TraceEmitter& operator=(const TraceEmitter&) = delete;

    TraceLevel level() const { return m_level; }
    bool wantsInstructions() const { return m_level >= TraceLevel::Instructions; }
    bool wantsFull() const { return m_level >= TraceLevel::Full; }

    // `core` is the engine's core slot: AIC 0..n−1, then AIV 0..m−1.

    /// One instruction on its pipe; returns its slice id. An instruction of a counted loop
    /// (compiler/ir/PtoLoops.h) names its round in the arg `loop` ("kv, iter 7").
    int64_t instr(int core, Pipe pipe, Opcode op, int64_t instrId, uint32_t taskId, int64_t start,
                  int64_t end, const std::string& loop = {});
    /// A gather or scatter DMA (MGATHER, MSCATTER) on its pipe, with args rows, bytes,
    /// row_bytes and dma_efficiency (the size/alignment factor of one row's transfer); returns
    /// its slice id.
    int64_t gatherInstr(int core, Pipe pipe, Opcode op, int64_t instrId, uint32_t taskId,
                        int64_t start, int64_t end, int64_t rows, int64_t bytes, double efficiency);
    /// One task on its core's track; returns its slice id.
    int64_t task(int core, uint32_t taskId, std::string_view name, int64_t start, int64_t end);
    /// A pipe waiting for a flag before WAIT_FLAG `instrId` (Full).
    void flagWait(int core, Pipe pipe, Pipe src, Pipe dst, int event, int64_t instrId,
                  uint32_t taskId, int64_t start, int64_t end);
    /// A pipe waiting at BARRIER `instrId` for `awaited` (Full).
    void barrierWait(int core, Pipe pipe, Pipe awaited, int64_t instrId, uint32_t taskId,
                     int64_t start, int64_t end);
    /// The part of GM transfer `instrId` lost to bandwidth sharing, nested in its instruction
    /// slice (Full).
    void bandwidthStall(int core, Pipe pipe, int64_t instrId, uint32_t taskId, int64_t start,
                        int64_t end, std::string_view limit, double pathRate);
    /// A core reserved for a task that has not started yet (Full).
    void dispatchStall(int core, uint32_t taskId, int64_t start, int64_t end);

    /// Flag flows (Full): a SET_FLAG slice and the WAIT_FLAG slice that consumed it, matched
    /// first in, first out per (core, flag slot).
    void flagSet(int core, int flagSlot, int64_t setSlice);
    void flagConsumed(int core, int flagSlot, int64_t waitSlice);
    void resetFlags(int core);
    /// Cross-core hand-offs (Full): a CROSS_SET_FLAG slice on one core and the CROSS_WAIT_FLAG
    /// slice on its peer that consumed the signal, matched first in, first out per (receiving
    /// core, crossSlot), as `flag` flows between the two cores' pipes.
    void crossFlagSet(int core, int crossSlot, int64_t setSlice);
    void crossFlagConsumed(int core, int crossSlot, int64_t waitSlice);
    void resetCrossFlags(int core);
    /// A pipe waiting before CROSS_WAIT_FLAG `instrId` for a signal of `peer` (Full).
    void crossFlagWait(int core, Pipe pipe, ClusterRole peer, int id, int64_t instrId,
                       uint32_t taskId, int64_t start, int64_t end);
    /// A dependency flow between two task slices.
    void dependency(int64_t fromSlice, int64_t toSlice);
    /// HBM and L2 bandwidth in use from `ts` on, bytes per cycle (Full); the counters are
    /// GB/s.
    void bandwidth(int64_t ts, double hbm, double l2);
    /// The share of GM read bytes so far that hit L2, in [0, 1] (Full); the counter is percent.
    void l2HitRate(int64_t ts, double rate);
    /// Bytes of live buffers in on-chip space `space` (occupancyIndex) of `core` from `ts` on
    /// (Full); the counter is KiB.
    void occupancy(int core, int space, int64_t ts, int64_t bytes);
    /// Tasks of a core type whose dependencies are done and that wait for a core, from `ts`
    /// on (Full); chip-level counters "ready AIC tasks" / "ready AIV tasks".
    void readyTasks(bool aic, int64_t ts, std::size_t count);

    /// Flushes everything, waits for the writer thread, writes args, stats (one
    /// 'sim_warning' row per warning) and meta (clock_hz, trace_level, sim_total_cycles,
    /// arch_name, arch_config). Afterwards the writer is the caller's again (to commit).
    void finish(int64_t totalCycles, const std::vector<std::string>& warnings);
    /// As finish, for a run stopped by a fault at `cycle`: meta 'sim_fault' holds `message`.
    /// Never throws (the fault is what the caller needs to see).
    void finishAfterFault(int64_t cycle, const std::string& message) noexcept;

    /// Slices, flows and counter samples emitted so far.
    int64_t rows() const { return m_rows; }

private:
    struct CounterState {
        int64_t track = 0;
        int64_t ts = -1;
        double value = 0;
        double emitted = -1;
    };

    static int coreSortIndex(const TraceSetup& setup, int slot);
    void createTracks(const TraceSetup& setup);
    void createOccupancyTracks(const TraceSetup& setup);
    int64_t addSlice(int64_t track, int64_t ts, int64_t dur, int64_t nameId,
                     tracedb::SliceCategory category, int depth, std::optional<int64_t> instrId,
                     std::optional<int64_t> taskId, bool withArgs);
    void addArg(int64_t slice, std::string key, tracedb::ArgValue value);
    void sample(CounterState& counter, int64_t ts, double value);
    void flushCounter(CounterState& counter);
    void flushIfFull();
    void flush();
    /// Full: per core, one "<pipe> busy %" counter track per pipe that ran anything, in the
    /// windows of m_util (after the slices, on the caller's thread).
    void writeUtilization(int64_t totalCycles);
    int64_t pipeTrack(int core, Pipe pipe) const {
        return m_pipeTracks[core * kPipeCount + static_cast<int>(pipe)];
    }

    tracedb::TraceWriter& m_writer;
    TraceLevel m_level;
    std::optional<tracedb::AsyncSliceSink> m_sink;
    tracedb::SliceBatch m_batch;
    std::vector<tracedb::ArgRow> m_args;
    int64_t m_nextSlice = 0;
    int64_t m_rows = 0;
    int64_t m_chipTrack = 0;
    std::vector<int64_t> m_pipeTracks; // core * kPipeCount + pipe, 0 = none
    std::vector<int64_t> m_coreTracks;
    std::vector<int64_t> m_opcodeNames;
    std::unordered_map<int, int64_t> m_waitNames;                // flag slot or -1 - pipe (barrier)
    std::unordered_map<int64_t, std::deque<int64_t>> m_flagSets; // core * slots + slot
    std::unordered_map<int64_t, std::deque<int64_t>> m_crossSets; // core * kCrossSlots + slot
    double m_clockHz;
    std::string m_archName;
    std::string m_archJson;
    CounterState m_hbm;
    CounterState m_l2;
    CounterState m_l2Hit;
    std::vector<CounterState> m_occupancy; // core * kOccupancySpaces + space; track 0 = none
    CounterState m_readyAic;
    CounterState m_readyAiv;
    PipeUtilization m_util{0}; // core * kPipeCount + pipe (Full)
    int m_aicCores = 0;
    int64_t m_stallName = 0;
    int64_t m_dispatchName = 0;
    bool m_finished = false;
};

} // namespace pto::sim
