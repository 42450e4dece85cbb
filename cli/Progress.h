// The progress bar of long commands on stderr ("simulating  ######......  30%  2.1 s"), drawn
// only when stderr is a terminal.
#pragma once

#include <chrono>
#include <string>

namespace pto::cli {

class ProgressBar {
public:
    explicit ProgressBar(std::string label);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    // Work measured as a fraction: redraws at most ten times a second, and not in the first
    // half second (quick work shows no bar).
    void update(double fraction);
    // Work measured in phases: names the phase now starting and draws at once.
    void phase(std::string label, double fraction);
    void setLabel(std::string label) { m_label = std::move(label); }
    // Clears the line (also done by the destructor).
    void done();

private:
    void draw(double fraction, std::chrono::steady_clock::time_point now);

    std::string m_label;
    bool m_enabled;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_start, m_lastDraw;
};

} // namespace pto::cli
