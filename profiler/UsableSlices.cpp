// The slices the run model uses: the rule as SQL, and the warning about those set aside.
#include "profiler/UsableSlices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

namespace pto::prof {

UsableSlices::UsableSlices(std::int64_t runEnd)
    : m_end(runEnd > 0 ? std::min(runEnd, kLatestEnd) : kLatestEnd), m_recordedEnd(runEnd > 0) {}

std::string UsableSlices::verdict(std::string_view table) const {
    const std::string t = table.empty() ? std::string() : std::string(table) + ".";
    // dur > end - ts is ts + dur > end, without the sum that overflows for a huge dur.
    return fmt::format("(CASE WHEN {0}dur < 0 THEN {1} WHEN {0}ts < 0 OR {0}dur > {2} - {0}ts "
                       "THEN {3} ELSE {4} END)",
                       t, std::int64_t(SliceVerdict::NegativeDuration), m_end,
                       std::int64_t(SliceVerdict::OutsideRun), std::int64_t(SliceVerdict::Usable));
}

std::string UsableSlices::usable(std::string_view table) const {
    return fmt::format("{} = {}", verdict(table), std::int64_t(SliceVerdict::Usable));
}

void UsableSlices::setAside(std::int64_t verdict, std::int64_t slices) {
    if (verdict == std::int64_t(SliceVerdict::NegativeDuration)) m_negative += slices;
    if (verdict == std::int64_t(SliceVerdict::OutsideRun)) m_outside += slices;
}

std::string UsableSlices::warning() const {
    if (setAsideCount() == 0) return {};
    std::vector<std::string> why;
    if (m_negative > 0) why.push_back(fmt::format("{} with a negative duration", m_negative));
    if (m_outside > 0)
        why.push_back(fmt::format(
            "{} starting before cycle 0 or ending after {}", m_outside,
            m_recordedEnd ? fmt::format("the run's end at cycle {} (meta sim_total_cycles)", m_end)
                          : fmt::format("cycle {} (the trace records no end)", m_end)));
    const std::int64_t n = setAsideCount();
    return fmt::format("{} slice{} set aside, no figure counts {}: {}", n, n == 1 ? "" : "s",
                       n == 1 ? "it" : "them", fmt::join(why, "; "));
}

} // namespace pto::prof
