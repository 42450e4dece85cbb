// `pto query`: run read-only SQL on a trace file and print the rows as a table, CSV or JSON.
#include "cli/Command.h"

#include "base/JsonText.h"
#include "base/Utf8.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace pto::cli {
namespace {

using tracedb::SqlValue;

/// User SQL may run forever (an endless recursive CTE): by default it gets this long.
constexpr double kDefaultTimeoutSeconds = 5;

struct QueryArgs {
    std::string file;
    std::string sql;
    std::string format = "table";
    double timeoutSeconds = kDefaultTimeoutSeconds;
};

std::string cellText(const SqlValue& v, bool nullWord) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    if (auto* b = std::get_if<tracedb::BlobSize>(&v))
        return fmt::format("<blob {} bytes>", b->bytes);
    return nullWord ? "NULL" : "";
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

nlohmann::ordered_json cellJson(const SqlValue& v) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    if (auto* b = std::get_if<tracedb::BlobSize>(&v)) return {{"blob_bytes", b->bytes}};
    return nullptr;
}

void printTable(const tracedb::QueryResult& r) {
    std::vector<std::size_t> width(r.columns.size());
    for (std::size_t c = 0; c < r.columns.size(); ++c) width[c] = r.columns[c].size();
    for (const auto& row : r.rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::min<std::size_t>(60, std::max(width[c], cellText(row[c], true).size()));
    auto printRow = [&](auto cell) {
        std::string line;
        for (std::size_t c = 0; c < width.size(); ++c) {
            std::string text = cell(c);
            // Cut at a character boundary: a "→" cut in half is not UTF-8.
            if (text.size() > width[c]) text = text.substr(0, utf8Prefix(text, width[c] - 1)) + "~";
            line += fmt::format("{}{:<{}}", c ? "  " : "", text, width[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        fmt::print("{}\n", line);
    };
    printRow([&](std::size_t c) { return r.columns[c]; });
    printRow([&](std::size_t c) { return std::string(width[c], '-'); });
    for (const auto& row : r.rows) printRow([&](std::size_t c) { return cellText(row[c], true); });
    fmt::print("({} row{})\n", r.rows.size(), r.rows.size() == 1 ? "" : "s");
}

tracedb::QueryLimits limitsOf(const QueryArgs& args) {
    tracedb::QueryLimits limits;
    limits.oneResultSet = true;         // one header, one table, one JSON array
    constexpr double kMaxSeconds = 1e8; // ~3 years: no overflow of the deadline
    limits.timeout =
        std::chrono::milliseconds(std::llround(std::min(args.timeoutSeconds, kMaxSeconds) * 1000));
    return limits;
}

// The JSON keys of the columns, in column order: a name met before gets ":1", ":2"… as
// SQLite names the columns of CREATE TABLE … AS SELECT (SELECT s.id, t.id gives "id" and
// "id:1"; sqlite3 -json would print two "id" keys, which JSON readers collapse), so no column
// is lost.
std::vector<std::string> jsonKeys(std::span<const std::string> columns) {
    std::vector<std::string> keys;
    for (const std::string& column : columns) {
        std::string key = column;
        for (int n = 1; std::find(keys.begin(), keys.end(), key) != keys.end(); ++n)
            key = fmt::format("{}:{}", column, n);
        keys.push_back(std::move(key));
    }
    return keys;
}

// One object per row, keys in column order. The "[" comes with the first row, so an SQL error
// (raised before any row) leaves standard output empty.
void printJson(const tracedb::TraceReader& reader, const QueryArgs& args,
               const tracedb::QueryLimits& limits) {
    std::vector<std::string> keys;
    std::size_t n = 0;
    reader.query(
        args.sql,
        [&](std::span<const std::string> cols, std::span<const SqlValue> row) {
            if (keys.empty()) keys = jsonKeys(cols);
            nlohmann::ordered_json obj = nlohmann::ordered_json::object();
            for (std::size_t c = 0; c < cols.size(); ++c) obj[keys[c]] = cellJson(row[c]);
            fmt::print("{}\n{}", n++ ? "," : "[", jsonText(obj));
            return true;
        },
        limits);
    fmt::print("{}\n", n ? "\n]" : "[]");
}

void printCsv(const tracedb::TraceReader& reader, const QueryArgs& args,
              const tracedb::QueryLimits& limits) {
    bool header = false;
    reader.query(
        args.sql,
        [&](std::span<const std::string> cols, std::span<const SqlValue> row) {
            if (!header) {
                std::vector<std::string> names;
                for (const auto& c : cols) names.push_back(csvField(c));
                fmt::print("{}\n", fmt::join(names, ","));
                header = true;
            }
            std::vector<std::string> cells;
            for (const auto& v : row) cells.push_back(csvField(cellText(v, false)));
            fmt::print("{}\n", fmt::join(cells, ","));
            return true;
        },
        limits);
}

int runLimitedQuery(const QueryArgs& args) {
    auto reader = tracedb::TraceReader::open(args.file);
    const tracedb::QueryLimits limits = limitsOf(args);
    if (args.format == "table")
        printTable(reader.query(args.sql, limits));
    else if (args.format == "json")
        printJson(reader, args, limits);
    else
        printCsv(reader, args, limits);
    return kExitOk;
}

int runQuery(const QueryArgs& args) {
    try {
        return runLimitedQuery(args);
    } catch (const tracedb::QueryInterrupted& e) {
        std::fflush(stdout);
        fmt::print(stderr,
                   "error: {}; raise the limit with --timeout SECONDS, or --timeout 0 "
                   "for none\n",
                   e.what());
        return kExitUsage;
    }
}

} // namespace

void registerQuery(CLI::App& app, Action& action) {
    auto args = std::make_shared<QueryArgs>();
    CLI::App* cmd = app.add_subcommand(
        "query", "Run read-only SQL on a trace file (statements that write are refused)");
    cmd->add_option("file", args->file, "trace file")->required();
    cmd->add_option("sql", args->sql,
                    "SQL (see docs/TRACE_SCHEMA.md): one statement that returns rows (more are "
                    "refused: run each in its own pto query)")
        ->required();
    cmd->add_option("--format", args->format,
                    "table, csv or json (default table); json: one object per row, keys in "
                    "column order, a repeated column name as name:1, name:2…")
        ->check(CLI::IsMember({"table", "csv", "json"}));
    cmd->add_option("--timeout", args->timeoutSeconds,
                    fmt::format("stop the query after this many seconds, printing and all "
                                "(default {:g}; 0 = no limit); exit 2 when it runs out",
                                kDefaultTimeoutSeconds))
        ->check(nonNegativeNumber());
    cmd->callback([args, &action] { action = [args] { return runQuery(*args); }; });
}

} // namespace pto::cli
