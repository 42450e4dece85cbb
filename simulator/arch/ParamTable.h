// The table of every arch parameter: key, unit kind, default, bounds, help text and the public
// source of the default. One table drives parsing, validation, dumping and documentation.
#pragma once

// Two groups of rows:
//  - the fixed parameters of ArchParams.def (cores, clock, buffers, memory system, DMA, cube,
//    vector, scheduler), addressed by the enum Param;
//  - per-instruction costs generated from the opcode table (compiler/ir/Opcodes.def):
//    "cost.<mnemonic>.startup" for every compute and sync opcode and "cost.<mnemonic>.slope"
//    for compute opcodes (cube: cycles per fractal; vector: cycles per repeat). Data movement
//    opcodes have no cost rows: their time comes from the dma.* rates and memory latencies.
// Row i of the table is value i of an ArchConfig.

#include "compiler/ir/Pto.h"
#include "simulator/arch/Units.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pto::sim {

enum class Param : int {
#define PTO_ARCH_PARAM(id, key, kind, value, unit, bound, help, source) id,
#include "simulator/arch/ArchParams.def"
#undef PTO_ARCH_PARAM
    FixedCount
};
inline constexpr int kFixedParamCount = static_cast<int>(Param::FixedCount);

enum class ParamBound : unsigned char {
    Positive,     ///< > 0
    NonNegative,  ///< >= 0
    Fraction,     ///< in (0, 1]
    UnitInterval, ///< in [0, 1]
};

/// What an instruction's cost row describes (ParamTable::costIndex).
enum class CostPart : unsigned char { Startup, Slope };

struct ParamSpec {
    std::string key;
    UnitKind kind = UnitKind::Count;
    Quantity defaultValue;
    ParamBound bound = ParamBound::Positive;
    std::string help;
    std::string source; ///< public source of the default, or "(assumption)"
};

class ParamTable {
public:
    /// The one table (built on first use, immutable afterwards).
    static const ParamTable& get();

    int size() const { return static_cast<int>(m_specs.size()); }
    const ParamSpec& spec(int index) const { return m_specs[index]; }
    const ParamSpec& spec(Param p) const { return m_specs[static_cast<int>(p)]; }
    std::span<const ParamSpec> specs() const { return m_specs; }

    /// The row of `key`, or nullopt.
    std::optional<int> find(std::string_view key) const;
    /// The known key closest to `key` by edit distance ("" when nothing is close).
    std::string nearestKey(std::string_view key) const;
    /// The row of an opcode's startup or slope cost, or nullopt when it has none.
    std::optional<int> costIndex(Opcode op, CostPart part) const;

private:
    ParamTable();

    std::vector<ParamSpec> m_specs;
    std::vector<int> m_costRows; // 2 per opcode: startup, slope; -1 = none
};

std::string_view paramBoundText(ParamBound bound);

} // namespace pto::sim
