// Trace output of a simulation run: tracks, slices, flows, counters and meta (see
// TraceEmitter.h for the layout).
#include "simulator/engine/TraceEmitter.h"

#include "simulator/arch/OpcodeClass.h"
#include "simulator/engine/TimedProgram.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::sim {
namespace {

using tracedb::SliceCategory;
using tracedb::TrackKind;
using tracedb::TrackRow;

constexpr size_t kBatchRows = 16384;

constexpr Pipe kAicPipes[] = {Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::FIX, Pipe::MTE3};
constexpr Pipe kAivPipes[] = {Pipe::S, Pipe::MTE2, Pipe::V, Pipe::MTE3};

} // namespace

std::string_view traceLevelName(TraceLevel level) {
    constexpr std::string_view kNames[] = {"none", "tasks", "instructions", "full"};
    return kNames[static_cast<int>(level)];
}

std::optional<TraceLevel> parseTraceLevel(std::string_view name) {
    for (int i = 0; i < 4; ++i)
        if (traceLevelName(static_cast<TraceLevel>(i)) == name) return static_cast<TraceLevel>(i);
    return std::nullopt;
}

TraceEmitter::TraceEmitter(tracedb::TraceWriter& writer, const TraceSetup& setup)
    : m_writer(writer), m_level(setup.level), m_clockHz(setup.clockHz), m_archName(setup.archName),
      m_archJson(setup.archJson), m_aicCores(setup.aicCores) {
    if (m_level >= TraceLevel::Full)
        m_util = PipeUtilization(static_cast<size_t>(setup.aicCores + setup.aivCores) * kPipeCount);
    createTracks(setup);
    for (int i = 0; i < kOpcodeCount; ++i)
        m_opcodeNames.push_back(writer.intern(opcodeName(static_cast<Opcode>(i))));
    m_stallName = writer.intern("bandwidth stall");
    m_dispatchName = writer.intern("dispatch");
    // The run's marker slice, inserted now so that its id tells where our numbering starts.
    tracedb::SliceRow marker;
    marker.trackId = m_chipTrack;
    marker.nameId = writer.intern("simulate " + setup.programName);
    marker.category = SliceCategory::Task;
    const int64_t markerId = writer.add(marker);
    m_nextSlice = markerId + 1;
    addArg(markerId, "program", setup.programName);
    addArg(markerId, "arch", setup.archName);
    addArg(markerId, "trace_level", std::string(traceLevelName(setup.level)));
    m_sink.emplace(writer);
}

TraceEmitter::~TraceEmitter() = default; // the sink's destructor stops its thread

// Core tracks in slot order (AICs, then AIVs); with clusters, AIC c is followed by AIV 2c and
// AIV 2c+1 (the hardware cluster the scheduler gives a fused cluster), then the other AIVs.
int TraceEmitter::coreSortIndex(const TraceSetup& setup, int slot) {
    if (!setup.clusters) return slot;
    const int clusters = std::min(setup.aicCores, setup.aivCores / 2);
    if (slot < setup.aicCores) return slot < clusters ? 3 * slot : 2 * clusters + slot;
    const int aiv = slot - setup.aicCores;
    if (aiv < 2 * clusters) return 3 * (aiv / 2) + 1 + aiv % 2;
    return setup.aicCores + aiv; // after the AICs without a cluster: still below cores
}

void TraceEmitter::createTracks(const TraceSetup& setup) {
    TrackRow chip;
    chip.nameId = m_writer.intern(setup.archName + " chip");
    chip.kind = TrackKind::Chip;
    m_chipTrack = m_writer.add(chip);
    const int cores = setup.aicCores + setup.aivCores;
    m_pipeTracks.assign(static_cast<size_t>(cores) * kPipeCount, 0);
    m_coreTracks.assign(cores, 0);
    for (int slot = 0; slot < cores; ++slot) {
        const bool aic = slot < setup.aicCores;
        const int index = aic ? slot : slot - setup.aicCores;
        const std::string type(coreDisplayName(aic ? CoreType::AIC : CoreType::AIV));
        TrackRow core;
        core.parentId = m_chipTrack;
        core.nameId = m_writer.intern(fmt::format("{} {}", type, index));
        core.kind = TrackKind::Core;
        core.coreId = index;
        core.coreType = type;
        core.sortIndex = coreSortIndex(setup, slot);
        const int64_t coreTrack = m_writer.add(core);
        m_coreTracks[slot] = coreTrack;
        int sort = 0;
        for (Pipe p : aic ? std::span<const Pipe>(kAicPipes) : std::span<const Pipe>(kAivPipes)) {
            TrackRow pipe = core;
            pipe.id = tracedb::kAutoId;
            pipe.parentId = coreTrack;
            pipe.nameId = m_writer.intern(pipeName(p));
            pipe.kind = TrackKind::Pipe;
            pipe.pipe = std::string(pipeName(p));
            pipe.sortIndex = sort++;
            m_pipeTracks[slot * kPipeCount + static_cast<int>(p)] = m_writer.add(pipe);
        }
    }
    if (m_level < TraceLevel::Full) return;
    auto counterTrack = [&](const char* name, int sort) {
        TrackRow t;
        t.parentId = m_chipTrack;
        t.nameId = m_writer.intern(name);
        t.kind = TrackKind::Counter;
        t.sortIndex = cores + sort;
        return m_writer.add(t);
    };
    m_hbm.track = counterTrack("HBM GB/s", 0);
    m_l2.track = counterTrack("L2 GB/s", 1);
    m_l2Hit.track = counterTrack("L2 hit %", 2);
    m_readyAic.track = counterTrack("ready AIC tasks", 3);
    m_readyAiv.track = counterTrack("ready AIV tasks", 4);
    createOccupancyTracks(setup);
}

// Per core, one counter track per on-chip space of its type, after its pipes.
void TraceEmitter::createOccupancyTracks(const TraceSetup& setup) {
    const int cores = setup.aicCores + setup.aivCores;
    m_occupancy.assign(static_cast<size_t>(cores) * kOccupancySpaces, CounterState{});
    for (int slot = 0; slot < cores; ++slot) {
        const bool aic = slot < setup.aicCores;
        for (int space = 0; space < kOccupancySpaces; ++space) {
            if ((occupancySpace(space) == MemSpace::UB) == aic) continue;
            TrackRow t;
            t.parentId = m_coreTracks[slot];
            t.nameId = m_writer.intern(fmt::format("{} KiB", memSpaceName(occupancySpace(space))));
            t.kind = TrackKind::Counter;
            t.coreId = aic ? slot : slot - setup.aicCores;
            t.coreType = std::string(coreDisplayName(aic ? CoreType::AIC : CoreType::AIV));
            t.sortIndex = kPipeCount + space;
            m_occupancy[static_cast<size_t>(slot) * kOccupancySpaces + space].track =
                m_writer.add(t);
        }
    }
}

int64_t TraceEmitter::addSlice(int64_t track, int64_t ts, int64_t dur, int64_t nameId,
                               SliceCategory category, int depth, std::optional<int64_t> instrId,
                               std::optional<int64_t> taskId, bool withArgs) {
    tracedb::SliceRow& row = m_batch.slices.emplace_back();
    row.id = m_nextSlice++;
    row.ts = ts;
    row.dur = dur;
    row.trackId = track;
    row.nameId = nameId;
    row.category = category;
    row.depth = depth;
    row.instrId = instrId;
    row.taskId = taskId;
    if (withArgs) row.argSetId = row.id;
    ++m_rows;
    const int64_t id = row.id;
    flushIfFull();
    return id;
}

void TraceEmitter::addArg(int64_t slice, std::string key, tracedb::ArgValue value) {
    m_args.push_back(tracedb::ArgRow{slice, std::move(key), std::move(value)});
}

int64_t TraceEmitter::instr(int core, Pipe pipe, Opcode op, int64_t instrId, uint32_t taskId,
                            int64_t start, int64_t end, const std::string& loop) {
    if (m_level >= TraceLevel::Full)
        m_util.add(static_cast<size_t>(core) * kPipeCount + static_cast<size_t>(pipe), start, end);
    const int64_t id =
        addSlice(pipeTrack(core, pipe), start, end - start, m_opcodeNames[static_cast<int>(op)],
                 SliceCategory::Instr, 0, instrId, taskId, !loop.empty());
    if (!loop.empty()) addArg(id, "loop", loop);
    return id;
}

int64_t TraceEmitter::gatherInstr(int core, Pipe pipe, Opcode op, int64_t instrId, uint32_t taskId,
                                  int64_t start, int64_t end, int64_t rows, int64_t bytes,
                                  double efficiency) {
    if (m_level >= TraceLevel::Full)
        m_util.add(static_cast<size_t>(core) * kPipeCount + static_cast<size_t>(pipe), start, end);
    const int64_t id =
        addSlice(pipeTrack(core, pipe), start, end - start, m_opcodeNames[static_cast<int>(op)],
                 SliceCategory::Instr, 0, instrId, taskId, true);
    addArg(id, "rows", rows);
    addArg(id, "bytes", bytes);
    addArg(id, "row_bytes", rows > 0 ? bytes / rows : 0);
    addArg(id, "dma_efficiency", efficiency);
    return id;
}

int64_t TraceEmitter::task(int core, uint32_t taskId, std::string_view name, int64_t start,
                           int64_t end) {
    const int64_t nameId =
        m_writer.intern(name.empty() ? fmt::format("task {}", taskId) : std::string(name));
    return addSlice(m_coreTracks[core], start, end - start, nameId, SliceCategory::Task, 0,
                    std::nullopt, taskId, false);
}

void TraceEmitter::flagWait(int core, Pipe pipe, Pipe src, Pipe dst, int event, int64_t instrId,
                            uint32_t taskId, int64_t start, int64_t end) {
    const int slot = flagSlot(src, dst, event);
    auto [it, added] = m_waitNames.try_emplace(slot, 0);
    if (added)
        it->second = m_writer.intern(
            fmt::format("wait flag {}->{}#{}", pipeName(src), pipeName(dst), event));
    const int64_t id = addSlice(pipeTrack(core, pipe), start, end - start, it->second,
                                SliceCategory::Wait, 0, instrId, taskId, true);
    addArg(id, "reason", std::string("flag"));
    addArg(id, "flag", fmt::format("{}->{}#{}", pipeName(src), pipeName(dst), event));
}

void TraceEmitter::barrierWait(int core, Pipe pipe, Pipe awaited, int64_t instrId, uint32_t taskId,
                               int64_t start, int64_t end) {
    const int key = -1 - static_cast<int>(awaited);
    auto [it, added] = m_waitNames.try_emplace(key, 0);
    if (added) it->second = m_writer.intern(fmt::format("barrier wait {}", pipeName(awaited)));
    const int64_t id = addSlice(pipeTrack(core, pipe), start, end - start, it->second,
                                SliceCategory::Wait, 0, instrId, taskId, true);
    addArg(id, "reason", std::string("barrier"));
    addArg(id, "awaited_pipe", std::string(pipeName(awaited)));
}

void TraceEmitter::bandwidthStall(int core, Pipe pipe, int64_t instrId, uint32_t taskId,
                                  int64_t start, int64_t end, std::string_view limit,
                                  double pathRate) {
    const int64_t id = addSlice(pipeTrack(core, pipe), start, end - start, m_stallName,
                                SliceCategory::Stall, 1, instrId, taskId, true);
    addArg(id, "reason", fmt::format("{} bandwidth share", limit));
    addArg(id, "path_rate_bytes_per_cycle", pathRate);
}

void TraceEmitter::dispatchStall(int core, uint32_t taskId, int64_t start, int64_t end) {
    const int64_t id = addSlice(m_coreTracks[core], start, end - start, m_dispatchName,
                                SliceCategory::Stall, 0, std::nullopt, taskId, true);
    addArg(id, "reason", std::string("dispatch"));
}

void TraceEmitter::flagSet(int core, int flagSlot, int64_t setSlice) {
    m_flagSets[static_cast<int64_t>(core) * kFlagSlots + flagSlot].push_back(setSlice);
}

void TraceEmitter::flagConsumed(int core, int flagSlot, int64_t waitSlice) {
    auto it = m_flagSets.find(static_cast<int64_t>(core) * kFlagSlots + flagSlot);
    if (it == m_flagSets.end() || it->second.empty()) return;
    m_batch.flows.push_back(
        tracedb::FlowRow{tracedb::kAutoId, it->second.front(), waitSlice, tracedb::FlowKind::Flag});
    it->second.pop_front();
    ++m_rows;
    flushIfFull();
}

void TraceEmitter::resetFlags(int core) {
    for (auto it = m_flagSets.begin(); it != m_flagSets.end();) {
        if (it->first / kFlagSlots == core)
            it = m_flagSets.erase(it);
        else
            ++it;
    }
}

void TraceEmitter::crossFlagSet(int core, int crossSlot, int64_t setSlice) {
    if (setSlice == 0) return;
    m_crossSets[static_cast<int64_t>(core) * kCrossSlots + crossSlot].push_back(setSlice);
}

void TraceEmitter::crossFlagConsumed(int core, int crossSlot, int64_t waitSlice) {
    auto it = m_crossSets.find(static_cast<int64_t>(core) * kCrossSlots + crossSlot);
    if (it == m_crossSets.end() || it->second.empty() || waitSlice == 0) return;
    m_batch.flows.push_back(
        tracedb::FlowRow{tracedb::kAutoId, it->second.front(), waitSlice, tracedb::FlowKind::Flag});
    it->second.pop_front();
    ++m_rows;
    flushIfFull();
}

void TraceEmitter::resetCrossFlags(int core) {
    for (int c = 0; c < kCrossSlots; ++c)
        m_crossSets.erase(static_cast<int64_t>(core) * kCrossSlots + c);
}

void TraceEmitter::crossFlagWait(int core, Pipe pipe, ClusterRole peer, int id, int64_t instrId,
                                 uint32_t taskId, int64_t start, int64_t end) {
    const int key = 1000 + crossSlot(peer, id); // beside flag slots (< 1000) and barriers (< 0)
    auto [it, added] = m_waitNames.try_emplace(key, 0);
    if (added)
        it->second = m_writer.intern(fmt::format("wait cross {}#{}", clusterRoleName(peer), id));
    const int64_t slice = addSlice(pipeTrack(core, pipe), start, end - start, it->second,
                                   SliceCategory::Wait, 0, instrId, taskId, true);
    addArg(slice, "reason", std::string("cross_flag"));
    addArg(slice, "flag", fmt::format("{}#{}", clusterRoleName(peer), id));
}

void TraceEmitter::dependency(int64_t fromSlice, int64_t toSlice) {
    m_batch.flows.push_back(
        tracedb::FlowRow{tracedb::kAutoId, fromSlice, toSlice, tracedb::FlowKind::Dep});
    ++m_rows;
    flushIfFull();
}

void TraceEmitter::bandwidth(int64_t ts, double hbm, double l2) {
    const double toGBps = m_clockHz / 1e9;
    sample(m_hbm, ts, hbm * toGBps);
    sample(m_l2, ts, l2 * toGBps);
}

void TraceEmitter::l2HitRate(int64_t ts, double rate) {
    sample(m_l2Hit, ts, rate * 100.0);
}

void TraceEmitter::readyTasks(bool aic, int64_t ts, std::size_t count) {
    sample(aic ? m_readyAic : m_readyAiv, ts, static_cast<double>(count));
}

void TraceEmitter::writeUtilization(int64_t totalCycles) {
    std::vector<tracedb::CounterRow> rows;
    for (size_t slot = 0; slot < m_coreTracks.size(); ++slot)
        for (int p = 0; p < kPipeCount; ++p) {
            const size_t index = slot * kPipeCount + static_cast<size_t>(p);
            if (!m_util.busy(index)) continue;
            const bool aic = static_cast<int>(slot) < m_aicCores;
            TrackRow t;
            t.parentId = m_coreTracks[slot];
            t.nameId = m_writer.intern(fmt::format("{} busy %", pipeName(static_cast<Pipe>(p))));
            t.kind = TrackKind::Counter;
            t.coreId = aic ? static_cast<int64_t>(slot) : static_cast<int64_t>(slot) - m_aicCores;
            t.coreType = std::string(coreDisplayName(aic ? CoreType::AIC : CoreType::AIV));
            t.pipe = std::string(pipeName(static_cast<Pipe>(p)));
            t.sortIndex = kPipeCount + kOccupancySpaces + p;
            const int64_t track = m_writer.add(t);
            for (const auto& [ts, fraction] : m_util.series(index, totalCycles))
                rows.push_back(tracedb::CounterRow{ts, track, fraction * 100.0});
        }
    m_rows += static_cast<int64_t>(rows.size());
    m_writer.addAll(std::span<const tracedb::CounterRow>(rows));
}

void TraceEmitter::occupancy(int core, int space, int64_t ts, int64_t bytes) {
    CounterState& c = m_occupancy[static_cast<size_t>(core) * kOccupancySpaces + space];
    if (c.track != 0) sample(c, ts, static_cast<double>(bytes) / 1024.0);
}

// Samples at the same cycle overwrite each other; a value equal to the last one written is
// dropped (a counter holds its value until the next sample).
void TraceEmitter::sample(CounterState& counter, int64_t ts, double value) {
    if (counter.ts != ts) flushCounter(counter);
    counter.ts = ts;
    counter.value = value;
}

void TraceEmitter::flushCounter(CounterState& counter) {
    if (counter.ts < 0 || counter.value == counter.emitted) return;
    m_batch.counters.push_back(tracedb::CounterRow{counter.ts, counter.track, counter.value});
    counter.emitted = counter.value;
    ++m_rows;
    flushIfFull();
}

void TraceEmitter::flushIfFull() {
    if (m_batch.slices.size() + m_batch.flows.size() + m_batch.counters.size() >= kBatchRows)
        flush();
}

void TraceEmitter::flush() {
    if (m_batch.empty()) return;
    tracedb::SliceBatch batch;
    batch.slices.reserve(kBatchRows);
    std::swap(batch, m_batch);
    m_sink->push(std::move(batch));
}

void TraceEmitter::finish(int64_t totalCycles, const std::vector<std::string>& warnings) {
    if (m_finished) return;
    m_finished = true;
    if (m_level >= TraceLevel::Full) {
        flushCounter(m_hbm);
        flushCounter(m_l2);
        flushCounter(m_l2Hit);
        for (CounterState& c : m_occupancy) flushCounter(c);
        flushCounter(m_readyAic);
        flushCounter(m_readyAiv);
    }
    flush();
    m_sink->finish();
    if (m_level >= TraceLevel::Full) writeUtilization(totalCycles);
    m_writer.addAll(std::span<const tracedb::ArgRow>(m_args));
    for (const std::string& w : warnings)
        m_writer.add(
            tracedb::StatRow{"sim_warning", std::nullopt, tracedb::StatSeverity::Error, 1, w});
    m_writer.setMeta("clock_hz", fmt::format("{}", m_clockHz));
    m_writer.setMeta("trace_level", traceLevelName(m_level));
    m_writer.setMeta("sim_total_cycles", std::to_string(totalCycles));
    m_writer.setMeta("arch_name", m_archName);
    m_writer.setMeta("arch_config", m_archJson);
}

void TraceEmitter::finishAfterFault(int64_t cycle, const std::string& message) noexcept {
    try {
        finish(std::max<int64_t>(cycle, 0), {});
        m_writer.setMeta("sim_fault", message);
        m_writer.add(tracedb::StatRow{"sim_fault", std::nullopt, tracedb::StatSeverity::DataLoss, 1,
                                      "the run stopped at a fault: " + message});
    } catch (...) {
        // The writer is unusable; the fault itself is still thrown by the caller.
    }
}

} // namespace pto::sim
