// Lookup tables of the Chrome export's slice formatting: escaped names, pid/tid fragments, args.
#include "profiler/export/SliceFormat.h"

#include "profiler/LoopLabels.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::prof::chrome {
namespace {

// ,"key":"text" as JSON.
std::string jsonMember(std::string_view key, std::string_view text) {
    fmt::memory_buffer b;
    b.push_back(',');
    appendJsonString(b, key);
    b.push_back(':');
    appendJsonString(b, text);
    return fmt::to_string(b);
}

// An arg's key in the export: one the export writes itself for every slice (an imported
// kernel's profiler "Task ID" is `task_id`, beside the slice's own task) gets "arg_" before it,
// so no event holds a key twice.
std::string exportedArgKey(std::string key) {
    static constexpr std::string_view kOwn[] = {"slice_id",  "cycle",   "dur_cycles",
                                                "instr_id",  "task_id", "src",
                                                "tensor_op", "tile_op", "src_loop"};
    for (std::string_view own : kOwn)
        if (key == own) return "arg_" + key;
    return key;
}

std::unordered_map<std::int64_t, ArgSetJson> loadArgs(const tracedb::TraceReader& reader) {
    std::unordered_map<std::int64_t, ArgSetJson> args;
    forEachRow(reader, "SELECT arg_set_id, key, int_value, string_value, real_value FROM args",
               [&](auto row) {
                   fmt::memory_buffer b;
                   b.push_back(',');
                   const std::string key = cellText(row[1]);
                   appendJsonString(b, exportedArgKey(key));
                   b.push_back(':');
                   ArgSetJson& set = args[cellInt(row[0])];
                   if (!cellNull(row[2])) {
                       fmt::format_to(std::back_inserter(b), "{}", cellInt(row[2]));
                   } else if (!cellNull(row[4]) && std::isfinite(cellReal(row[4]))) {
                       fmt::format_to(std::back_inserter(b), "{}", cellReal(row[4]));
                   } else {
                       const std::string text = cellText(row[3]);
                       appendJsonString(b, text);
                       // A round of a counted loop of the program names its own iteration.
                       if (key == "loop" && !isCompilerLoopName(loopNameOfLabel(text)))
                           set.srcLoop = jsonMember("src_loop", text);
                   }
                   set.json.append(b.data(), b.size());
               });
    return args;
}

// Each instruction's source as JSON members, rendered once per distinct source
// (InstrSource.h).
void loadInstrs(const tracedb::TraceReader& reader, SliceTables& t, std::size_t& longest) {
    t.instrs = loadInstrSources(reader);
    t.sources.reserve(t.instrs.sources().size());
    for (const InstrSource& s : t.instrs.sources()) {
        InstrJson& j = t.sources.emplace_back();
        if (!s.location.empty()) j.source += jsonMember("src", s.location);
        if (!s.op.empty()) j.source += jsonMember("tensor_op", s.op);
        if (!s.tileOp.empty()) j.source += jsonMember("tile_op", s.tileOp);
        if (!s.loop.empty()) j.loop = jsonMember("src_loop", s.loop);
        longest = std::max(longest, j.source.size() + j.loop.size());
    }
}

// Per-id lookup tables (ids are dense from 1): JSON-escaped names, "pid":P,"tid":T fragments.
std::vector<std::string> denseTable(const std::unordered_map<std::int64_t, std::string>& map) {
    std::int64_t maxId = 0;
    for (const auto& [id, text] : map) maxId = std::max(maxId, id);
    std::vector<std::string> table(std::size_t(std::min<std::int64_t>(maxId, 1 << 26) + 1));
    for (const auto& [id, text] : map)
        if (id >= 0 && std::size_t(id) < table.size()) table[std::size_t(id)] = text;
    return table;
}

} // namespace

SliceTables sliceTables(const tracedb::TraceReader& reader, const Places& places,
                        const std::unordered_map<std::int64_t, std::string>& names,
                        const Clock& clock) {
    SliceTables t;
    t.clock = clock;
    t.args = loadArgs(reader);
    std::size_t longestInstr = 0;
    loadInstrs(reader, t, longestInstr);
    std::unordered_map<std::int64_t, std::string> escapedNames, lanes;
    std::size_t longest = 0, longestArgs = 0;
    for (const auto& [id, text] : names) {
        fmt::memory_buffer b;
        appendJsonString(b, text);
        escapedNames[id] = fmt::to_string(b);
        longest = std::max(longest, b.size());
    }
    for (const auto& [id, place] : places)
        lanes[id] = fmt::format(R"("pid":{},"tid":{},"ts":)", place.pid, place.tid);
    for (const auto& [id, set] : t.args)
        longestArgs = std::max(longestArgs, set.json.size() + set.srcLoop.size());
    t.nameOf = denseTable(escapedNames);
    t.laneOf = denseTable(lanes);
    t.rowBytes = 512 + longest + longestArgs + longestInstr;
    return t;
}

} // namespace pto::prof::chrome
