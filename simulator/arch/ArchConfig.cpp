// ArchConfig values: defaults, checked setters, base-unit reads, validation of the parameters
// against each other, and the TargetInfo the compiler plans with.
#include "simulator/arch/ArchConfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMaxOnChipBytes = kGiB; // no on-chip buffer of this class is anywhere near
// Any size or alignment: 1 PiB, far above any device memory, and far below 2^63 bytes, where
// the simulator's byte counts would wrap (hbm.size = 9000000000 GiB ran as a negative size).
constexpr double kMaxBytes = kGiB * 1024.0 * 1024.0;
constexpr double kMinClockHz = 1e6, kMaxClockHz = 100e9; // no NPU clock is near either end
constexpr const char* kClockRange = " (a clock runs at 1 MHz to 100 GHz)";
constexpr double kMaxCores = 4096;
constexpr double kMaxFractal = 1024;

std::string keyOf(Param p) {
    return ParamTable::get().spec(p).key;
}

std::string shown(const ArchConfig& config, Param p) {
    return keyOf(p) + " = " + formatQuantity(config.value(p));
}

bool isPowerOfTwo(double v) {
    const auto n = static_cast<int64_t>(v);
    return v == static_cast<double>(n) && n > 0 && (n & (n - 1)) == 0;
}

std::string boundProblem(const ParamSpec& spec, double v) {
    bool ok = true;
    switch (spec.bound) {
    case ParamBound::Positive:
        ok = v > 0;
        break;
    case ParamBound::NonNegative:
        ok = v >= 0;
        break;
    case ParamBound::Fraction:
        ok = v > 0 && v <= 1;
        break;
    case ParamBound::UnitInterval:
        ok = v >= 0 && v <= 1;
        break;
    }
    if (ok) return {};
    return fmt::format("must be {}", paramBoundText(spec.bound));
}

// One cross-parameter check: the parameter blamed (its line is reported) and the problem.
struct Problem {
    Param param;
    std::string message;
};

void checkBuffers(const ArchConfig& c, std::vector<Problem>& out) {
    // First: the sizes below are checked against the alignment, which must be sane to blame.
    for (Param p : {Param::BufferAlign, Param::GmAlign, Param::L2LineSize})
        if (!isPowerOfTwo(c.base(p)))
            out.push_back({p, shown(c, p) + " must be a power of two bytes"});
    if (!out.empty()) return;
    const Param onChip[] = {Param::L1Size, Param::L0aSize, Param::L0bSize, Param::L0cSize,
                            Param::UbSize};
    for (Param p : onChip) {
        if (c.base(p) > kMaxOnChipBytes)
            out.push_back({p, shown(c, p) + " is impossible for an on-chip buffer (max 1 GiB)"});
        else if (std::fmod(c.base(p), c.base(Param::BufferAlign)) != 0)
            out.push_back(
                {p, shown(c, p) + " is not a multiple of " + shown(c, Param::BufferAlign)});
    }
    for (Param p : {Param::L0aSize, Param::L0bSize})
        if (c.base(p) > c.base(Param::L1Size))
            out.push_back({p, fmt::format("{} is larger than {} (L0A/L0B are filled from L1)",
                                          shown(c, p), shown(c, Param::L1Size))});
    if (c.base(Param::UbReserved) >= c.base(Param::UbSize))
        out.push_back(
            {Param::UbReserved, fmt::format("{} leaves nothing of {}", shown(c, Param::UbReserved),
                                            shown(c, Param::UbSize))});
}

void checkLimits(const ArchConfig& c, std::vector<Problem>& out) {
    if (c.clockHz() > kMaxClockHz)
        out.push_back(
            {Param::ClockFreq, shown(c, Param::ClockFreq) + " is above 100 GHz" + kClockRange});
    else if (c.clockHz() < kMinClockHz)
        out.push_back(
            {Param::ClockFreq, shown(c, Param::ClockFreq) + " is below 1 MHz" + kClockRange});
    for (Param p : {Param::AicCount, Param::AivCount})
        if (c.base(p) > kMaxCores)
            out.push_back({p, shown(c, p) + fmt::format(" is above {} cores", kMaxCores)});
    for (Param p : {Param::CubeM0, Param::CubeK0, Param::CubeN0})
        if (c.base(p) > kMaxFractal)
            out.push_back({p, shown(c, p) + fmt::format(" is above {}", kMaxFractal)});
    if (c.base(Param::L2Size) > c.base(Param::HbmSize))
        out.push_back({Param::L2Size, fmt::format("{} is larger than {}", shown(c, Param::L2Size),
                                                  shown(c, Param::HbmSize))});
    if (c.base(Param::L2LineSize) > c.base(Param::L2Size))
        out.push_back(
            {Param::L2LineSize, fmt::format("{} is larger than {}", shown(c, Param::L2LineSize),
                                            shown(c, Param::L2Size))});
    for (int i = 0; i < ParamTable::get().size(); ++i) {
        const ParamSpec& spec = ParamTable::get().spec(i);
        if (spec.kind != UnitKind::Bytes) continue;
        const std::string shownValue = spec.key + " = " + formatQuantity(c.value(i));
        if (c.base(i) > kMaxBytes)
            out.push_back({static_cast<Param>(i), shownValue + " is above 1 PiB (1048576 GiB)"});
        else if (std::floor(c.base(i)) != c.base(i))
            out.push_back({static_cast<Param>(i), shownValue + " is not a whole number of bytes"});
    }
}

} // namespace

ArchError::ArchError(std::string file, int line, std::string message)
    : std::runtime_error(file.empty() ? message
                         : line > 0   ? fmt::format("{}:{}: {}", file, line, message)
                                      : fmt::format("{}: {}", file, message)),
      m_file(std::move(file)), m_line(line), m_message(std::move(message)) {}

ArchConfig::ArchConfig() {
    const ParamTable& table = ParamTable::get();
    m_values.reserve(table.size());
    for (const ParamSpec& spec : table.specs()) m_values.push_back(spec.defaultValue);
}

void ArchConfig::set(int index, Quantity q) {
    if (std::string problem = checkValue(index, q); !problem.empty())
        throw ArchError({}, 0, ParamTable::get().spec(index).key + ": " + problem);
    m_values[index] = q;
}

double ArchConfig::clockHz() const {
    return toBase(m_values[static_cast<int>(Param::ClockFreq)], 1.0);
}

double ArchConfig::base(int index) const {
    return toBase(m_values[index], clockHz());
}

double ArchConfig::cost(Opcode op, CostPart part) const {
    const std::optional<int> row = ParamTable::get().costIndex(op, part);
    return row ? base(*row) : 0.0;
}

std::string checkValue(int index, Quantity q) {
    const ParamSpec& spec = ParamTable::get().spec(index);
    const bool unitless = spec.kind == UnitKind::Count || spec.kind == UnitKind::Ratio;
    if (!std::isfinite(q.value)) return "must be a finite number";
    if (unitless && q.unit != Unit::None)
        return fmt::format("takes no unit (it is a {}), not '{}'", unitKindName(spec.kind),
                           unitName(q.unit));
    if (!unitless && q.unit == Unit::None)
        return fmt::format("needs a {} unit ({})", unitKindName(spec.kind), unitList(spec.kind));
    if (!unitless && unitKind(q.unit) != spec.kind)
        return fmt::format("takes a {} ({}), not '{}' (a {})", unitKindName(spec.kind),
                           unitList(spec.kind), unitName(q.unit), unitKindName(unitKind(q.unit)));
    if (spec.kind == UnitKind::Count && std::floor(q.value) != q.value)
        return fmt::format("must be a whole number, not {}", q.value);
    return boundProblem(spec, q.value);
}

// Bounds first (so later checks can divide), then the parameters against each other. The
// line of the blamed parameter comes from `lineOf` (0 when it kept its default).
void validateArch(const ArchConfig& config, const std::string& file,
                  const std::vector<int>& lineOf) {
    const ParamTable& table = ParamTable::get();
    auto fail = [&](int index, const std::string& message) {
        const int line = index < static_cast<int>(lineOf.size()) ? lineOf[index] : 0;
        const bool isDefault = line == 0 && !file.empty();
        throw ArchError(file, std::max(line, 0), isDefault ? message + " (default)" : message);
    };
    for (int i = 0; i < table.size(); ++i)
        if (std::string problem = checkValue(i, config.value(i)); !problem.empty())
            fail(i, table.spec(i).key + " = " + formatQuantity(config.value(i)) + ": " + problem);
    std::vector<Problem> problems;
    checkBuffers(config, problems);
    checkLimits(config, problems);
    if (!problems.empty()) fail(static_cast<int>(problems.front().param), problems.front().message);
}

void validateArch(const ArchConfig& config) {
    validateArch(config, {}, {});
}

TargetInfo toTargetInfo(const ArchConfig& config) {
    TargetInfo t;
    t.name = config.name();
    t.aicCores = static_cast<int>(config.count(Param::AicCount));
    t.aivCores = static_cast<int>(config.count(Param::AivCount));
    t.l1Bytes = config.bytes(Param::L1Size);
    t.l0aBytes = config.bytes(Param::L0aSize);
    t.l0bBytes = config.bytes(Param::L0bSize);
    t.l0cBytes = config.bytes(Param::L0cSize);
    t.ubBytes = config.bytes(Param::UbSize) - config.bytes(Param::UbReserved);
    t.bufferAlign = config.bytes(Param::BufferAlign);
    t.gmAlign = config.bytes(Param::GmAlign);
    return t;
}

} // namespace pto::sim
