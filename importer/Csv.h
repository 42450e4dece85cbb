// A strict CSV reader (RFC 4180 quoting, quoted fields may hold commas and newlines) that knows
// the line each record starts on, for error messages.
#pragma once

#include "importer/ImportModel.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pto::importer {

class CsvFile {
public:
    /// Reads the whole file; ImportError (with the system's reason) when it cannot be read or
    /// holds a NUL byte.
    explicit CsvFile(const std::filesystem::path& path);

    const std::string& name() const { return m_name; }
    /// The next record into `fields`; false at the end. ImportError on an unterminated quote.
    bool next(std::vector<std::string>& fields);
    /// The 1-based line the last record returned by next() started on.
    std::size_t line() const { return m_recordLine; }
    /// Whether the text ends inside a line (no newline after its last record).
    bool endsInsideALine() const { return !m_text.empty() && m_text.back() != '\n'; }

private:
    std::string m_name;
    std::string m_text;
    std::size_t m_pos = 0;
    std::size_t m_line = 1;
    std::size_t m_recordLine = 0;
};

/// A CSV file with a header: records must have as many fields as the header.
class CsvTable {
public:
    explicit CsvTable(const std::filesystem::path& path);
    const std::vector<std::string>& header() const { return m_header; }
    /// Column index of `name`, or -1.
    int column(std::string_view name) const;
    /// Like column(), but ImportError naming the file, the missing column and `kind`: what
    /// the file was taken for and what that needs ("a kernel_details.csv header needs …").
    int require(std::string_view name, std::string_view kind) const;
    /// The next record with as many fields as the header; records with another count are
    /// skipped and counted (countProblems).
    bool next(std::vector<std::string>& fields);
    /// Counts in `model`'s stats, as data_loss, what the table could not give: the records
    /// skipped for their field count (import_row_skipped) and, for a file with a header line and
    /// no rows, the whole file (import_file_empty). Called once all records are read.
    void countProblems(ImportModel& model) const;
    std::size_t line() const { return m_file.line(); }
    const std::string& name() const { return m_file.name(); }

private:
    CsvFile m_file;
    std::vector<std::string> m_header;
    std::size_t m_records = 0; ///< records after the header, blank lines not counted
    std::size_t m_ragged = 0;
    std::string m_firstRagged; ///< "line 17: 12 fields, the header has 46"
};

} // namespace pto::importer
