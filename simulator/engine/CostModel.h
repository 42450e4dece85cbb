// How long an instruction takes, from the arch config: cube and vector cost formulas, flag
// costs, DMA paths with their per-core rates, efficiency and latencies.
#pragma once

// Formulas (cycles; every total is rounded up to a whole cycle):
//   cube    TMATMUL[_ACC] m×k×n: startup + slope · ⌈m/m0⌉·⌈k/k0'⌉·⌈n/n0⌉ · f, where k0' = k0
//           (×cube.i8_k_factor for i8 inputs) and f = cube.f32_cycle_factor for f32 inputs,
//           else 1 (128×64×256 f16 = 6 + 8·4·16 = 518)
//   vector  startup · ⌈repeats / vector.max_repeats⌉ + slope · repeats, repeats =
//           ⌈largest operand bytes / vector.bytes_per_repeat⌉ (at least one startup)
//   sync    SET_FLAG / WAIT_FLAG / BARRIER: startup (the wait is extra, decided by the engine)
//   on-chip move (L1→L0A/L0B, L0C→L1, UB→UB): dma.onchip_latency + bytes / path rate
//   GM transfer: latency + GM bytes / rate, latency = l2.latency when every byte hits L2,
//           else hbm.latency; rate = min(path rate × efficiency, share of the HBM and L2
//           bandwidth) — which bytes hit (L2Cache) and the shares are the engine's.
//   efficiency = size factor × alignment factor; size factor = 1 for ≥ small_transfer_bytes,
//           else floor + (1 − floor)·bytes/small_transfer_bytes; alignment factor = 1 when the
//           GM address (and the row pitch of a multi-row transfer) is a multiple of
//           mem.gm_align, else dma.misaligned_efficiency.

#include "compiler/ir/Pto.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/arch/OpcodeClass.h"
#include "simulator/engine/Cycles.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::sim {

enum class DmaPath : uint8_t {
    GmToUb,
    GmToL1,
    UbToGm,
    L1ToGm,
    L0cToGm,
    L0cToL1,
    L1ToL0a,
    L1ToL0b,
    UbToUb,
};
inline constexpr int kDmaPathCount = 9;

/// "GM->UB", "L1->L0A"...
std::string_view dmaPathName(DmaPath path);
/// The path of a move from `src` to `dst`, or nullopt when the chip has none.
std::optional<DmaPath> dmaPathOf(MemSpace src, MemSpace dst);
constexpr bool isGmPath(DmaPath p) {
    return p <= DmaPath::L0cToGm;
}
/// Whether a data-movement opcode moves along `path` (TLOAD: GM->UB/L1; TSTORE: UB/L1/L0C->GM;
/// TEXTRACT: L1->L0A/L0B; TMOV: L1->L0A/L0B, L0C->L1, UB->UB).
bool opcodeMovesAlong(Opcode op, DmaPath path);
/// (The pipe that runs a move is compiler/ir/Pto.h's movePipe: one rule with the verifier.)

/// The dma.<path>.rate parameter of a path.
Param dmaPathParam(DmaPath path);
/// The arch parameters an instruction's duration comes from, for messages: "cost.trelu.startup
/// and cost.trelu.slope", "dma.onchip_latency and dma.l1_to_l0a.rate"; for a GM transfer its
/// latencies, the shared bandwidths and its path rate.
std::string durationParams(const Instr& instr);

/// Which shared resource limits GM transfers when they saturate it.
enum class SharedLimit : uint8_t { Hbm, L2 };

/// A GM transfer's inputs to the shared-bandwidth model.
struct GmTransferCost {
    double bytes = 0;      ///< GM-side bytes
    double cap = 0;        ///< path rate × efficiency, B/cycle
    double efficiency = 1; ///< the factor applied to the path rate
    int64_t latency = 0;   ///< cycles before data streams when it misses L2 (hbm.latency)
};

/// The sort passes of a TTOPK over rows of n elements: one TSORT32 pass (sorted runs of 32)
/// and one 4-way TMRGSORT pass per factor 4 above 32 (an assumption, docs/SIMULATOR.md).
double topkPasses(int64_t n);
/// The vadd passes of a TCUMSUM along rows of n elements: ceil(log2 n), at least 1 (a log-step
/// scan; an assumption, docs/SIMULATOR.md).
double cumsumPasses(int64_t n);

class CostModel {
public:
    explicit CostModel(const ArchConfig& arch);

    int64_t cubeCycles(const Instr& instr) const;
    int64_t vectorCycles(const Instr& instr) const;
    int64_t syncCycles(Opcode op) const;
    int64_t onchipCycles(DmaPath path, int64_t bytes) const;
    GmTransferCost gmTransfer(DmaPath path, const Operand& gm) const;
    /// An MGATHER into `dst` from the GM strip `gm`: dst's bytes, moved as one small transfer
    /// per row (the efficiency of a single row of the strip, aligned only when the strip's
    /// start and row pitch are), at the GM -> UB rate (docs/SIMULATOR.md, "Gather DMA").
    GmTransferCost gatherTransfer(const Operand& dst, const Operand& gm) const;
    /// An MSCATTER of `src`'s rows into the GM strip `gm` with atomic add: the same per-row
    /// model at the UB -> GM rate (the add itself is free: an assumption, docs/SIMULATOR.md).
    GmTransferCost scatterTransfer(const Operand& src, const Operand& gm) const;

    double pathRate(DmaPath path) const { return m_pathRate[static_cast<int>(path)]; }
    /// Transfer efficiency of a GM operand (size and alignment).
    double efficiency(const Operand& gm) const;
    /// mem.gm_align: the efficiency depends on a GM address modulo this.
    int64_t gmAlign() const { return m_gmAlign; }
    /// Bytes per cycle of HBM (transfers missing L2, writes) and of L2 (hits).
    double hbmBandwidth() const { return m_hbmBandwidth; }
    double l2Bandwidth() const { return m_l2Bandwidth; }
    int64_t hbmLatency() const { return m_hbmLatency; }
    int64_t l2Latency() const { return m_l2Latency; }
    /// Share of a GM transfer's latency hidden behind the previous transfer's stream.
    double latencyOverlap() const { return m_latencyOverlap; }

private:
    GmTransferCost rowsTransfer(const Operand& tile, const Operand& gm, DmaPath path) const;
    struct OpCost {
        double startup = 0;
        double slope = 0;
    };

    std::array<OpCost, kOpcodeCount> m_cost{};
    std::array<double, kDmaPathCount> m_pathRate{};
    double m_m0, m_k0, m_n0, m_i8KFactor, m_f32Factor;
    double m_bytesPerRepeat, m_maxRepeats;
    double m_onchipLatency;
    int64_t m_hbmLatency, m_l2Latency;
    double m_smallBytes, m_smallFloor, m_misaligned, m_latencyOverlap;
    int64_t m_gmAlign;
    double m_hbmBandwidth, m_l2Bandwidth;
};

} // namespace pto::sim
