// Reads the schema of a trace through its read-only reader.
#include "gui/model/SqlSchema.h"

#include "trace_db/TraceReader.h"

#include <fmt/format.h>

namespace pto::gui {
namespace {

std::string text(const tracedb::SqlValue& v) {
    const auto* s = std::get_if<std::string>(&v);
    return s ? *s : std::string();
}

} // namespace

std::vector<SchemaTable> readSchema(const tracedb::TraceReader& reader) {
    std::vector<SchemaTable> tables;
    const auto names = reader.query("SELECT name, type FROM sqlite_master WHERE type IN ('table', "
                                    "'view') AND name NOT LIKE 'sqlite_%' ORDER BY type, name");
    for (const auto& row : names.rows) {
        SchemaTable t{text(row[0]), text(row[1]) == "view", {}};
        std::string quoted;
        for (char c : t.name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
        const auto columns =
            reader.query(fmt::format("SELECT name, type FROM pragma_table_info('{}')", quoted));
        for (const auto& c : columns.rows) t.columns.push_back({text(c[0]), text(c[1])});
        tables.push_back(std::move(t));
    }
    return tables;
}

} // namespace pto::gui
