// Loads one stage's nodes, edges and group names from a trace file (two connections in parallel).
#include "gui/model/GraphStage.h"

#include "gui/model/CancelToken.h"
#include "gui/model/LoopLabel.h"
#include "profiler/DictCells.h"
#include "profiler/Provenance.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <future>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellNull;
using prof::cellText;

std::int64_t intOr(const tracedb::SqlValue& v) {
    return cellNull(v) ? -1 : cellInt(v);
}

struct RawEdge {
    std::int64_t src = 0, dst = 0;
    std::string label;
};

/// What the second connection reads: edges and the block function of each op.
struct SideData {
    std::vector<RawEdge> edges;
    std::unordered_map<std::int64_t, std::int64_t> blockOf;
};

class Interner {
public:
    explicit Interner(std::vector<std::string>& strings) : m_strings(strings) {}
    std::uint16_t operator()(const tracedb::SqlValue& v) {
        if (cellNull(v)) return 0;
        std::string s = cellText(v);
        if (auto it = m_index.find(s); it != m_index.end()) return it->second;
        if (m_strings.size() > 0xFFFF) return 0; // absurdly many distinct texts: drop the rest
        const auto id = static_cast<std::uint16_t>(m_strings.size());
        m_index.emplace(s, id);
        m_strings.push_back(std::move(s));
        return id;
    }

private:
    std::vector<std::string>& m_strings;
    std::unordered_map<std::string, std::uint16_t> m_index;
};

// The operand position of the index tensor of an indexing op (gather, scatter_add: the second;
// tscatter_add: the third), or -1.
int indexOperand(std::string_view kind) {
    if (kind == "gather" || kind == "scatter_add") return 1;
    if (kind == "tscatter_add") return 2;
    return -1;
}

// An indexing op's index operand: its edge is labelled "index …" so the graph shows which
// value selects the rows (edges come in operand order).
void markIndexEdges(GraphStage& g) {
    std::unordered_map<int, int> inputsSeen;
    for (GraphEdge& e : g.edges) {
        const int index = indexOperand(g.text(g.nodes[std::size_t(e.dst)].kind));
        if (index >= 0 && inputsSeen[e.dst]++ == index) e.label = "index " + e.label;
    }
}

// A tile op of a counted loop's later round has no instruction of its own (the loop's
// instructions name round 0's tile ops), so no block from the instr table: it takes the block
// of the ops it exchanges on-chip values with, since partition-blocks puts a whole on-chip
// dataflow component into one block (values cross blocks only through GM).
void inferBlocksOfLoopRounds(GraphStage& g) {
    std::vector<std::vector<int>> neighbours(g.nodes.size());
    for (const GraphEdge& e : g.edges) {
        const GraphNode& src = g.nodes[std::size_t(e.src)];
        if (!src.space || g.text(src.space) == "GM") continue; // the value is not on chip
        neighbours[std::size_t(e.src)].push_back(e.dst);
        neighbours[std::size_t(e.dst)].push_back(e.src);
    }
    std::deque<int> queue;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].blockId >= 0) queue.push_back(int(i));
    while (!queue.empty()) {
        const int at = queue.front();
        queue.pop_front();
        for (int next : neighbours[std::size_t(at)]) {
            GraphNode& n = g.nodes[std::size_t(next)];
            if (n.blockId >= 0) continue;
            n.blockId = g.nodes[std::size_t(at)].blockId;
            queue.push_back(next);
        }
    }
}

SideData readSide(const tracedb::TraceReader& reader, std::int64_t stageId) {
    SideData side;
    prof::forEachRow(reader,
                     fmt::format("SELECT src, dst, label FROM edge WHERE stage_id = {}", stageId),
                     [&](auto row) {
                         side.edges.push_back({cellInt(row[0]), cellInt(row[1]), cellText(row[2])});
                     });
    prof::forEachRow(reader,
                     fmt::format("SELECT tile_op_id, min(block_id) FROM instr WHERE "
                                 "tile_stage_id = {} AND tile_op_id IS NOT NULL GROUP BY "
                                 "tile_op_id",
                                 stageId),
                     [&](auto row) { side.blockOf.emplace(cellInt(row[0]), cellInt(row[1])); });
    return side;
}

// Node columns of a file of schema 4 as dict ids, read through `text` (see readNodes).
constexpr std::string_view kCompactNodeColumns =
    "id, kind_dict, name, dtype_dict, shape_dict, space_dict, core_dict, pipe_dict, group_id, "
    "parent_id, src_line, attrs_dict FROM node_data";
constexpr std::string_view kNodeColumns = "id, kind, name, dtype, shape, space, core, pipe, "
                                          "group_id, parent_id, src_line, attrs FROM node";

void readNodes(const tracedb::TraceReader& reader, GraphStage& g) {
    Interner intern(g.strings);
    // A file of schema 4 stores the repeated text once (table dict): each distinct id is
    // interned and its loop label parsed once, without the view's lookup on every row.
    const bool compact = prof::keepsTextInDict(reader);
    const tracedb::DictText& dict = reader.dict();
    std::unordered_map<std::int64_t, std::uint16_t> internedOf; // dict id → interned text
    auto internText = [&](const tracedb::SqlValue& cell) -> std::uint16_t {
        if (!compact || cellNull(cell)) return intern(cell);
        auto [it, added] = internedOf.try_emplace(cellInt(cell));
        if (added) it->second = intern(tracedb::SqlValue(tracedb::dictText(dict, cellInt(cell))));
        return it->second;
    };
    auto label = [&](const std::string& attrs) -> std::uint16_t {
        std::string l = loopLabel(attrs);
        return l.empty() ? 0 : intern(tracedb::SqlValue(std::move(l)));
    };
    std::unordered_map<std::int64_t, std::uint16_t> loopOf; // attrs dict id → interned label
    auto loop = [&](const tracedb::SqlValue& attrs) -> std::uint16_t {
        if (cellNull(attrs)) return 0;
        if (!compact) return label(cellText(attrs));
        auto [it, added] = loopOf.try_emplace(cellInt(attrs));
        if (added) it->second = label(tracedb::dictText(dict, cellInt(attrs)));
        return it->second;
    };
    prof::forEachRow(reader,
                     fmt::format("SELECT {} WHERE stage_id = {} ORDER BY id",
                                 compact ? kCompactNodeColumns : kNodeColumns, g.stage.id),
                     [&](auto row) {
                         GraphNode n;
                         n.id = cellInt(row[0]);
                         n.kind = internText(row[1]);
                         n.name = cellText(row[2]);
                         n.dtype = internText(row[3]);
                         n.shape = internText(row[4]);
                         n.space = internText(row[5]);
                         n.core = internText(row[6]);
                         n.pipe = internText(row[7]);
                         n.groupId = intOr(row[8]);
                         n.parentId = intOr(row[9]);
                         n.srcLine = intOr(row[10]);
                         if (std::uint16_t l = loop(row[11]); l != 0) n.loop = l;
                         g.indexOfId.emplace(n.id, int(g.nodes.size()));
                         g.nodes.push_back(std::move(n));
                     });
}

void readNames(const tracedb::TraceReader& reader, GraphStage& g) {
    if (g.stage.level == tracedb::StageLevel::Tile) {
        // Tile ops → the Tensor op of the parsed program, through every recorded stage.
        prof::ProvenanceResolver provenance(reader);
        for (auto& n : g.nodes) n.rootOp = provenance.rootOf(g.stage.id, n.id);
        if (provenance.rootStage() >= 0)
            prof::forEachRow(reader,
                             fmt::format("SELECT id, kind, name, src_line FROM node WHERE "
                                         "stage_id = {}",
                                         provenance.rootStage()),
                             [&](auto row) {
                                 g.rootNames[cellInt(row[0])] = {cellText(row[1]), cellText(row[2]),
                                                                 intOr(row[3])};
                             });
    }
    // Block functions as the PTO stage names them (its kernel ids are the block ids).
    prof::forEachRow(reader,
                     "SELECT id, name FROM node WHERE stage_id = (SELECT stage_id FROM instr "
                     "LIMIT 1)",
                     [&](auto row) { g.blockNames[cellInt(row[0])] = cellText(row[1]); });
}

} // namespace

GraphStage loadGraphStage(const tracedb::TraceReader& reader, std::int64_t stageId,
                          CancelToken* cancel) {
    CancelToken none;
    CancelToken& token = cancel ? *cancel : none;
    const auto watch = token.watch(reader);
    GraphStage g;
    bool found = false;
    for (auto& s : reader.stages())
        if (s.id == stageId) {
            g.stage = std::move(s);
            found = true;
        }
    if (!found)
        throw std::invalid_argument(
            fmt::format("no stage {} in '{}'", stageId, reader.path().string()));
    const auto sideReader = tracedb::TraceReader::open(reader.path());
    const auto sideWatch = token.watch(sideReader);
    auto side = std::async(std::launch::async, [&] { return readSide(sideReader, stageId); });
    try {
        readNodes(reader, g);
        readNames(reader, g);
    } catch (...) {
        // Do not wait for a side read that may never end (a hostile file): stop it first.
        while (side.wait_for(std::chrono::milliseconds(2)) != std::future_status::ready)
            sideReader.interrupt();
        throw;
    }
    SideData data = side.get();
    g.recorded = !g.nodes.empty();
    for (auto& n : g.nodes)
        if (auto it = data.blockOf.find(n.id); it != data.blockOf.end()) n.blockId = it->second;
    g.edges.reserve(data.edges.size());
    for (auto& e : data.edges) {
        const int src = g.indexOf(e.src), dst = g.indexOf(e.dst);
        if (src >= 0 && dst >= 0) g.edges.push_back({src, dst, std::move(e.label)});
    }
    if (!data.blockOf.empty()) inferBlocksOfLoopRounds(g);
    markIndexEdges(g);
    return g;
}

std::string nodeLabel(const GraphStage& stage, const GraphNode& n) {
    const std::string& kind = stage.text(n.kind);
    std::string label = n.name.empty() || n.name == kind ? kind : n.name + " " + kind;
    std::string type;
    for (std::uint16_t part : {n.shape, n.dtype, n.space})
        if (part) type += (type.empty() ? "" : " ") + stage.text(part);
    if (!type.empty()) label += "\n" + type;
    std::string where;
    for (std::uint16_t part : {n.core, n.pipe})
        if (part) where += (where.empty() ? "" : " ") + stage.text(part);
    if (!where.empty()) label += "\n" + where;
    if (n.loop) label += "\n" + stage.text(n.loop);
    return label;
}

} // namespace pto::gui
