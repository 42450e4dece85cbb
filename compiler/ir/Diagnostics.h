// Source locations and the error type every compiler stage throws: file:line:col, the
// entity it concerns, and why.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace pto {

struct SourceLoc {
    uint32_t line = 0; // 1-based; 0 = unknown
    uint32_t col = 0;
    bool known() const { return line != 0; }
    friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

// Formats "file:line:col: error: message" (parts that are unknown are left out).
std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message);

// The source line of `loc` in `file` with a caret under its column, as compilers show it:
//   "4 |   %y = rms_norm %x, %w {eps = 1e-06}\n  |        ^\n"
// (a line longer than 120 bytes is cut around the column). Empty when the file or the line
// cannot be read: a program given as text, an unknown place.
std::string sourceExcerpt(const std::string& file, SourceLoc loc);

class CompileError : public std::runtime_error {
public:
    CompileError(std::string file, SourceLoc loc, std::string message)
        : std::runtime_error(formatDiagnostic(file, loc, message)), m_file(std::move(file)),
          m_loc(loc), m_message(std::move(message)) {}

    const std::string& file() const { return m_file; }
    SourceLoc loc() const { return m_loc; }
    // The message without the location prefix.
    const std::string& message() const { return m_message; }

private:
    std::string m_file;
    SourceLoc m_loc;
    std::string m_message;
};

// A program whose tiles do not fit an on-chip memory at some point even single-buffered
// (allocate-buffers). The driver retries it with smaller default tiles (TargetInfo::tileShrink).
class NoFitError : public CompileError {
public:
    using CompileError::CompileError;
};

} // namespace pto
