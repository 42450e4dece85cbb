// Myers' shortest edit script on lines, with the trace of V arrays kept for the backtrack.
#include "gui/model/LineDiff.h"

#include <algorithm>
#include <cstdint>

namespace pto::gui {
namespace {

using Lines = std::vector<std::string_view>;

/// Marks the edits of a[a0, a1) → b[b0, b1); false when they exceed maxEdits.
bool myers(const Lines& a, std::size_t a0, std::size_t a1, const Lines& b, std::size_t b0,
           std::size_t b1, std::size_t maxEdits, LineDiff& out) {
    const auto n = static_cast<std::int64_t>(a1 - a0);
    const auto m = static_cast<std::int64_t>(b1 - b0);
    const std::int64_t maxD = std::min<std::int64_t>(n + m, static_cast<std::int64_t>(maxEdits));
    const std::int64_t offset = maxD + 1;
    std::vector<std::int64_t> v(static_cast<std::size_t>(2 * maxD + 3), 0);
    // trace[d] = V[-d, d] before step d (the furthest points after d - 1 edits): O(D²).
    std::vector<std::vector<std::int64_t>> trace;
    auto at = [&](std::vector<std::int64_t>& arr, std::int64_t k) -> std::int64_t& {
        return arr[static_cast<std::size_t>(k + offset)];
    };
    auto saved = [&](std::int64_t d, std::int64_t k) {
        return trace[static_cast<std::size_t>(d)][static_cast<std::size_t>(k + d)];
    };
    std::int64_t found = -1;
    for (std::int64_t d = 0; d <= maxD && found < 0; ++d) {
        trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
        for (std::int64_t k = -d; k <= d; k += 2) {
            std::int64_t x = (k == -d || (k != d && at(v, k - 1) < at(v, k + 1)))
                                 ? at(v, k + 1)
                                 : at(v, k - 1) + 1;
            std::int64_t y = x - k;
            while (x < n && y < m && a[a0 + x] == b[b0 + y]) ++x, ++y;
            at(v, k) = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0) return false;
    std::int64_t x = n, y = m;
    for (std::int64_t d = found; d > 0; --d) {
        const std::int64_t k = x - y;
        const bool down = k == -d || (k != d && saved(d, k - 1) < saved(d, k + 1));
        const std::int64_t prevK = down ? k + 1 : k - 1;
        const std::int64_t prevX = saved(d, prevK);
        const std::int64_t prevY = prevX - prevK;
        while (x > prevX && y > prevY) --x, --y; // the snake
        if (down)
            out.added[b0 + static_cast<std::size_t>(prevY)] = true;
        else
            out.removed[a0 + static_cast<std::size_t>(prevX)] = true;
        x = prevX;
        y = prevY;
    }
    return true;
}

} // namespace

std::size_t LineDiff::addedCount() const {
    return static_cast<std::size_t>(std::count(added.begin(), added.end(), true));
}

std::size_t LineDiff::removedCount() const {
    return static_cast<std::size_t>(std::count(removed.begin(), removed.end(), true));
}

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

LineDiff diffLines(const Lines& before, const Lines& after, std::size_t maxEdits) {
    LineDiff out;
    out.removed.assign(before.size(), false);
    out.added.assign(after.size(), false);
    std::size_t prefix = 0;
    while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
           before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
        ++suffix;
    const std::size_t a1 = before.size() - suffix, b1 = after.size() - suffix;
    if (!myers(before, prefix, a1, after, prefix, b1, maxEdits, out)) {
        out.approximate = true;
        std::fill(out.removed.begin() + static_cast<std::ptrdiff_t>(prefix),
                  out.removed.begin() + static_cast<std::ptrdiff_t>(a1), true);
        std::fill(out.added.begin() + static_cast<std::ptrdiff_t>(prefix),
                  out.added.begin() + static_cast<std::ptrdiff_t>(b1), true);
    }
    return out;
}

} // namespace pto::gui
