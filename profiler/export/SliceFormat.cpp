// Lookup tables of the Chrome export's slice formatting: escaped names, pid/tid fragments, args.
#include "profiler/export/SliceFormat.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <cmath>

namespace pto::prof::chrome {
namespace {

std::unordered_map<std::int64_t, std::string> loadArgs(const tracedb::TraceReader& reader) {
    std::unordered_map<std::int64_t, std::string> args;
    forEachRow(reader, "SELECT arg_set_id, key, int_value, string_value, real_value FROM args",
               [&](auto row) {
                   fmt::memory_buffer b;
                   b.push_back(',');
                   appendJsonString(b, cellText(row[1]));
                   b.push_back(':');
                   if (!cellNull(row[2]))
                       fmt::format_to(std::back_inserter(b), "{}", cellInt(row[2]));
                   else if (!cellNull(row[4]) && std::isfinite(cellReal(row[4])))
                       fmt::format_to(std::back_inserter(b), "{}", cellReal(row[4]));
                   else
                       appendJsonString(b, cellText(row[3]));
                   args[cellInt(row[0])].append(b.data(), b.size());
               });
    return args;
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
    for (const auto& [id, text] : t.args) longestArgs = std::max(longestArgs, text.size());
    t.nameOf = denseTable(escapedNames);
    t.laneOf = denseTable(lanes);
    t.rowBytes = 512 + longest + longestArgs;
    return t;
}

} // namespace pto::prof::chrome
