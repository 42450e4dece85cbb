// A progress bar for work measured as a fraction ("exporting  ####....  45%  2.1 s") on
// stderr, drawn only when stderr is a terminal and the work has taken more than a moment.
#pragma once

#include <chrono>
#include <string>

namespace pto::cli {

class FractionBar {
public:
    explicit FractionBar(std::string label);
    ~FractionBar();
    FractionBar(const FractionBar&) = delete;
    FractionBar& operator=(const FractionBar&) = delete;

    /// Redraws at most ten times a second, and not in the first half second.
    void update(double fraction);
    void setLabel(std::string label) { m_label = std::move(label); }
    /// Clears the line (also done by the destructor).
    void done();

private:
    std::string m_label;
    bool m_enabled;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_start, m_lastDraw;
};

} // namespace pto::cli
