// Busy time of every (core, pipe) in windows of the run, for the trace's "busy %" counter
// tracks: the window doubles whenever the run outgrows kMaxWindows, so memory stays bounded
// and a short run still gets a fine resolution.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pto::sim {

class PipeUtilization {
public:
    static constexpr int64_t kFirstWindow = 64; ///< cycles
    static constexpr std::size_t kMaxWindows = 512;

    explicit PipeUtilization(std::size_t slots) : m_busy(slots) {}

    /// `slot` was busy in [start, end).
    void add(std::size_t slot, int64_t start, int64_t end);
    int64_t window() const { return m_window; }
    bool busy(std::size_t slot) const { return !m_busy[slot].empty(); }
    /// (window start, busy fraction in [0, 1]) for every window up to `totalCycles`; the last
    /// window is measured over its part inside the run.
    std::vector<std::pair<int64_t, double>> series(std::size_t slot, int64_t totalCycles) const;

private:
    void grow(int64_t end);

    std::vector<std::vector<int64_t>> m_busy; ///< per slot, busy cycles per window
    int64_t m_window = kFirstWindow;
};

} // namespace pto::sim
