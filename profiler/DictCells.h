// Reading a trace whose node and instr text may sit in table dict (schema 4): whether it does,
// and the text of a column read as a dict id there and as text in older files.
#pragma once

#include "profiler/SqlRows.h"
#include "trace_db/Schema.h"

#include <string>

namespace pto::prof {

/// Whether `reader`'s file keeps node and instr text in table dict (node_data, instr_data).
inline bool keepsTextInDict(const tracedb::TraceReader& reader) {
    return reader.schemaVersion() >= tracedb::kCompactSince;
}

/// The text of `cell`, a `*_dict` id when `compact` (keepsTextInDict), the text otherwise.
inline std::string dictCellText(const tracedb::TraceReader& reader, bool compact,
                                const tracedb::SqlValue& cell) {
    if (!compact || cellNull(cell)) return cellText(cell);
    return tracedb::dictText(reader.dict(), cellInt(cell));
}

} // namespace pto::prof
