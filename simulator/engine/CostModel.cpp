// Instruction durations from the arch config (see CostModel.h for every formula).
#include "simulator/engine/CostModel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::sim {
namespace {

double ceilDiv(double a, double b) {
    return std::ceil(a / b);
}

constexpr Param kPathParam[kDmaPathCount] = {
    Param::DmaGmToUb,  Param::DmaGmToL1,  Param::DmaUbToGm,  Param::DmaL1ToGm, Param::DmaL0cToGm,
    Param::DmaL0cToL1, Param::DmaL1ToL0a, Param::DmaL1ToL0b, Param::DmaUbToUb,
};

std::string_view keyOf(Param p) {
    return ParamTable::get().spec(p).key;
}

} // namespace

Param dmaPathParam(DmaPath path) {
    return kPathParam[static_cast<int>(path)];
}

std::string durationParams(const Instr& instr) {
    const ParamTable& table = ParamTable::get();
    if (opcodeClass(instr.opcode) == OpcodeClass::Dma) {
        const std::optional<DmaPath> path =
            dmaPathOf(instr.operands[1].space, instr.operands[0].space);
        const std::string_view rate = path ? keyOf(dmaPathParam(*path)) : "dma.*.rate";
        if (path && !isGmPath(*path)) return fmt::format("dma.onchip_latency and {}", rate);
        return fmt::format("hbm.latency, l2.latency, hbm.bandwidth, l2.bandwidth and {}", rate);
    }
    std::string keys;
    for (CostPart part : {CostPart::Startup, CostPart::Slope})
        if (const std::optional<int> row = table.costIndex(instr.opcode, part))
            keys += fmt::format("{}{}", keys.empty() ? "" : " and ", table.spec(*row).key);
    if (instr.opcode == Opcode::CrossWaitFlag)
        keys += fmt::format(" and {}", keyOf(Param::SyncCrossCoreLatency));
    return keys;
}

double cumsumPasses(int64_t n) {
    double passes = 1;
    for (int64_t span = 2; span < n; span *= 2) ++passes;
    return passes;
}

double topkPasses(int64_t n) {
    double passes = 1;                                  // TSORT32: sorted runs of 32
    for (int64_t run = 32; run < n; run *= 4) ++passes; // TMRGSORT merges 4 runs per pass
    return passes;
}

std::string_view dmaPathName(DmaPath path) {
    constexpr std::string_view kNames[kDmaPathCount] = {"GM->UB",  "GM->L1",  "UB->GM",
                                                        "L1->GM",  "L0C->GM", "L0C->L1",
                                                        "L1->L0A", "L1->L0B", "UB->UB"};
    return kNames[static_cast<int>(path)];
}

std::optional<DmaPath> dmaPathOf(MemSpace src, MemSpace dst) {
    using M = MemSpace;
    if (src == M::GM && dst == M::UB) return DmaPath::GmToUb;
    if (src == M::GM && dst == M::L1) return DmaPath::GmToL1;
    if (src == M::UB && dst == M::GM) return DmaPath::UbToGm;
    if (src == M::L1 && dst == M::GM) return DmaPath::L1ToGm;
    if (src == M::L0C && dst == M::GM) return DmaPath::L0cToGm;
    if (src == M::L0C && dst == M::L1) return DmaPath::L0cToL1;
    if (src == M::L1 && dst == M::L0A) return DmaPath::L1ToL0a;
    if (src == M::L1 && dst == M::L0B) return DmaPath::L1ToL0b;
    if (src == M::UB && dst == M::UB) return DmaPath::UbToUb;
    return std::nullopt;
}

bool opcodeMovesAlong(Opcode op, DmaPath path) {
    switch (op) {
    case Opcode::TLoad:
        return path == DmaPath::GmToUb || path == DmaPath::GmToL1;
    case Opcode::MGather:
        return path == DmaPath::GmToUb;
    case Opcode::MScatter:
        return path == DmaPath::UbToGm;
    case Opcode::TStore:
        return path == DmaPath::UbToGm || path == DmaPath::L1ToGm || path == DmaPath::L0cToGm;
    case Opcode::TExtract:
        return path == DmaPath::L1ToL0a || path == DmaPath::L1ToL0b;
    case Opcode::TMov:
        return path == DmaPath::L1ToL0a || path == DmaPath::L1ToL0b || path == DmaPath::L0cToL1 ||
               path == DmaPath::UbToUb;
    default:
        return false;
    }
}

CostModel::CostModel(const ArchConfig& arch)
    : m_m0(arch.base(Param::CubeM0)), m_k0(arch.base(Param::CubeK0)),
      m_n0(arch.base(Param::CubeN0)), m_i8KFactor(arch.base(Param::CubeI8KFactor)),
      m_f32Factor(arch.base(Param::CubeF32Factor)),
      m_bytesPerRepeat(arch.base(Param::VectorBytesPerRepeat)),
      m_maxRepeats(arch.base(Param::VectorMaxRepeats)),
      m_onchipLatency(arch.cycles(Param::DmaOnchipLatency)),
      m_smallBytes(arch.base(Param::DmaSmallBytes)), m_smallFloor(arch.ratio(Param::DmaSmallFloor)),
      m_misaligned(arch.ratio(Param::DmaMisaligned)),
      m_latencyOverlap(arch.ratio(Param::DmaLatencyOverlap)),
      m_gmAlign(arch.bytes(Param::GmAlign)) {
    for (int i = 0; i < kOpcodeCount; ++i) {
        const auto op = static_cast<Opcode>(i);
        m_cost[i] = {arch.cost(op, CostPart::Startup), arch.cost(op, CostPart::Slope)};
    }
    for (int p = 0; p < kDmaPathCount; ++p) m_pathRate[p] = arch.bytesPerCycle(kPathParam[p]);
    m_hbmLatency = toCycles(arch.cycles(Param::HbmLatency));
    m_l2Latency = toCycles(arch.cycles(Param::L2Latency));
    m_hbmBandwidth = arch.bytesPerCycle(Param::HbmBandwidth);
    m_l2Bandwidth = arch.bytesPerCycle(Param::L2Bandwidth);
}

int64_t CostModel::cubeCycles(const Instr& instr) const {
    // TMATMUL dst, a, b; TMATMUL_ACC dst, a, b (accumulating into dst) or dst, acc, a, b.
    const Operand& dst = instr.operands[0];
    const Operand& a = instr.operands[instr.operandCount == 4 ? 2 : 1];
    const double m = dst.rows, n = dst.cols;
    const double k = instr.transposeA ? a.rows : a.cols;
    const double k0 = a.dtype == DType::I8 ? m_k0 * m_i8KFactor : m_k0;
    const double factor = a.dtype == DType::F32 ? m_f32Factor : 1.0;
    const double fractals = ceilDiv(m, m_m0) * ceilDiv(k, k0) * ceilDiv(n, m_n0);
    const OpCost& c = m_cost[static_cast<int>(instr.opcode)];
    return toCycles(c.startup + c.slope * fractals * factor);
}

int64_t CostModel::vectorCycles(const Instr& instr) const {
    int64_t bytes = 0;
    for (const Operand& o : instr.ops()) bytes = std::max(bytes, o.bytes());
    double repeats = ceilDiv(static_cast<double>(bytes), m_bytesPerRepeat);
    if (instr.opcode == Opcode::TTopK && instr.operandCount > 1) // sort passes over each row
        repeats *= topkPasses(instr.operands[1].cols);
    double issues = std::max(1.0, ceilDiv(repeats, m_maxRepeats));
    if (instr.opcode == Opcode::TCumSum && instr.operandCount > 1) {
        const Operand& src = instr.operands[1];
        if (instr.mode == "cols") { // one vadd of a row onto the next, row by row
            issues = std::max<double>(1.0, src.rows);
            repeats = issues * ceilDiv(static_cast<double>(src.cols * dtypeSize(src.dtype)),
                                       m_bytesPerRepeat);
        } else { // a log-step scan along each row (Hillis-Steele): one vadd pass per step
            repeats *= cumsumPasses(src.cols);
            issues = std::max(1.0, ceilDiv(repeats, m_maxRepeats));
        }
    }
    const OpCost& c = m_cost[static_cast<int>(instr.opcode)];
    return toCycles(c.startup * issues + c.slope * repeats);
}

int64_t CostModel::syncCycles(Opcode op) const {
    return toCycles(m_cost[static_cast<int>(op)].startup);
}

int64_t CostModel::onchipCycles(DmaPath path, int64_t bytes) const {
    return toCycles(m_onchipLatency + static_cast<double>(bytes) / pathRate(path));
}

double CostModel::efficiency(const Operand& gm) const {
    const double bytes = static_cast<double>(gm.bytes());
    const double size =
        bytes >= m_smallBytes ? 1.0 : m_smallFloor + (1.0 - m_smallFloor) * bytes / m_smallBytes;
    const int64_t pitch = gm.stride * dtypeSize(gm.dtype);
    const bool aligned = gm.addr % m_gmAlign == 0 && (gm.rows <= 1 || pitch % m_gmAlign == 0);
    return size * (aligned ? 1.0 : m_misaligned);
}

GmTransferCost CostModel::gatherTransfer(const Operand& dst, const Operand& gm) const {
    return rowsTransfer(dst, gm, DmaPath::GmToUb);
}

GmTransferCost CostModel::scatterTransfer(const Operand& src, const Operand& gm) const {
    return rowsTransfer(src, gm, DmaPath::UbToGm);
}

GmTransferCost CostModel::rowsTransfer(const Operand& tile, const Operand& gm, DmaPath path) const {
    Operand row = gm;
    row.rows = 1;
    const int64_t pitch = gm.stride * dtypeSize(gm.dtype);
    GmTransferCost t;
    t.bytes = static_cast<double>(tile.bytes());
    t.efficiency =
        efficiency(row) * (pitch % m_gmAlign == 0 || gm.addr % m_gmAlign != 0 ? 1.0 : m_misaligned);
    t.cap = pathRate(path) * t.efficiency;
    t.latency = m_hbmLatency;
    return t;
}

GmTransferCost CostModel::gmTransfer(DmaPath path, const Operand& gm) const {
    GmTransferCost t;
    t.bytes = static_cast<double>(gm.bytes());
    t.efficiency = efficiency(gm);
    t.cap = pathRate(path) * t.efficiency;
    t.latency = m_hbmLatency;
    return t;
}

} // namespace pto::sim
