// Step function of concurrently running tasks.
#include "profiler/Timeline.h"

#include <algorithm>

namespace pto::prof {

ConcurrencyProfile::ConcurrencyProfile(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& intervals) {
    std::vector<std::pair<std::int64_t, int>> events;
    events.reserve(intervals.size() * 2);
    for (auto [a, b] : intervals) {
        if (b <= a) continue;
        events.emplace_back(a, +1);
        events.emplace_back(b, -1);
    }
    std::sort(events.begin(), events.end());
    int count = 0;
    for (std::size_t i = 0; i < events.size();) {
        std::int64_t t = events[i].first;
        for (; i < events.size() && events[i].first == t; ++i) count += events[i].second;
        m_times.push_back(t);
        m_counts.push_back(count);
    }
    m_prefix.resize(m_times.size(), 0.0);
    for (std::size_t i = 1; i < m_times.size(); ++i)
        m_prefix[i] =
            m_prefix[i - 1] + double(m_counts[i - 1]) * double(m_times[i] - m_times[i - 1]);
}

int ConcurrencyProfile::countAt(std::int64_t t) const {
    auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    if (it == m_times.begin()) return 0;
    return m_counts[std::size_t(it - m_times.begin() - 1)];
}

double ConcurrencyProfile::integralTo(std::int64_t t) const {
    auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    if (it == m_times.begin()) return 0;
    std::size_t i = std::size_t(it - m_times.begin() - 1);
    return m_prefix[i] + double(m_counts[i]) * double(t - m_times[i]);
}

double ConcurrencyProfile::integral(std::int64_t a, std::int64_t b) const {
    return b > a ? integralTo(b) - integralTo(a) : 0.0;
}

double ConcurrencyProfile::average(std::int64_t a, std::int64_t b) const {
    return b > a ? integral(a, b) / double(b - a) : 0.0;
}

std::int64_t ConcurrencyProfile::lastTimeAtLeast(int threshold) const {
    for (std::size_t i = m_times.size(); i-- > 0;)
        if (m_counts[i] >= threshold) return i + 1 < m_times.size() ? m_times[i + 1] : m_times[i];
    return -1;
}

} // namespace pto::prof
