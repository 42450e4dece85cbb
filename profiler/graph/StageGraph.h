// DOT and SVG (Graphviz) of one IR stage recorded in a trace file: its nodes and edges with
// every label escaped, for `pto export --format dot|svg` and the HTML report.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>

namespace pto::prof {

/// The stage named by `spec`: a stage name ("tile.expand-tiles"), a level ("tensor", "tile",
/// "block", "exec", "pto": the last stage of that level), a stage id, or "" for the parsed
/// program. Throws std::invalid_argument listing the stages when nothing matches.
tracedb::StageRow findStage(const tracedb::TraceReader& reader, const std::string& spec);

/// The stage as a DOT digraph. Labels are DOT-escaped (quotes, backslashes, Graphviz escape
/// sequences), so any text in a name shows as itself.
std::string stageDot(const tracedb::TraceReader& reader, const tracedb::StageRow& stage);

/// The stage laid out by Graphviz's dot and rendered as SVG (the XML prolog removed, so it
/// can be inlined in HTML). Graphviz is not thread-safe: calls are serialized. Throws
/// std::invalid_argument for a stage of more than `maxNodes` nodes (dot's layout time grows
/// super-linearly; export DOT instead) and std::runtime_error when Graphviz fails.
std::string stageSvg(const tracedb::TraceReader& reader, const tracedb::StageRow& stage,
                     std::int64_t maxNodes = 5000);

/// Escapes text for a double-quoted DOT string.
std::string dotEscape(const std::string& text);

} // namespace pto::prof
