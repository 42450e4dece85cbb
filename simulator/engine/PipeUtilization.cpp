// Adaptive windows of pipe busy time (see PipeUtilization.h).
#include "simulator/engine/PipeUtilization.h"

#include <algorithm>

namespace pto::sim {

void PipeUtilization::grow(int64_t end) {
    while (end > m_window * int64_t(kMaxWindows)) {
        m_window *= 2; // merge neighbouring windows everywhere
        for (std::vector<int64_t>& busy : m_busy) {
            for (std::size_t i = 0; i < busy.size(); ++i)
                busy[i / 2] = (i % 2 == 0 ? 0 : busy[i / 2]) + busy[i];
            busy.resize((busy.size() + 1) / 2);
        }
    }
}

void PipeUtilization::add(std::size_t slot, int64_t start, int64_t end) {
    if (end <= start || slot >= m_busy.size()) return;
    grow(end);
    std::vector<int64_t>& busy = m_busy[slot];
    const auto last = std::size_t((end - 1) / m_window);
    if (busy.size() <= last) busy.resize(last + 1, 0);
    for (auto w = std::size_t(start / m_window); w <= last; ++w) {
        const int64_t from = std::max(start, int64_t(w) * m_window);
        const int64_t to = std::min(end, int64_t(w + 1) * m_window);
        busy[w] += to - from;
    }
}

std::vector<std::pair<int64_t, double>> PipeUtilization::series(std::size_t slot,
                                                                int64_t totalCycles) const {
    std::vector<std::pair<int64_t, double>> out;
    const std::vector<int64_t>& busy = m_busy[slot];
    for (int64_t ts = 0, w = 0; ts < totalCycles; ts += m_window, ++w) {
        const int64_t span = std::min(m_window, totalCycles - ts);
        const int64_t b = std::size_t(w) < busy.size() ? busy[std::size_t(w)] : 0;
        out.emplace_back(ts, std::min(1.0, double(b) / double(span)));
    }
    return out;
}

} // namespace pto::sim
