// Tiles of an output from a trace: tstore nodes of the last Tile stage (offset attr, stored
// tile's shape) joined with the instruction slices that ran them (core track, task slice).
#include "validate/TraceTiles.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <variant>

namespace pto {
namespace {

using tracedb::SqlValue;

int64_t intOf(const SqlValue& v, int64_t fallback = -1) {
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    return fallback;
}

std::string textOf(const SqlValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    return {};
}

template <class F>
void forEachRow(const tracedb::TraceReader& reader, const std::string& sql, F&& f) {
    reader.query(sql, [&](std::span<const std::string>, std::span<const SqlValue> row) {
        f(row);
        return true;
    });
}

std::vector<int64_t> ints(const nlohmann::json& j) {
    std::vector<int64_t> out;
    if (j.is_array())
        for (const auto& v : j)
            if (v.is_number_integer()) out.push_back(v.get<int64_t>());
    return out;
}

std::vector<int64_t> jsonInts(const std::string& text, const char* key = nullptr) {
    const nlohmann::json j = nlohmann::json::parse(text.empty() ? "null" : text, nullptr, false);
    if (!key) return ints(j);
    return j.is_object() && j.contains(key) ? ints(j[key]) : std::vector<int64_t>{};
}

int64_t tileStage(const tracedb::TraceReader& reader) {
    int64_t stage = -1;
    forEachRow(reader, "SELECT tile_stage_id FROM instr WHERE tile_stage_id IS NOT NULL LIMIT 1",
               [&](auto row) { stage = intOf(row[0]); });
    if (stage >= 0) return stage;
    for (const tracedb::StageRow& s : reader.stages())
        if (s.level == tracedb::StageLevel::Tile) stage = s.id;
    return stage;
}

struct Owner {
    int core = -1;
    std::string task;
};

/// Core and task of the first executed TSTORE of each tile op of `stage`.
std::map<int64_t, Owner> storeOwners(const tracedb::TraceReader& reader, int64_t stage) {
    std::map<int64_t, Owner> owners;
    const std::string sql = fmt::format(
        "SELECT i.tile_op_id, ct.core_id, "
        "(SELECT n.name FROM slice ts JOIN node n ON n.id = ts.task_id AND n.stage_id = "
        "(SELECT id FROM stage WHERE level = 'exec' ORDER BY ord DESC LIMIT 1) "
        "WHERE ts.track_id = ct.id AND ts.category = 'task' AND ts.ts <= s.ts "
        "AND s.ts < ts.ts + ts.dur LIMIT 1) "
        "FROM instr i JOIN slice s ON s.instr_id = i.id JOIN track pt ON pt.id = s.track_id "
        "JOIN track ct ON ct.id = pt.parent_id "
        "WHERE i.opcode = 'TSTORE' AND i.tile_stage_id = {} ORDER BY s.ts",
        stage);
    forEachRow(reader, sql, [&](auto row) {
        owners.try_emplace(intOf(row[0]), Owner{int(intOf(row[1])), textOf(row[2])});
    });
    return owners;
}

} // namespace

TileLayout traceTileLayout(const tracedb::TraceReader& reader, const std::string& name,
                           const Shape& shape) {
    TileLayout layout;
    layout.source = "trace";
    if (name.find('\'') != std::string::npos) return layout; // not a value name
    const int64_t stage = tileStage(reader);
    if (stage < 0) return layout;
    int64_t gm = -1;
    forEachRow(reader,
               fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'gm_tensor' AND "
                           "name = '%{}'",
                           stage, name),
               [&](auto row) { gm = intOf(row[0]); });
    if (gm < 0) return layout;
    const std::map<int64_t, Owner> owners = storeOwners(reader, stage);
    std::vector<int64_t> dims;
    for (int i = 0; i < shape.rank(); ++i) dims.push_back(shape[i]);
    const std::string sql = fmt::format(
        "SELECT st.id, st.attrs, src.shape FROM node st "
        "JOIN edge e1 ON e1.stage_id = st.stage_id AND e1.dst = st.id AND e1.src = {1} "
        "JOIN edge e2 ON e2.stage_id = st.stage_id AND e2.dst = st.id AND e2.src <> {1} "
        "JOIN node src ON src.stage_id = st.stage_id AND src.id = e2.src "
        "WHERE st.stage_id = {0} AND st.kind = 'tstore' ORDER BY st.id",
        stage, gm);
    forEachRow(reader, sql, [&](auto row) {
        const std::vector<int64_t> offset = jsonInts(textOf(row[1]), "offset");
        const std::vector<int64_t> tile = jsonInts(textOf(row[2]));
        if (offset.size() != dims.size() || tile.empty()) return;
        TileRegion t;
        for (size_t i = 0; i + 1 < offset.size(); ++i) t.row = t.row * dims[i] + offset[i];
        t.col = offset.back();
        t.cols = tile.back();
        t.rows = 1;
        for (size_t i = 0; i + 1 < tile.size(); ++i) t.rows *= tile[i];
        if (auto it = owners.find(intOf(row[0])); it != owners.end()) {
            t.core = it->second.core;
            t.task = it->second.task;
        }
        layout.tiles.push_back(t);
    });
    return layout;
}

} // namespace pto
