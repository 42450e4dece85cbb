// The hardware description the simulator runs on: one value per row of the parameter table,
// read from a `key = value unit` text file over an embedded 910B-like default.
#pragma once

// The model
// ---------
// An ArchConfig holds, for every parameter of ParamTable (ArchParams.def plus the
// per-instruction cost rows), the value and unit it was given. The default constructor gives
// the embedded default, a 910B-like chip (24 AIC + 48 AIV at 1.8 GHz, 1.6 TB/s HBM; every
// default cites its public source or says "(assumption)"). A config file overrides any subset:
//
//     # my chip
//     name = 910B-fast-hbm
//     hbm.bandwidth = 3.2 TB/s      # comments run to the end of the line
//     clock.freq    = 1850 MHz
//
// Loading checks every line (unknown key with the nearest known one, missing or wrong unit,
// values out of bounds, duplicate keys) and then the parameters together (L0A larger than L1,
// an on-chip buffer over 1 GiB...); errors are ArchError with file:line. dumpArch prints the
// effective config in the same format, with each parameter's help and source as a comment, and
// loads back to an equal ArchConfig. Reads convert to base units (bytes, bytes per cycle,
// cycles, hertz) with the configured clock.

#include "compiler/ir/Target.h"
#include "simulator/arch/ParamTable.h"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pto::sim {

/// A bad config: "file:line: message" (file and line left out when unknown).
class ArchError : public std::runtime_error {
public:
    ArchError(std::string file, int line, std::string message);

    const std::string& file() const { return m_file; }
    int line() const { return m_line; } ///< 1-based; 0 = not from a file line
    const std::string& message() const { return m_message; }

private:
    std::string m_file;
    int m_line;
    std::string m_message;
};

class ArchConfig {
public:
    /// The embedded default (910B-like).
    ArchConfig();

    const std::string& name() const { return m_name; }
    void setName(std::string name) { m_name = std::move(name); }

    const Quantity& value(int index) const { return m_values[index]; }
    const Quantity& value(Param p) const { return m_values[static_cast<int>(p)]; }
    /// Sets one parameter after checking its unit kind and bound (ArchError, no file); the
    /// parameters are not checked against each other (validateArch does that).
    void set(int index, Quantity q);
    void set(Param p, Quantity q) { set(static_cast<int>(p), q); }

    // Reads in base units.
    double clockHz() const;
    double base(int index) const;
    double base(Param p) const { return base(static_cast<int>(p)); }
    int64_t count(Param p) const { return static_cast<int64_t>(base(p)); }
    int64_t bytes(Param p) const { return static_cast<int64_t>(base(p)); }
    double bytesPerCycle(Param p) const { return base(p); }
    double cycles(Param p) const { return base(p); }
    double ratio(Param p) const { return base(p); }
    /// An opcode's startup or slope cost in cycles; 0 when the opcode has no such row.
    double cost(Opcode op, CostPart part) const;

    friend bool operator==(const ArchConfig&, const ArchConfig&) = default;

private:
    std::string m_name = "910B-like";
    std::vector<Quantity> m_values;
};

/// Checks a single value against its parameter's unit kind and bound; returns the problem
/// ("needs a rate unit (B/cycle, MB/s, GB/s, TB/s)") or "" when it is fine.
std::string checkValue(int index, Quantity q);

/// Checks the parameters against each other (and each against its bound); throws ArchError.
void validateArch(const ArchConfig& config);
/// lineOf[index] for a parameter whose value came from elsewhere (the config an override
/// changes): its errors name neither a line nor "(default)".
inline constexpr int kLineNotKnown = -1;
/// As above; errors name `file` and the line each parameter was set on (lineOf[index], 0 when
/// it kept its default, which the error then says).
void validateArch(const ArchConfig& config, const std::string& file,
                  const std::vector<int>& lineOf);

/// The defaults overridden by a config text; `file` names it in errors.
ArchConfig parseArch(std::string_view text, const std::string& file = "<arch>");
/// parseArch of a file's contents; the name defaults to the file's stem.
ArchConfig loadArch(const std::filesystem::path& path);
/// The text of the arch file at `path`; ArchError for a directory or a file that cannot be
/// opened or read, with the reason.
std::string readArchText(const std::filesystem::path& path);
/// parseArch of text read from `path` earlier (pto tune keeps it): named as loadArch names it.
ArchConfig parseArchFile(std::string_view text, const std::filesystem::path& path);
/// The effective config in the file format, every parameter with its help and source.
std::string dumpArch(const ArchConfig& config);

/// The effective config as one JSON object: {"name": "...", "params": {"hbm.bandwidth":
/// "1.6 TB/s", ...}} — every value as the text the file format reads back (trace meta
/// 'arch_config').
std::string archJson(const ArchConfig& config);

/// A what-if change: "hbm.bandwidth=2x" multiplies the value (keeping its unit),
/// "hbm.bandwidth = 3.2 TB/s" sets it. The result is validated; throws ArchError.
void applyOverride(ArchConfig& config, std::string_view assignment);

/// What the compiler needs: core counts, buffer capacities (UB minus its reserved top),
/// alignments.
TargetInfo toTargetInfo(const ArchConfig& config);

} // namespace pto::sim
