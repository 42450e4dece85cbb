// The hardware figures the analyses compare against (peaks, rates), read from trace meta
// `arch_config` alone so the profiler never needs the simulator.
#pragma once

#include <optional>
#include <string>

namespace pto::prof {

/// Peak rates of the simulated chip, in cycles of its clock. Derived from meta `arch_config`
/// (docs/SIMULATOR.md) with the 910B-like defaults for any parameter the file lacks.
struct ArchPeaks {
    std::string name = "910B-like";
    double clockHz = 1.8e9;
    int aicCores = 24;
    int aivCores = 48;
    /// Cube: m0·k0·n0 MACs per cycle, 2 FLOP per MAC (f16), per AIC core.
    double cubeFlopsPerCycle = 16 * 16 * 16 * 2;
    /// Vector: one repeat of vector.bytes_per_repeat of f16 lanes per cycle, 1 FLOP per lane,
    /// per AIV core (the best the cost model allows: slope 1 cycle per repeat).
    double vectorFlopsPerCycle = 128;
    /// Shared GM bandwidth: min(l2.bandwidth, hbm.bandwidth), bytes/cycle, raised towards
    /// l2.bandwidth by the run's measured L2 hits (applyMeasuredTraffic).
    double gmBytesPerCycle = 1.6e12 / 1.8e9;
    double gmToUbRate = 58.6; ///< per-core uncontended DMA rate GM->UB, bytes/cycle
    double gmToL1Rate = 78.4; ///< per-core uncontended DMA rate GM->L1, bytes/cycle
    double ubToGmRate = 109.4;
    double l0cToGmRate = 40.6;
    double l1ToGmRate = 18.6;
    double dispatchCycles = 1800;             ///< sched.dispatch_cost
    double l0cBytes = 128 * 1024;             ///< mem.l0c.size: the cube's accumulator buffer
    double gmLatencyCycles = 500;             ///< hit-ratio weighted L2/HBM latency
    double hbmBytesPerCycle = 1.6e12 / 1.8e9; ///< hbm.bandwidth
    double l2BytesPerCycle = 5e12 / 1.8e9;    ///< l2.bandwidth
    double l2LatencyCycles = 200;
    double hbmLatencyCycles = 500;

    /// GM latency when a share `hit` of the bytes is served by L2.
    double gmLatencyAt(double hit) const {
        return hit * l2LatencyCycles + (1 - hit) * hbmLatencyCycles;
    }
};

/// GM traffic a run measured (meta `sim_memory`): reads split by L2 hit and miss, writes.
struct MeasuredTraffic {
    double l2HitBytes = 0;
    double l2MissBytes = 0;
    double writeBytes = 0;
};

/// Parses meta `sim_memory` ({"l2_hit_bytes":…,"l2_miss_bytes":…,"hbm_write_bytes":…});
/// nullopt when absent or malformed.
std::optional<MeasuredTraffic> parseMeasuredTraffic(const std::string& json);

/// Makes the GM roof the one the run really had: GM bytes (reads + writes) are carried by L2
/// and the misses and writes by HBM, so the bandwidth GM traffic can reach is
/// min(l2.bandwidth, hbm.bandwidth × GM bytes ÷ HBM bytes). Without it a GEMM whose operands
/// hit L2 would show more GM bandwidth than HBM has. Also weights the GM latency by the
/// measured hit rate.
void applyMeasuredTraffic(ArchPeaks& peaks, const MeasuredTraffic& traffic);

/// Parses the JSON of meta `arch_config` ({"name":…,"params":{"hbm.bandwidth":"1.6 TB/s",…}}).
/// Unknown keys are ignored; a value that does not parse keeps its default. Never throws.
ArchPeaks parseArchPeaks(const std::string& archJson);

/// "1.6 TB/s" → bytes per cycle at `clockHz`, "64 KiB" → bytes, "1 us" (ns, ms, s) → cycles, "1.8
/// GHz" → Hz, "24" → 24. Returns false when the text is not a number with a known unit.
bool parseQuantity(const std::string& text, double clockHz, double& out);

} // namespace pto::prof
