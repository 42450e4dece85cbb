// A progress line on stderr for long commands, drawn only when stderr is a terminal.
#pragma once

#include <chrono>
#include <string>

namespace pto::cli {

class Progress {
public:
    // `steps` is the number of phases the command goes through.
    explicit Progress(int steps);
    ~Progress();
    // Enters the next phase ("compiling", "simulating", …) and redraws the line.
    void step(const std::string& phase);
    // Clears the line (called by the destructor too).
    void done();

private:
    bool m_enabled;
    int m_steps;
    int m_current = 0;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace pto::cli
