// One word for a POSIX shell: the text in single quotes, each ' written as '\'' (commands that
// pto prints for the user to run, or hands to sbatch).
#pragma once

#include <string>
#include <string_view>

namespace pto {

inline std::string shellQuote(std::string_view text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace pto
