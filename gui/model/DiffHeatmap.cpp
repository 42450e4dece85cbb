// Error map of an output: element errors from output vs golden, tiles from the tstores of the
// last Tile stage, tile errors from the golden or from validate's diff rows.
#include "gui/model/DiffHeatmap.h"

#include "compiler/ir/TensorData.h"
#include "profiler/SqlRows.h"
#include "validate/TensorCompare.h"
#include "validate/TraceTiles.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellNull;
using prof::cellText;

std::vector<std::int64_t> intsOf(const nlohmann::json& j) {
    std::vector<std::int64_t> out;
    if (j.is_array())
        for (const auto& v : j)
            if (v.is_number_integer()) out.push_back(v.get<std::int64_t>());
    return out;
}

std::vector<std::int64_t> jsonInts(const std::string& text, const char* key = nullptr) {
    const nlohmann::json j = nlohmann::json::parse(text.empty() ? "null" : text, nullptr, false);
    if (!key) return intsOf(j);
    return j.is_object() && j.contains(key) ? intsOf(j[key]) : std::vector<std::int64_t>{};
}

/// (rows, cols) of the 2-D view of a shape (leading dims folded into rows).
std::pair<std::int64_t, std::int64_t> view2d(const std::vector<std::int64_t>& dims) {
    if (dims.empty()) return {1, 1};
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];
    return {rows, dims.back()};
}

/// The element offset (row, col) of a multi-dim offset in a tensor of `dims`.
std::pair<std::int64_t, std::int64_t> offset2d(const std::vector<std::int64_t>& offset,
                                               const std::vector<std::int64_t>& dims) {
    if (offset.empty() || offset.size() != dims.size()) return {0, 0};
    std::int64_t row = 0;
    for (std::size_t i = 0; i + 1 < offset.size(); ++i) row = row * dims[i] + offset[i];
    return {row, offset.back()};
}

std::optional<TensorData> decode(const tracedb::TraceReader& reader,
                                 const tracedb::TensorRow& row) {
    const auto dtype = parseDType(row.dtype);
    if (!dtype) return std::nullopt;
    TensorData t;
    t.dtype = *dtype;
    for (std::int64_t d : jsonInts(row.shape))
        if (!t.shape.push(d)) return std::nullopt;
    t.bytes = reader.tensorData(row.id);
    if (static_cast<std::int64_t>(t.bytes.size()) != t.byteSize()) return std::nullopt;
    return t;
}

std::optional<TensorData> tensorOfRole(const tracedb::TraceReader& reader, const std::string& name,
                                       tracedb::TensorRole role) {
    for (const tracedb::TensorRow& row : reader.tensors())
        if (row.role == role && row.name == name) return decode(reader, row);
    return std::nullopt;
}

std::int64_t lastTileStage(const tracedb::TraceReader& reader) {
    std::int64_t stage = -1;
    prof::forEachRow(reader,
                     "SELECT tile_stage_id FROM instr WHERE tile_stage_id IS NOT NULL "
                     "LIMIT 1",
                     [&](auto row) { stage = cellInt(row[0]); });
    if (stage >= 0) return stage;
    for (const tracedb::StageRow& s : reader.stages())
        if (s.level == tracedb::StageLevel::Tile) stage = s.id;
    return stage;
}

/// The tiles `tstore`d into output `%name` in stage `stage`.
std::vector<HeatTile> storedTiles(const tracedb::TraceReader& reader, std::int64_t stage,
                                  const std::string& name, const std::vector<std::int64_t>& dims) {
    std::vector<HeatTile> tiles;
    std::int64_t gm = -1;
    if (name.find('\'') != std::string::npos) return tiles; // not a value name
    prof::forEachRow(reader,
                     fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'gm_tensor' "
                                 "AND name = '%{}'",
                                 stage, name),
                     [&](auto row) { gm = cellInt(row[0]); });
    if (gm == -1) return tiles;
    const std::string sql = fmt::format(
        "SELECT st.id, st.attrs, e2.src, src.shape FROM node st "
        "JOIN edge e1 ON e1.stage_id = st.stage_id AND e1.dst = st.id AND e1.src = {1} "
        "JOIN edge e2 ON e2.stage_id = st.stage_id AND e2.dst = st.id AND e2.src <> {1} "
        "JOIN node src ON src.stage_id = st.stage_id AND src.id = e2.src "
        "WHERE st.stage_id = {0} AND st.kind = 'tstore' ORDER BY st.id",
        stage, gm);
    prof::forEachRow(reader, sql, [&](auto row) {
        HeatTile tile;
        tile.store = {stage, cellInt(row[0])};
        tile.op = {stage, cellInt(row[2])};
        std::tie(tile.row, tile.col) = offset2d(jsonInts(cellText(row[1]), "offset"), dims);
        std::tie(tile.rows, tile.cols) = view2d(jsonInts(cellText(row[3])));
        tiles.push_back(tile);
    });
    return tiles;
}

/// Largest max_abs of the op/tile/bisect diff rows per node of `stage`.
std::unordered_map<std::int64_t, double> diffErrors(const tracedb::TraceReader& reader,
                                                    std::int64_t stage) {
    std::unordered_map<std::int64_t, double> errors;
    for (const tracedb::DiffRow& d : reader.diffs()) {
        if (d.kind == tracedb::DiffKind::Tensor || d.stageId != stage || !d.nodeId) continue;
        const auto m = nlohmann::json::parse(d.metrics, nullptr, false);
        if (!m.is_object() || !m.contains("max_abs") || !m["max_abs"].is_number()) continue;
        double& e = errors.try_emplace(*d.nodeId, 0.0).first->second;
        e = std::max(e, m["max_abs"].get<double>());
    }
    return errors;
}

void fillElementErrors(HeatmapData& map, const TensorData& actual, const TensorData& golden,
                       int maxCells) {
    std::vector<float> a(static_cast<std::size_t>(actual.numel()));
    std::vector<float> g(static_cast<std::size_t>(golden.numel()));
    actual.loadFloats(a.data());
    golden.loadFloats(g.data());
    map.gridRows = static_cast<int>(std::min<std::int64_t>(map.rows, maxCells));
    map.gridCols = static_cast<int>(std::min<std::int64_t>(map.cols, maxCells));
    map.cells.assign(static_cast<std::size_t>(map.gridRows) * map.gridCols, 0.0f);
    std::vector<double> tileMax(map.tiles.size(), 0.0);
    for (std::int64_t r = 0; r < map.rows; ++r) {
        const std::int64_t cellRow = r * map.gridRows / map.rows;
        for (std::int64_t c = 0; c < map.cols; ++c) {
            const std::size_t i = static_cast<std::size_t>(r * map.cols + c);
            float e = std::fabs(a[i] - g[i]);
            if (std::isnan(e)) e = std::isnan(a[i]) && std::isnan(g[i]) ? 0.0f : INFINITY;
            float& cell = map.cells[static_cast<std::size_t>(cellRow * map.gridCols +
                                                             c * map.gridCols / map.cols)];
            cell = std::max(cell, e);
        }
    }
    for (float cell : map.cells) map.maxCell = std::max(map.maxCell, cell);
    for (HeatTile& tile : map.tiles) {
        double worst = 0;
        for (std::int64_t r = tile.row; r < std::min(map.rows, tile.row + tile.rows); ++r)
            for (std::int64_t c = tile.col; c < std::min(map.cols, tile.col + tile.cols); ++c) {
                const std::size_t i = static_cast<std::size_t>(r * map.cols + c);
                worst = std::max(worst, static_cast<double>(std::fabs(a[i] - g[i])));
            }
        tile.error = worst;
    }
}

/// The diagnosis of output `name` against `golden` with the dtype tolerance (the CLI's policy
/// without the producer's class) and the tiling of the trace.
Diagnosis diagnoseOutput(const tracedb::TraceReader& reader, const std::string& name,
                         const TensorData& actual, const TensorData& golden) {
    const Tolerance tol = dtypeTolerance(toleranceDType(actual.dtype, golden.dtype));
    const TileLayout layout = traceTileLayout(reader, name, actual.shape);
    DiagnoseOptions o;
    o.rtol = tol.rtol;
    o.atol = tol.atol;
    o.layout = &layout;
    return diagnose(TensorView(actual), TensorView(golden), o);
}

/// The diagnosis `pto diff` stored in the last tensor diff row of output `name`, if any.
std::optional<Diagnosis> storedDiagnosis(const tracedb::TraceReader& reader,
                                         const std::string& name) {
    std::optional<Diagnosis> found;
    for (const tracedb::DiffRow& d : reader.diffs()) {
        if (d.kind != tracedb::DiffKind::Tensor || d.name != name) continue;
        const auto detail = nlohmann::json::parse(d.detail, nullptr, false);
        if (!detail.is_object() || !detail.contains("diagnosis")) continue;
        const nlohmann::json& j = detail["diagnosis"];
        Diagnosis diag;
        if (j.contains("patterns") && j["patterns"].is_array())
            for (const auto& p : j["patterns"]) {
                PatternFinding f;
                f.pattern = p.value("pattern", "");
                f.confidence = p.value("confidence", 0.0);
                f.summary = p.value("summary", "");
                diag.findings.push_back(f);
            }
        diag.wrong = j.value("wrong", std::int64_t{0});
        diag.note = j.value("note", "");
        found = diag;
    }
    return found;
}

} // namespace

std::string HeatmapData::diagnosisText() const {
    if (!diagnosis) return {};
    if (diagnosis->findings.empty())
        return diagnosis->wrong > 0 ? "Diagnosis: no known pattern (" + diagnosis->note + ")"
                                    : std::string();
    std::string out;
    for (const PatternFinding& f : diagnosis->findings)
        out += fmt::format("{}Diagnosis: {} ({:.0f}%) — {}", out.empty() ? "" : "\n", f.pattern,
                           100 * f.confidence, f.summary);
    return out;
}

int HeatmapData::hottestTile() const {
    int best = -1;
    for (std::size_t i = 0; i < tiles.size(); ++i)
        if (tiles[i].error &&
            (best < 0 || *tiles[i].error > *tiles[static_cast<std::size_t>(best)].error))
            best = static_cast<int>(i);
    return best;
}

std::vector<std::string> heatmapOutputs(const tracedb::TraceReader& reader) {
    std::vector<std::string> names;
    for (const tracedb::TensorRow& row : reader.tensors())
        if (row.role == tracedb::TensorRole::Output) names.push_back(row.name);
    return names;
}

std::optional<TensorData> storedGolden(const tracedb::TraceReader& reader,
                                       const std::string& output) {
    return tensorOfRole(reader, output, tracedb::TensorRole::Golden);
}

HeatmapData buildHeatmap(const tracedb::TraceReader& reader, const std::string& output,
                         const TensorData* golden, int maxCells) {
    HeatmapData map;
    map.tensor = output;
    // The output's values (a 4096² f32 output is 64 MB) are read only to compare them with a
    // golden; its shape comes from the tensor row.
    const std::optional<TensorData> actual =
        golden ? tensorOfRole(reader, output, tracedb::TensorRole::Output) : std::nullopt;
    std::vector<std::int64_t> dims; // the row's shape, which `actual` was decoded with too
    bool stored = false;
    for (const tracedb::TensorRow& row : reader.tensors())
        if (row.role == tracedb::TensorRole::Output && row.name == output) {
            dims = jsonInts(row.shape);
            // length() of a blob reads its size, not its pages.
            prof::forEachRow(reader,
                             fmt::format("SELECT length(data) FROM tensor WHERE id = {}", row.id),
                             [&](auto r) { stored = !cellNull(r[0]) && cellInt(r[0]) > 0; });
        }
    std::tie(map.rows, map.cols) = view2d(dims);
    const std::int64_t stage = lastTileStage(reader);
    if (stage >= 0) map.tiles = storedTiles(reader, stage, output, dims);
    const auto errors = diffErrors(reader, stage);
    for (HeatTile& tile : map.tiles)
        if (auto it = errors.find(tile.op.id); it != errors.end()) tile.error = it->second;
    if (!stored) {
        map.note = fmt::format("output '{}' is not stored in the trace (above the run's size "
                               "limit?): per-tile errors from the diff rows only",
                               output);
    } else if (!golden) {
        map.note = "no golden: per-tile errors from validate's diff rows; load a golden .npy "
                   "for per-element errors";
    } else if (golden->numel() != actual->numel()) {
        map.note = fmt::format("golden has {} elements, output '{}' has {}: not compared",
                               golden->numel(), output, actual->numel());
    } else {
        fillElementErrors(map, *actual, *golden, maxCells);
        map.diagnosis = diagnoseOutput(reader, output, *actual, *golden);
    }
    if (!map.diagnosis) map.diagnosis = storedDiagnosis(reader, output);
    return map;
}

} // namespace pto::gui
