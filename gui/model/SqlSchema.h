// The tables and views of a trace file and their columns, for the SQL console's schema browser.
#pragma once

#include <string>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

struct SchemaColumn {
    std::string name, type;
};

struct SchemaTable {
    std::string name;
    bool view = false;
    std::vector<SchemaColumn> columns;
};

/// Tables first, then views, each by name (SQLite's own tables left out).
std::vector<SchemaTable> readSchema(const tracedb::TraceReader& reader);

} // namespace pto::gui
