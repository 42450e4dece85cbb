// Unit spellings of the arch config and their conversion to bytes, cycles and hertz.
#include "simulator/arch/Units.h"

#include <fmt/format.h>

#include <array>

namespace pto::sim {
namespace {

struct UnitInfo {
    Unit unit;
    std::string_view name;
    UnitKind kind;
    double scale; ///< base units per unit (per-second units: per second; see toBase)
};

// toBase treats the per-second rates and ns/us specially (their scale is per second).
constexpr double kKiB = 1024.0;
constexpr std::array<UnitInfo, 15> kUnits = {{
    {Unit::None, "", UnitKind::Count, 1},
    {Unit::B, "B", UnitKind::Bytes, 1},
    {Unit::KiB, "KiB", UnitKind::Bytes, kKiB},
    {Unit::MiB, "MiB", UnitKind::Bytes, kKiB* kKiB},
    {Unit::GiB, "GiB", UnitKind::Bytes, kKiB* kKiB* kKiB},
    {Unit::BytesPerCycle, "B/cycle", UnitKind::Rate, 1},
    {Unit::MBps, "MB/s", UnitKind::Rate, 1e6},
    {Unit::GBps, "GB/s", UnitKind::Rate, 1e9},
    {Unit::TBps, "TB/s", UnitKind::Rate, 1e12},
    {Unit::Cycles, "cycles", UnitKind::Time, 1},
    {Unit::Ns, "ns", UnitKind::Time, 1e-9},
    {Unit::Us, "us", UnitKind::Time, 1e-6},
    {Unit::Hz, "Hz", UnitKind::Frequency, 1},
    {Unit::MHz, "MHz", UnitKind::Frequency, 1e6},
    {Unit::GHz, "GHz", UnitKind::Frequency, 1e9},
}};

const UnitInfo& info(Unit unit) {
    return kUnits[static_cast<size_t>(unit)];
}

constexpr std::array<Unit, 0> kNoUnits{};
constexpr std::array<Unit, 4> kByteUnits{Unit::B, Unit::KiB, Unit::MiB, Unit::GiB};
constexpr std::array<Unit, 4> kRateUnits{Unit::BytesPerCycle, Unit::MBps, Unit::GBps, Unit::TBps};
constexpr std::array<Unit, 3> kTimeUnits{Unit::Cycles, Unit::Ns, Unit::Us};
constexpr std::array<Unit, 3> kFrequencyUnits{Unit::Hz, Unit::MHz, Unit::GHz};

} // namespace

std::string_view unitKindName(UnitKind kind) {
    constexpr std::string_view kNames[] = {"count", "ratio", "bytes", "rate", "time", "frequency"};
    return kNames[static_cast<int>(kind)];
}

std::string_view unitName(Unit unit) {
    return info(unit).name;
}

UnitKind unitKind(Unit unit) {
    return info(unit).kind;
}

std::optional<Unit> parseUnit(std::string_view text) {
    if (text == "cycle") return Unit::Cycles;
    for (const UnitInfo& u : kUnits)
        if (u.unit != Unit::None && u.name == text) return u.unit;
    return std::nullopt;
}

std::span<const Unit> unitsOf(UnitKind kind) {
    switch (kind) {
    case UnitKind::Bytes:
        return kByteUnits;
    case UnitKind::Rate:
        return kRateUnits;
    case UnitKind::Time:
        return kTimeUnits;
    case UnitKind::Frequency:
        return kFrequencyUnits;
    case UnitKind::Count:
    case UnitKind::Ratio:
        break;
    }
    return kNoUnits;
}

std::string unitList(UnitKind kind) {
    std::string text;
    for (Unit u : unitsOf(kind)) text += (text.empty() ? "" : ", ") + std::string(unitName(u));
    return text.empty() ? "no unit" : text;
}

double toBase(Quantity q, double clockHz) {
    const UnitInfo& u = info(q.unit);
    switch (q.unit) {
    case Unit::MBps:
    case Unit::GBps:
    case Unit::TBps:
        return q.value * u.scale / clockHz; // bytes per second -> bytes per cycle
    case Unit::Ns:
    case Unit::Us:
        return q.value * u.scale * clockHz; // seconds -> cycles
    default:
        return q.value * u.scale;
    }
}

std::string formatQuantity(Quantity q) {
    if (q.unit == Unit::None) return fmt::format("{}", q.value);
    return fmt::format("{} {}", q.value, unitName(q.unit));
}

} // namespace pto::sim
