// A strict CSV reader with line numbers.
#include "importer/Csv.h"

#include "importer/ImportError.h"
#include "importer/InputFiles.h"

#include <fmt/format.h>

namespace pto::importer {

CsvFile::CsvFile(const std::filesystem::path& path) : m_name(path.string()) {
    m_text = readFileText(path);
    if (m_text.starts_with("\xEF\xBB\xBF")) m_pos = 3; // UTF-8 byte order mark
    if (auto nul = m_text.find('\0'); nul != std::string::npos)
        throw ImportError(fmt::format("{}: byte {}: a NUL byte; expected CSV text", m_name, nul));
}

bool CsvFile::next(std::vector<std::string>& fields) {
    fields.clear();
    if (m_pos >= m_text.size()) return false;
    m_recordLine = m_line;
    std::string field;
    bool quoted = false;
    while (m_pos < m_text.size()) {
        char c = m_text[m_pos++];
        if (quoted) {
            if (c == '"') {
                if (m_pos < m_text.size() && m_text[m_pos] == '"') {
                    field += '"';
                    ++m_pos;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n') ++m_line;
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            ++m_line;
            break;
        } else if (c != '\r') {
            field += c;
        }
    }
    if (quoted)
        throw ImportError(fmt::format(
            "{}:{}: a quoted field is not closed before the end of the file; expected '\"'", m_name,
            m_recordLine));
    fields.push_back(std::move(field));
    return true;
}

CsvTable::CsvTable(const std::filesystem::path& path) : m_file(path) {
    if (!m_file.next(m_header) || (m_header.size() == 1 && m_header[0].empty()))
        throw ImportError(fmt::format("{}:1: the file is empty; expected a header line", name()));
}

int CsvTable::column(std::string_view name) const {
    for (std::size_t i = 0; i < m_header.size(); ++i)
        if (m_header[i] == name) return int(i);
    return -1;
}

int CsvTable::require(std::string_view wanted, std::string_view kind) const {
    int index = column(wanted);
    if (index < 0)
        throw ImportError(
            fmt::format("{}:1: the header has no column '{}'; {}", name(), wanted, kind));
    return index;
}

void CsvTable::countProblems(ImportModel& model) const {
    const std::string file = std::filesystem::path(name()).filename().string();
    if (m_records == 0)
        model.count(
            "import_file_empty", tracedb::StatSeverity::DataLoss,
            fmt::format("{}: a header line and no rows, so nothing of it is imported", file), 1,
            m_file.endsInsideALine() ? "line 1: the file ends inside the header line, cut short"
                                     : "line 1");
    if (m_ragged == 0) return;
    model.count("import_row_skipped", tracedb::StatSeverity::DataLoss,
                fmt::format("{}: a row whose field count differs from the header's", file),
                std::int64_t(m_ragged), m_firstRagged);
}

bool CsvTable::next(std::vector<std::string>& fields) {
    while (m_file.next(fields)) {
        if (fields.size() == 1 && fields[0].empty()) continue; // blank line
        ++m_records;
        if (fields.size() != m_header.size()) {
            if (m_ragged++ == 0)
                m_firstRagged = fmt::format("line {}: {} fields, the header has {}", m_file.line(),
                                            fields.size(), m_header.size());
            continue;
        }
        return true;
    }
    return false;
}

} // namespace pto::importer
