// Simulated time: a count of core clock cycles as a type of its own, so that cycles never mix
// silently with byte counts, instruction indices or wall-clock time.
#pragma once

#include <fmt/format.h>

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
