// The arch parameter table: the fixed rows of ArchParams.def plus one or two cost rows per
// compute and sync opcode, with their defaults and sources.
#include "simulator/arch/ParamTable.h"

#include "simulator/arch/OpcodeClass.h"

#include <algorithm>
#include <cctype>

namespace pto::sim {
namespace {

struct CostDefault {
    Opcode op;
    double startup; ///< cycles
    double slope;   ///< cycles per fractal (cube) or per repeat (vector); unused for sync
    std::string_view source;
};

// REFERENCE.md section 1: cube 6 + fractals; vadd 6 + 2/repeat, vmul 7 + 2, scalar-operand
// ops 5 + 1, vexp/vln/vsqrt 12-14 + 4, vdiv 13 + 8, vcadd 23 + 7, vcmax 9 + 7, cast 14 + 2,
// set/wait flag 1 cycle. Opcodes without a published figure borrow the closest one.
constexpr CostDefault kCostDefaults[] = {
    {Opcode::TMatmul, 6, 1, "pto-isa cost model (6 + ceil(m/16)ceil(k/16)ceil(n/16))"},
    {Opcode::TMatmulAcc, 6, 1, "pto-isa cost model (as TMATMUL)"},
    {Opcode::TAdd, 6, 2, "pto-isa cost model (vadd)"},
    {Opcode::TSub, 6, 2, "pto-isa cost model (as vadd)"},
    {Opcode::TMul, 7, 2, "pto-isa cost model (vmul)"},
    {Opcode::TDiv, 13, 8, "pto-isa cost model (vdiv)"},
    {Opcode::TMax, 6, 2, "(assumption: as vadd)"},
    {Opcode::TMin, 6, 2, "(assumption: as vadd)"},
    {Opcode::TExp, 14, 4, "pto-isa cost model (vexp, f16)"},
    {Opcode::TLog, 14, 4, "pto-isa cost model (vln, f16)"},
    {Opcode::TSqrt, 12, 4, "pto-isa cost model (vsqrt, f16)"},
    {Opcode::TRsqrt, 14, 4, "(assumption: as vexp)"},
    {Opcode::TRecip, 13, 8, "(assumption: as vdiv)"},
    {Opcode::TAbs, 5, 1, "(assumption: as a scalar-operand op)"},
    {Opcode::TNeg, 5, 1, "(assumption: as a scalar-operand op)"},
    {Opcode::TRelu, 5, 1, "(assumption: as a scalar-operand op)"},
    {Opcode::TCvt, 14, 2, "pto-isa cost model (cast)"},
    {Opcode::TCmp, 6, 2, "(assumption: as vadd)"},
    {Opcode::TSel, 6, 2, "(assumption: as vadd)"},
    {Opcode::TAddS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TSubS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TMulS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TDivS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TMaxS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TMinS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TCmpS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TExpandS, 5, 1, "pto-isa cost model (scalar-operand ops)"},
    {Opcode::TRowSum, 23, 7, "pto-isa cost model (vcadd row reduce)"},
    {Opcode::TRowMax, 9, 7, "pto-isa cost model (vcmax)"},
    {Opcode::TRowMin, 9, 7, "(assumption: as vcmax)"},
    {Opcode::TColSum, 6, 2, "(assumption: elementwise adds across rows, as vadd)"},
    {Opcode::TColMax, 6, 2, "(assumption: elementwise max across rows, as vadd)"},
    {Opcode::TColMin, 6, 2, "(assumption: elementwise min across rows, as vadd)"},
    {Opcode::TRowExpand, 5, 1, "(assumption: a broadcast copy, as a scalar-operand op)"},
    {Opcode::TRowExpandAdd, 6, 2, "(assumption: as vadd)"},
    {Opcode::TRowExpandSub, 6, 2, "(assumption: as vadd)"},
    {Opcode::TRowExpandMul, 7, 2, "(assumption: as vmul)"},
    {Opcode::TRowExpandDiv, 13, 8, "(assumption: as vdiv)"},
    {Opcode::TRowExpandMax, 6, 2, "(assumption: as vadd)"},
    {Opcode::TTrans, 12, 4, "(assumption)"},
    {Opcode::TCumSum, 6, 2,
     "(assumption: as vadd per pass; rows: ceil(log2 n) passes, cols: one vadd per row)"},
    {Opcode::TTopK, 9, 7,
     "(assumption: per repeat and sort pass as vcmax; passes = TSORT32 + 4-way TMRGSORT merges)"},
    {Opcode::SetFlag, 1, 0, "pto-isa cost model (1 cycle plus the wait)"},
    {Opcode::WaitFlag, 1, 0, "pto-isa cost model (1 cycle plus the wait)"},
    {Opcode::Barrier, 1, 0, "(assumption: 1 cycle plus the wait)"},
    {Opcode::CrossSetFlag, 1, 0,
     "(assumption: as SET_FLAG, 1 cycle; the signal's travel is "
     "sync.cross_core_latency)"},
    {Opcode::CrossWaitFlag, 1, 0, "(assumption: as WAIT_FLAG, 1 cycle plus the wait)"},
};

ParamSpec fixedSpec(const char* key, UnitKind kind, double value, Unit unit, ParamBound bound,
                    const char* help, const char* source) {
    return ParamSpec{key, kind, Quantity{value, unit}, bound, help, source};
}

std::string lowerMnemonic(Opcode op) {
    std::string text(opcodeName(op));
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

const CostDefault* costDefault(Opcode op) {
    for (const CostDefault& c : kCostDefaults)
        if (c.op == op) return &c;
    return nullptr;
}

// Levenshtein distance, O(|a|·|b|) with one row.
size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

const ParamTable& ParamTable::get() {
    static const ParamTable kTable;
    return kTable;
}

ParamTable::ParamTable() : m_costRows(2 * kOpcodeCount, -1) {
#define PTO_ARCH_PARAM(id, key, kind, value, unit, bound, help, source)                            \
    m_specs.push_back(                                                                             \
        fixedSpec(key, UnitKind::kind, value, Unit::unit, ParamBound::bound, help, source));
#include "simulator/arch/ArchParams.def"
#undef PTO_ARCH_PARAM
    for (int i = 0; i < kOpcodeCount; ++i) {
        const Opcode op = static_cast<Opcode>(i);
        const CostDefault* cost = costDefault(op);
        if (!cost) continue;
        const std::string prefix = "cost." + lowerMnemonic(op);
        const bool sync = opcodeClass(op) == OpcodeClass::Sync;
        const std::string unitOfWork = opcodeClass(op) == OpcodeClass::Cube ? "fractal" : "repeat";
        m_costRows[2 * i] = size();
        m_specs.push_back(ParamSpec{prefix + ".startup", UnitKind::Time,
                                    Quantity{cost->startup, Unit::Cycles}, ParamBound::NonNegative,
                                    std::string(opcodeName(op)) + " fixed cost per instruction",
                                    std::string(cost->source)});
        if (sync) continue;
        m_costRows[2 * i + 1] = size();
        m_specs.push_back(ParamSpec{prefix + ".slope", UnitKind::Time,
                                    Quantity{cost->slope, Unit::Cycles}, ParamBound::NonNegative,
                                    std::string(opcodeName(op)) + " cycles per " + unitOfWork,
                                    std::string(cost->source)});
    }
}

std::optional<int> ParamTable::find(std::string_view key) const {
    for (int i = 0; i < size(); ++i)
        if (m_specs[i].key == key) return i;
    return std::nullopt;
}

std::string ParamTable::nearestKey(std::string_view key) const {
    std::string best;
    size_t bestDistance = std::max<size_t>(3, key.size() / 3) + 1;
    for (const ParamSpec& s : m_specs) {
        const size_t d = editDistance(key, s.key);
        if (d < bestDistance) {
            bestDistance = d;
            best = s.key;
        }
    }
    return best;
}

std::optional<int> ParamTable::costIndex(Opcode op, CostPart part) const {
    const int row = m_costRows[2 * static_cast<int>(op) + static_cast<int>(part)];
    if (row < 0) return std::nullopt;
    return row;
}

std::string_view paramBoundText(ParamBound bound) {
    constexpr std::string_view kTexts[] = {"> 0", ">= 0", "in (0, 1]", "in [0, 1]"};
    return kTexts[static_cast<int>(bound)];
}

} // namespace pto::sim
