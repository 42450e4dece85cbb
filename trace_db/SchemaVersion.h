// The trace file format version this build writes and the newest one it can read.
#pragma once

#include <cstdint>

namespace pto::tracedb {

/// Stored as `PRAGMA user_version` and as meta 'schema_version'. Bump it for any change a
/// reader of the previous version could misread (new tables and columns included), and add
/// a migration so `TraceWriter::append` keeps working on older files (migrateSchema) and the
/// reader still reads them. History (docs/TRACE_SCHEMA.md): 1 the first; 2 instr.flops,
/// gm_bytes, src_dtype; 3 track.stream_id, thread_id (measured traces, `pto import`); 4 node
/// and instr stored compactly (tables dict, node_data, instr_data; node and instr are views).
inline constexpr int kSchemaVersion = 4;

/// Stored as `PRAGMA application_id` so tools like `file(1)` and our reader can tell a PTO
/// Studio trace from any other SQLite file. The bytes spell "PTOS".
inline constexpr std::int32_t kApplicationId = 0x50544F53;

} // namespace pto::tracedb
