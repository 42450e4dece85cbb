// Progress line drawing: "[2/3] ######......  simulating  1.2 s" on a terminal, nothing otherwise.
#include "cli/Progress.h"

#include <fmt/format.h>

#include <cstdio>
#include <unistd.h>

namespace pto::cli {

Progress::Progress(int steps)
    : m_enabled(isatty(STDERR_FILENO) != 0), m_steps(steps),
      m_start(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
    done();
}

void Progress::step(const std::string& phase) {
    ++m_current;
    if (!m_enabled) return;
    constexpr int kWidth = 20;
    int filled = m_steps ? kWidth * (m_current - 1) / m_steps : 0;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    fmt::print(stderr, "\r[{}/{}] {}{}  {:<12} {:.1f} s\x1b[K", m_current, m_steps,
               std::string(size_t(filled), '#'), std::string(size_t(kWidth - filled), '.'), phase,
               secs);
    std::fflush(stderr);
}

void Progress::done() {
    if (!m_enabled || m_current == 0) return;
    fmt::print(stderr, "\r\x1b[K");
    std::fflush(stderr);
    m_current = 0;
}

} // namespace pto::cli
