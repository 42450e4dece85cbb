// Simulated time: a count of core clock cycles as a type of its own, so that cycles never mix
// silently with byte counts, instruction indices or wall-clock time.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace pto::sim {

class Cycles {
public:
    constexpr Cycles() = default;
    constexpr explicit Cycles(int64_t count) : m_count(count) {}

    constexpr int64_t count() const { return m_count; }
    static constexpr Cycles zero() { return Cycles(0); }
    static constexpr Cycles max() { return Cycles(std::numeric_limits<int64_t>::max()); }

    /// This many cycles in seconds at a clock of `clockHz`.
    constexpr double seconds(double clockHz) const {
        return static_cast<double>(m_count) / clockHz;
    }

    constexpr Cycles& operator+=(Cycles o) {
        m_count += o.m_count;
        return *this;
    }
    constexpr Cycles& operator-=(Cycles o) {
        m_count -= o.m_count;
        return *this;
    }
    friend constexpr Cycles operator+(Cycles a, Cycles b) { return Cycles(a.m_count + b.m_count); }
    friend constexpr Cycles operator-(Cycles a, Cycles b) { return Cycles(a.m_count - b.m_count); }
    friend constexpr Cycles operator*(Cycles a, int64_t k) { return Cycles(a.m_count * k); }
    friend constexpr Cycles operator*(int64_t k, Cycles a) { return Cycles(a.m_count * k); }
    friend constexpr Cycles operator/(Cycles a, int64_t k) { return Cycles(a.m_count / k); }
    /// How many times `b` fits in `a` (a plain number).
    friend constexpr int64_t operator/(Cycles a, Cycles b) { return a.m_count / b.m_count; }
    friend constexpr Cycles operator%(Cycles a, Cycles b) { return Cycles(a.m_count % b.m_count); }
    friend constexpr auto operator<=>(Cycles, Cycles) = default;

private:
    int64_t m_count = 0;
};

constexpr Cycles min(Cycles a, Cycles b) {
    return a < b ? a : b;
}
constexpr Cycles max(Cycles a, Cycles b) {
    return a < b ? b : a;
}

/// The most cycles the engine counts (2^61, about 40 years at 1.8 GHz). A duration that does
/// not fit saturates here, so that a time (at most this) plus a duration (at most this) never
/// overflows int64: such a run stops at the safety bound (SimOptions::maxCycles, never above
/// kCyclesCeiling - 1) instead of wrapping around.
inline constexpr int64_t kCyclesCeiling = int64_t(1) << 61;

/// How toCycles rounds.
enum class CycleRounding : uint8_t {
    Up,      ///< durations: a partial cycle counts, less 1e-9 for the error of unit conversions
    Nearest, ///< half away from zero (llround)
    Down,    ///< lower bounds
};

/// The one place where a number of cycles computed in floating point (a cost formula, bytes
/// over a rate, a latency in ns) becomes whole cycles: rounded as asked, and saturated at
/// kCyclesCeiling when it does not fit (+inf and NaN too), never a wrapped-around int64.
/// Negative values give 0.
inline int64_t toCycles(double cycles, CycleRounding rounding = CycleRounding::Up) {
    const double whole = rounding == CycleRounding::Up        ? std::ceil(cycles - 1e-9)
                         : rounding == CycleRounding::Nearest ? std::round(cycles)
                                                              : std::floor(cycles);
    if (!(whole < static_cast<double>(kCyclesCeiling))) return kCyclesCeiling; // NaN too
    return whole > 0 ? static_cast<int64_t>(whole) : 0;
}

/// "1234 cycles"
inline std::string toString(Cycles c) {
    return fmt::format("{} cycles", c.count());
}
inline std::ostream& operator<<(std::ostream& os, Cycles c) {
    return os << toString(c);
}

} // namespace pto::sim

template <> struct fmt::formatter<pto::sim::Cycles> : fmt::formatter<int64_t> {
    auto format(pto::sim::Cycles c, format_context& ctx) const {
        auto out = fmt::formatter<int64_t>::format(c.count(), ctx);
        return fmt::format_to(out, " cycles");
    }
};
