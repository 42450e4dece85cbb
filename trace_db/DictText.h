// Table dict in memory, and compact node/instr rows turned back into NodeRow/InstrRow with it.
#pragma once

#include "trace_db/Rows.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace pto::tracedb {

class SqliteDb;

/// The text of table `dict` by id (schema 4). Readers that scan many nodes or instructions
/// resolve their *_dict ids with it: one hash lookup instead of the view's per-row subquery.
using DictText = std::unordered_map<std::int64_t, std::string>;

DictText readDict(SqliteDb& db);
/// The text of `id` (empty for none or an id the file lacks).
const std::string& dictText(const DictText& dict, std::optional<std::int64_t> id);
NodeRow expandRow(const NodeDataRow& row, const DictText& dict);
InstrRow expandRow(const InstrDataRow& row, const DictText& dict);

} // namespace pto::tracedb
