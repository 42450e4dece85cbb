// Units of the arch config: the kinds of quantity a parameter holds, the unit spellings of
// the config file, and conversion of a (value, unit) pair to the simulator's base units.
#pragma once

// A parameter keeps the value and unit it was written with (so a dump prints "1.6 TB/s" back,
// not 888.888… B/cycle); conversions to base units happen when the simulator reads it. Base
// units: bytes, bytes per cycle, cycles, hertz. Rates and times given per second need the
// clock, so their conversions take the clock frequency in Hz. Decimal prefixes for rates and
// frequencies (1 GB/s = 1e9 B/s, as bandwidth figures are quoted), binary ones for sizes
// (1 KiB = 1024 B, as buffer capacities are).

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pto::sim {

enum class UnitKind : unsigned char {
    Count,     ///< a whole number, no unit
    Ratio,     ///< a dimensionless real number, no unit
    Bytes,     ///< B, KiB, MiB, GiB
    Rate,      ///< B/cycle, MB/s, GB/s, TB/s
    Time,      ///< cycles, ns, us
    Frequency, ///< Hz, MHz, GHz
};

enum class Unit : unsigned char {
    None,
    B,
    KiB,
    MiB,
    GiB,
    BytesPerCycle,
    MBps,
    GBps,
    TBps,
    Cycles,
    Ns,
    Us,
    Hz,
    MHz,
    GHz,
};

/// A number with the unit it was written in.
struct Quantity {
    double value = 0;
    Unit unit = Unit::None;
    friend bool operator==(const Quantity&, const Quantity&) = default;
};

std::string_view unitKindName(UnitKind kind);
/// The spelling of a unit in the config file ("" for Unit::None).
std::string_view unitName(Unit unit);
UnitKind unitKind(Unit unit);
/// Parses a unit spelling (exact, case-sensitive; "cycle" and "cycles" both work).
std::optional<Unit> parseUnit(std::string_view text);
/// The units of a kind, in the order they are listed in messages.
std::span<const Unit> unitsOf(UnitKind kind);
/// "B, KiB, MiB, GiB" — the spellings accepted for a kind.
std::string unitList(UnitKind kind);

/// `q` in the base unit of its kind: bytes, bytes per cycle, cycles, hertz; Count and Ratio
/// values are returned as they are. `clockHz` is used by per-second rates and by ns/us.
double toBase(Quantity q, double clockHz);

/// "1.6 TB/s", "24", "0.7": the shortest text that reads back to exactly the same double.
std::string formatQuantity(Quantity q);

} // namespace pto::sim
