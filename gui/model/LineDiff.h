// A line diff (Myers' O((N+M)·D) algorithm) between two texts, bounded for big texts.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace pto::gui {

/// Which lines of each side are not part of the common subsequence.
struct LineDiff {
    std::vector<bool> removed; ///< per line of the old text: not in the new one
    std::vector<bool> added;   ///< per line of the new text: not in the old one
    /// True when the edit count exceeded the bound: the middle (after the common prefix and
    /// suffix) is then marked changed whole instead of line by line.
    bool approximate = false;
    std::size_t addedCount() const;
    std::size_t removedCount() const;
};

/// Splits on '\n' (a trailing newline adds no empty line).
std::vector<std::string_view> splitLines(std::string_view text);

/// The shortest edit script between `before` and `after`, found by Myers' greedy algorithm
/// after stripping the common prefix and suffix; gives up (approximate) beyond `maxEdits`
/// edits so a pass that rewrote everything costs O((N+M)·maxEdits) at most.
LineDiff diffLines(const std::vector<std::string_view>& before,
                   const std::vector<std::string_view>& after, std::size_t maxEdits = 2000);

} // namespace pto::gui
