// Progress bar drawing on a terminal's stderr.
#include "cli/Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace pto::cli {

ProgressBar::ProgressBar(std::string label)
    : m_label(std::move(label)), m_enabled(isatty(STDERR_FILENO) != 0),
      m_start(std::chrono::steady_clock::now()), m_lastDraw(m_start) {}

ProgressBar::~ProgressBar() {
    done();
}

void ProgressBar::update(double fraction) {
    if (!m_enabled) return;
    auto now = std::chrono::steady_clock::now();
    using namespace std::chrono_literals;
    if (now - m_start < 500ms || (m_drawn && now - m_lastDraw < 100ms)) return;
    draw(fraction, now);
}

void ProgressBar::phase(std::string label, double fraction) {
    m_label = std::move(label);
    if (m_enabled) draw(fraction, std::chrono::steady_clock::now());
}

void ProgressBar::draw(double fraction, std::chrono::steady_clock::time_point now) {
    m_lastDraw = now;
    m_drawn = true;
    constexpr int kWidth = 20;
    fraction = std::clamp(fraction, 0.0, 1.0);
    int filled = int(kWidth * fraction);
    double secs = std::chrono::duration<double>(now - m_start).count();
    fmt::print(stderr, "\r{:<12} {}{} {:>3.0f}%  {:.1f} s\x1b[K", m_label,
               std::string(std::size_t(filled), '#'),
               std::string(std::size_t(kWidth - filled), '.'), 100 * fraction, secs);
    std::fflush(stderr);
}

void ProgressBar::done() {
    if (!m_drawn) return;
    fmt::print(stderr, "\r\x1b[K");
    std::fflush(stderr);
    m_drawn = false;
}

} // namespace pto::cli
