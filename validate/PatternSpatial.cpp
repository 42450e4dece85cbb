// Spatial error patterns: a stripe of rows or columns, only the tail tile(s) of a dimension,
// and whole tiles of one task or core (from the tiling the trace records).
#include "validate/Detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace pto::diag {
namespace {

constexpr double kDense = 0.5; // share of a region's elements wrong to call it wholly wrong

std::vector<int64_t> wrongRows(const ErrorMap& m) {
    std::vector<int64_t> rows;
    for (int64_t r : m.examinedRows)
        if (m.rowWrong[size_t(r)] > 0) rows.push_back(r);
    return rows;
}

std::vector<int64_t> wrongCols(const ErrorMap& m) {
    std::vector<int64_t> cols;
    for (int64_t c = 0; c < m.cols; ++c)
        if (m.colWrong[size_t(c)] > 0) cols.push_back(c);
    return cols;
}

std::optional<PatternFinding> rowStripe(const ErrorMap& m) {
    const std::vector<int64_t> rows = wrongRows(m);
    const size_t examined = m.examinedRows.size();
    // A row of one element is no stripe, nor is one wrong element (a 16x1 array's wrong
    // element was a "row_stripe").
    if (rows.empty() || examined < 2 || m.cols < 2 || m.wrong < 2 || rows.size() * 2 > examined)
        return std::nullopt;
    const double density = double(m.wrong) / double(int64_t(rows.size()) * m.cols);
    if (density < kDense) return std::nullopt;
    const bool atEnd = rows.back() == m.rows - 1;
    PatternFinding f;
    f.pattern = "row_stripe";
    f.confidence = 0.4 + 0.45 * density; // below a tiling's explanation of the same rows
    f.summary = fmt::format("stripe of rows {} ({} of {} examined rows{}): {:.0f}% of their "
                            "elements wrong, the other rows right",
                            rangesText(rows), rows.size(), examined,
                            atEnd ? ", at the end of the dim" : "", 100 * density);
    f.evidence = {{"rows", rows.size() <= 64 ? nlohmann::json(rows) : nlohmann::json()},
                  {"row_count", rows.size()},
                  {"examined_rows", examined},
                  {"density", density}};
    return f;
}

std::optional<PatternFinding> columnStripe(const ErrorMap& m) {
    const std::vector<int64_t> cols = wrongCols(m);
    const int64_t examined = int64_t(m.examinedRows.size());
    // A 1-D tensor is one row: its wrong elements are scattered, not a stripe of columns (two
    // wrong elements of a length-1024 vector were "stripe of columns 3, 700").
    if (cols.empty() || m.cols < 2 || examined < 2 || m.wrong < 2 ||
        int64_t(cols.size()) * 2 > m.cols)
        return std::nullopt;
    const double density = double(m.wrong) / double(int64_t(cols.size()) * examined);
    if (density < kDense) return std::nullopt;
    PatternFinding f;
    f.pattern = "column_stripe";
    f.confidence = 0.4 + 0.45 * density; // below a tiling's explanation of the same rows
    f.summary =
        fmt::format("stripe of columns {} ({} of {}{}): {:.0f}% of their elements wrong, "
                    "the other columns right",
                    rangesText(cols), cols.size(), m.cols,
                    cols.back() == m.cols - 1 ? ", at the end of the dim" : "", 100 * density);
    f.evidence = {{"columns", cols.size() <= 64 ? nlohmann::json(cols) : nlohmann::json()},
                  {"column_count", cols.size()},
                  {"density", density}};
    return f;
}

struct TileSet {
    std::vector<size_t> bad;
    int64_t wrong = 0, examined = 0;
    double density() const { return examined > 0 ? double(wrong) / double(examined) : 0.0; }
};

TileSet badTiles(const ErrorMap& m) {
    TileSet s;
    for (size_t i = 0; i < m.tileWrong.size(); ++i)
        if (m.tileWrong[i] > 0) {
            s.bad.push_back(i);
            s.wrong += m.tileWrong[i];
            s.examined += m.tileExamined[i];
        }
    return s;
}

std::string tileText(const TileRegion& t) {
    return fmt::format("rows {}–{} cols {}–{}", t.row, t.row + t.rows - 1, t.col,
                       t.col + t.cols - 1);
}

/// Only tiles that start at the last tile position of a dim are wrong.
std::optional<PatternFinding> tailTiles(const ErrorMap& m, const TileLayout& layout,
                                        const TileSet& bad) {
    if (bad.bad.empty() || bad.wrong < m.wrong) return std::nullopt; // wrong outside tiles
    std::set<int64_t> rowStarts, colStarts;
    int64_t fullRows = 0, fullCols = 0;
    for (const TileRegion& t : layout.tiles) {
        rowStarts.insert(t.row);
        colStarts.insert(t.col);
        fullRows = std::max(fullRows, t.rows);
        fullCols = std::max(fullCols, t.cols);
    }
    const auto allAt = [&](auto start, int64_t last) {
        return std::all_of(bad.bad.begin(), bad.bad.end(),
                           [&](size_t i) { return start(layout.tiles[i]) == last; });
    };
    const bool colTail = colStarts.size() > 1 &&
                         allAt([](const TileRegion& t) { return t.col; }, *colStarts.rbegin());
    const bool rowTail = rowStarts.size() > 1 &&
                         allAt([](const TileRegion& t) { return t.row; }, *rowStarts.rbegin());
    if (!colTail && !rowTail) return std::nullopt;
    const TileRegion& first = layout.tiles[bad.bad.front()];
    const bool partial = (colTail && first.cols < fullCols) || (rowTail && first.rows < fullRows);
    const std::string dim = colTail && rowTail ? "both dims (the corner)"
                            : colTail          ? fmt::format("dim -1 (columns from {})", first.col)
                                               : fmt::format("dim -2 (rows from {})", first.row);
    PatternFinding f;
    f.pattern = "tail_tile";
    f.confidence = (partial ? 0.9 : 0.6) * std::min(1.0, 0.5 + bad.density());
    f.summary = fmt::format("only the tail tile(s) of {} are wrong: {} tile(s){}, {:.0f}% of "
                            "their elements; every other tile is right",
                            dim, bad.bad.size(),
                            partial ? fmt::format(" of {}×{} (partial; full tiles are {}×{})",
                                                  first.rows, first.cols, fullRows, fullCols)
                                    : "",
                            100 * bad.density());
    const std::string dimId = colTail && rowTail ? "both" : colTail ? "-1" : "-2";
    f.evidence = nlohmann::json::object();
    f.evidence["dim"] = dimId;
    f.evidence["tiles"] = bad.bad.size();
    f.evidence["first_tile"] = tileText(first);
    f.evidence["partial"] = partial;
    f.evidence["density"] = bad.density();
    return f;
}

/// Every wrong tile was written by one core (or one task of a core that ran others right).
std::optional<PatternFinding> ownerTiles(const ErrorMap& m, const TileLayout& layout,
                                         const TileSet& bad) {
    if (bad.bad.empty() || bad.wrong < m.wrong) return std::nullopt;
    std::set<int> badCores;
    std::set<std::string> badTasks;
    for (size_t i : bad.bad) {
        badCores.insert(layout.tiles[i].core);
        badTasks.insert(layout.tiles[i].task);
    }
    if (badCores.size() != 1 || *badCores.begin() < 0) return std::nullopt;
    const int core = *badCores.begin();
    std::set<int> cores;
    std::set<std::string> coreTasks;
    int64_t coreTiles = 0;
    for (const TileRegion& t : layout.tiles) {
        cores.insert(t.core);
        if (t.core == core) {
            ++coreTiles;
            coreTasks.insert(t.task);
        }
    }
    if (cores.size() < 2) return std::nullopt;
    const bool oneTask = badTasks.size() == 1 && coreTasks.size() > 1;
    const double density = bad.density();
    const double share = double(bad.bad.size()) / double(coreTiles);
    PatternFinding f;
    f.pattern = oneTask ? "task_tiles" : "core_tiles";
    f.confidence = density >= kDense ? 0.6 + 0.3 * share + 0.1 * density : 0.4;
    const std::string who = oneTask ? fmt::format("task {} (on core {})", *badTasks.begin(), core)
                                    : fmt::format("core {}{}", core,
                                                  badTasks.size() == 1 && !badTasks.begin()->empty()
                                                      ? fmt::format(" (task {})", *badTasks.begin())
                                                      : "");
    f.summary = fmt::format("{} tiles of {} wrong: {} of its {} tile(s), {:.0f}% of their "
                            "elements; the tiles of the {} other core(s) are right",
                            density >= kDense ? "whole" : "parts of", who, bad.bad.size(),
                            coreTiles, 100 * density, cores.size() - 1);
    f.evidence = {{"core", core},
                  {"tasks", std::vector<std::string>(badTasks.begin(), badTasks.end())},
                  {"wrong_tiles", bad.bad.size()},
                  {"core_tiles", coreTiles},
                  {"first_tile", tileText(layout.tiles[bad.bad.front()])},
                  {"density", density}};
    return f;
}

} // namespace

std::string rangesText(const std::vector<int64_t>& sorted, size_t maxRanges) {
    std::string out;
    size_t ranges = 0;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
        if (ranges++ == maxRanges) return out + ", …";
        if (!out.empty()) out += ", ";
        out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}–{}", sorted[i], sorted[j]);
        i = j + 1;
    }
    return out;
}

std::vector<PatternFinding> detectSpatial(const ErrorMap& m, const TileLayout* layout) {
    std::vector<PatternFinding> out;
    if (m.wrong == 0) return out;
    if (layout && !layout->empty()) {
        const TileSet bad = badTiles(m);
        if (auto f = tailTiles(m, *layout, bad)) out.push_back(*f);
        if (auto f = ownerTiles(m, *layout, bad)) out.push_back(*f);
    }
    if (auto f = rowStripe(m)) out.push_back(*f);
    if (auto f = columnStripe(m)) out.push_back(*f);
    return out;
}

} // namespace pto::diag
