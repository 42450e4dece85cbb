// How many tasks run at each moment of a run: a step function over task intervals, with its
// integral, so "average concurrency during [a, b)" costs O(log n).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pto::prof {

class ConcurrencyProfile {
public:
    /// Intervals [start, end) (empty ones ignored).
    explicit ConcurrencyProfile(
        const std::vector<std::pair<std::int64_t, std::int64_t>>& intervals);

    /// Number of intervals covering time t.
    int countAt(std::int64_t t) const;
    /// ∫ count over [a, b) — interval-cycles.
    double integral(std::int64_t a, std::int64_t b) const;
    /// integral / (b - a), or 0 for an empty range.
    double average(std::int64_t a, std::int64_t b) const;
    /// The last time at which the count is ≥ threshold (the end of that segment); -1 if never.
    std::int64_t lastTimeAtLeast(int threshold) const;

private:
    double integralTo(std::int64_t t) const; // ∫ count over [-inf, t)

    std::vector<std::int64_t> m_times; // change points, ascending
    std::vector<int> m_counts;         // count from m_times[i] to m_times[i + 1]
    std::vector<double> m_prefix;      // ∫ up to m_times[i]
};

} // namespace pto::prof
