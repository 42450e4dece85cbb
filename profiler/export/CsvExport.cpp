// Streams the slice table, joined with track names, as CSV.
#include "profiler/export/CsvExport.h"

#include "profiler/InstrSource.h"
#include "profiler/LoopLabels.h"
#include "profiler/RunClock.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace pto::prof {
namespace {

/// A text cell a spreadsheet would run as a formula (OWASP "CSV injection"): it starts with
/// = + - @, a tab or a carriage return.
bool looksLikeFormula(std::string_view text) {
    return !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string::npos;
}

void appendCsv(fmt::memory_buffer& b, const tracedb::SqlValue& v) {
    if (cellNull(v)) return;
    if (auto* d = std::get_if<double>(&v)) {
        fmt::format_to(std::back_inserter(b), "{}", *d);
        return;
    }
    std::string s = cellText(v);
    // Only TEXT cells: an INTEGER column's -5 stays a number.
    const bool formula = std::holds_alternative<std::string>(v) && looksLikeFormula(s);
    if (formula) s.insert(s.begin(), '\'');
    if (!formula && s.find_first_of(",\"\n\r") == std::string::npos) {
        b.append(s);
        return;
    }
    b.push_back('"');
    for (char c : s) {
        if (c == '"') b.push_back('"');
        b.push_back(c);
    }
    b.push_back('"');
}

// The SQL condition keeping the slices `s` that overlap `window` (TimeWindow::overlaps).
std::string windowCondition(const TimeWindow& window) {
    if (window.whole()) return "1";
    return fmt::format("s.ts < {1} AND (s.ts >= {0} OR s.ts + max(s.dur, 0) > {0})", window.from,
                       window.to);
}

} // namespace

std::int64_t exportSlicesCsv(const tracedb::TraceReader& reader, std::FILE* out,
                             const ProgressFn& progress, const TimeWindow& window) {
    const double usPerCycle = 1e6 / runClockHz(reader);
    std::int64_t total = 1, n = 0;
    forEachRow(reader, "SELECT count(*) FROM slice",
               [&](auto row) { total = cellInt(row[0]) + 1; });
    // What ties a slice to the program, looked up once per instruction (InstrSource.h); a
    // round of a counted loop of the program names its own iteration (its slice's `loop`).
    const InstrSources sources = loadInstrSources(reader);
    std::unordered_map<std::int64_t, std::string> roundLoops; // arg set → "kv, iter 7"
    forEachRow(reader, "SELECT arg_set_id, string_value FROM args WHERE key = 'loop'",
               [&](auto row) {
                   std::string label = cellText(row[1]);
                   if (!isCompilerLoopName(loopNameOfLabel(label)))
                       roundLoops.emplace(cellInt(row[0]), std::move(label));
               });
    fmt::memory_buffer b;
    b.append(std::string_view("id,ts,dur,ts_us,dur_us,track_id,track,core_type,core_id,pipe,name,"
                              "category,depth,instr_id,task_id,src,tensor_op,tile_op,src_loop\n"));
    auto text = [&](const std::string& cell) {
        b.push_back(',');
        if (!cell.empty()) appendCsv(b, tracedb::SqlValue(cell));
    };
    auto flush = [&] {
        if (b.size() && std::fwrite(b.data(), 1, b.size(), out) != b.size())
            throw std::runtime_error("cannot write the CSV (disk full?)");
        b.clear();
    };
    forEachRow(reader,
               "SELECT s.id, s.ts, s.dur, 0, 0, s.track_id, tn.str, t.core_type, "
               "t.core_id, t.pipe, sn.str, s.category, s.depth, s.instr_id, s.task_id, "
               "s.arg_set_id FROM slice s JOIN track t ON t.id = s.track_id "
               "LEFT JOIN string tn ON tn.id = t.name_id LEFT JOIN string sn ON sn.id = s.name_id "
               "WHERE " +
                   windowCondition(window) + " ORDER BY s.track_id, s.ts, s.depth",
               [&](auto row) {
                   constexpr std::size_t kSliceColumns = 15; // then arg_set_id, not written
                   for (std::size_t c = 0; c < kSliceColumns; ++c) {
                       if (c) b.push_back(',');
                       if (c == 3 || c == 4)
                           fmt::format_to(std::back_inserter(b), "{:.4f}",
                                          double(cellInt(row[c == 3 ? 1 : 2])) * usPerCycle);
                       else
                           appendCsv(b, row[c]);
                   }
                   const InstrSource* source =
                       cellNull(row[13]) ? nullptr : sources.find(cellInt(row[13]));
                   const auto round = cellNull(row[15]) || roundLoops.empty()
                                          ? roundLoops.end()
                                          : roundLoops.find(cellInt(row[15]));
                   static const std::string kNone;
                   text(source ? source->location : kNone);
                   text(source ? source->op : kNone);
                   text(source ? source->tileOp : kNone);
                   text(round != roundLoops.end() ? round->second : source ? source->loop : kNone);
                   b.push_back('\n');
                   if (b.size() > (1u << 20)) flush();
                   if (++n % 262144 == 0 && progress) progress(double(n) / double(total));
               });
    flush();
    if (progress) progress(1.0);
    return n;
}

} // namespace pto::prof
