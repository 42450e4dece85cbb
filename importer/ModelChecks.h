// Checks of what pto import read, before it is written: rows repeated exactly (dropped once
// counted), times far outside the run (a row in seconds, a zero or negative start) and text
// that is not UTF-8 — each counted in `stats` with the first place and value (docs/IMPORT.md).
#pragma once

#include "importer/ImportModel.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pto::importer {

/// Remembers the rows of one file and tells those identical to an earlier one.
class DuplicateRows {
public:
    /// `file` names the stat; `unit` is how a place is named ("line", "event", "TASK rowid");
    /// `row` what a repeated one is called ("a row", "an event", "a TASK row").
    DuplicateRows(std::string file, std::string unit, std::string row);
    /// Whether a row with the same cells (or event with the same text) came before.
    bool seen(const std::vector<std::string>& cells, std::int64_t at);
    bool seen(std::string_view text, std::int64_t at);
    /// Counts the repeated rows as import_duplicate_dropped (data_loss), naming the first.
    void countIn(ImportModel& model) const;

private:
    std::string m_file, m_unit, m_row;
    std::unordered_map<std::size_t, std::int64_t> m_firstAt; ///< hash of the row → its place
    std::int64_t m_repeats = 0;
    std::string m_first;
};

/// How far from the input's median start a kernel, slice or sample may start or end: a day.
inline constexpr std::int64_t kMaxNanosFromMedian = 86'400'000'000'000;

/// Drops kernels, slices and counter samples that start or end more than a day from the
/// median start of everything read, counting them (import_row_skipped) by file, with the first
/// place and value. Such a time is a unit or typing error, and it would move the trace's origin
/// so far that the report sets every other slice aside.
void dropTimesOutsideTheRun(ImportModel& model);

/// Replaces bytes that are not UTF-8 in names, args, lanes and meta by U+FFFD, counting the
/// texts changed (import_invalid_utf8) with the first place.
void replaceInvalidUtf8(ImportModel& model);

} // namespace pto::importer
