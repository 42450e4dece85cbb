// Per-instruction source information for the exports (see InstrSource.h).
#include "profiler/InstrSource.h"

#include "profiler/DictCells.h"
#include "profiler/LoopLabels.h"
#include "profiler/Provenance.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <utility>

namespace pto::prof {
namespace {

std::string opText(const std::string& kind, const std::string& name) {
    return name.empty() ? kind : kind + " " + name;
}

struct OpText {
    std::string text; // "matmul %qk"
    std::string loop; // its loop label ("kv, iter 0"), if any
    bool isLoop = false;
};

// Resolves tile ops to their source, once each.
class SourceResolver {
public:
    explicit SourceResolver(const tracedb::TraceReader& reader)
        : m_reader(reader), m_provenance(reader) {
        const auto path = reader.meta("program_path");
        m_file =
            path && !path->empty() ? std::filesystem::path(*path).filename().string() : "program";
        if (m_provenance.rootStage() >= 0)
            for (const tracedb::NodeRow& n : reader.nodes(m_provenance.rootStage()))
                if (n.kind != "arg" && n.kind != "return")
                    m_rootOps[n.id] = {opText(n.kind, n.name), loopLabelOfAttrs(n.attrs),
                                       n.kind == "for"};
    }

    // The source of an instruction of tile op (stage, id) — kind, name and attrs as read —
    // at `line`.
    InstrSource resolve(std::int64_t line,
                        std::optional<std::pair<std::int64_t, std::int64_t>> tile,
                        const std::string& kind, const std::string& name,
                        const std::string& attrs) {
        InstrSource s;
        if (line > 0) {
            std::string& location = m_locations[line];
            if (location.empty()) location = fmt::format("{}:{}", m_file, line);
            s.location = location;
        }
        if (!kind.empty()) s.tileOp = opText(kind, name);
        s.loop = loopLabelOfAttrs(attrs);
        if (!tile) return s;
        const auto [stage, tileOp] = *tile;
        if (std::find(m_loaded.begin(), m_loaded.end(), stage) == m_loaded.end()) {
            m_provenance.loadAncestry(stage); // one pass per stage, not a query per op
            m_loaded.push_back(stage);
        }
        const auto root = m_provenance.findRoot(stage, tileOp);
        const auto op = root ? m_rootOps.find(*root) : m_rootOps.end();
        if (op == m_rootOps.end()) return s;
        const auto body = op->second.isLoop ? m_provenance.loopBodyOf(stage, tileOp) : std::nullopt;
        const OpText& of = body ? bodyOp(*body) : op->second;
        s.op = of.text;
        if (s.loop.empty()) s.loop = of.loop;
        return s;
    }

private:
    // The body op a copy stands for: one point query per copy met.
    const OpText& bodyOp(const NodeRef& node) {
        auto [it, fresh] = m_bodyOps.try_emplace({node.stageId, node.id});
        if (fresh)
            forEachRow(m_reader,
                       fmt::format("SELECT kind, name, attrs FROM node WHERE stage_id = {} AND "
                                   "id = {}",
                                   node.stageId, node.id),
                       [&](auto row) {
                           it->second.text = opText(cellText(row[0]), cellText(row[1]));
                           it->second.loop = loopLabelOfAttrs(cellText(row[2]));
                       });
        return it->second;
    }

    const tracedb::TraceReader& m_reader;
    ProvenanceResolver m_provenance;
    std::string m_file;
    std::map<std::int64_t, OpText> m_rootOps;
    std::map<std::pair<std::int64_t, std::int64_t>, OpText> m_bodyOps;
    std::vector<std::int64_t> m_loaded; // tile stages whose parent maps are loaded
    std::unordered_map<std::int64_t, std::string> m_locations; // line → "file.pto:line"
};

} // namespace

void InstrSources::reserveIds(std::int64_t maxId) {
    if (maxId >= 0 && maxId < (std::int64_t(1) << 26)) m_dense.assign(std::size_t(maxId) + 1, -1);
}

void InstrSources::set(std::int64_t instrId, std::int32_t index) {
    if (index >= 0) ++m_count;
    if (instrId >= 0 && std::size_t(instrId) < m_dense.size())
        m_dense[std::size_t(instrId)] = index;
    else if (index >= 0)
        m_sparse[instrId] = index;
}

std::int32_t InstrSources::add(InstrSource source) {
    m_sources.push_back(std::move(source));
    return std::int32_t(m_sources.size() - 1);
}

InstrSources loadInstrSources(const tracedb::TraceReader& reader) {
    InstrSources sources;
    std::int64_t count = 0, maxId = -1;
    forEachRow(reader, "SELECT count(*), max(id) FROM instr", [&](auto row) {
        count = cellInt(row[0]);
        maxId = cellInt(row[1], -1);
    });
    if (count == 0) return sources;
    // Dense when the ids are (simulator traces number instructions from 1).
    if (maxId <= 2 * count + 1024) sources.reserveIds(maxId);
    // The instructions in one plain scan, then the tile ops they name, read one stage at a
    // time (a scan of the stage costs less than a primary-key join per instruction).
    struct Row {
        std::int64_t id, line, stage, tileOp;
        bool hasTileOp;
    };
    struct TileOpSlot {
        std::int64_t line = 0; // src_line is copied from the tile op to its instructions
        std::int32_t index = -1;
    };
    std::vector<Row> rows;
    rows.reserve(std::size_t(count));
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, TileOpSlot>> tileOps;
    // Schema 4 keeps node text in dict: ids are read and looked up in memory.
    const bool compact = keepsTextInDict(reader);
    forEachRow(reader,
               std::string("SELECT id, src_line, tile_stage_id, tile_op_id FROM ") +
                   (compact ? "instr_data" : "instr"),
               [&](auto row) {
                   const Row r{cellInt(row[0]), cellInt(row[1]), cellInt(row[2]), cellInt(row[3]),
                               !cellNull(row[2]) && !cellNull(row[3])};
                   rows.push_back(r);
                   if (r.hasTileOp) tileOps[r.stage].try_emplace(r.tileOp, TileOpSlot{r.line});
               });
    SourceResolver resolver(reader);
    auto text = [&](const tracedb::SqlValue& cell) { return dictCellText(reader, compact, cell); };
    for (auto& [stage, ops] : tileOps) {
        forEachRow(reader,
                   fmt::format("SELECT id, {} FROM {} WHERE stage_id = {}",
                               compact ? "kind_dict, name, attrs_dict" : "kind, name, attrs",
                               compact ? "node_data" : "node", stage),
                   [&](auto row) {
                       const auto op = ops.find(cellInt(row[0]));
                       if (op == ops.end()) return;
                       op->second.index = sources.add(
                           resolver.resolve(op->second.line, std::pair(stage, op->first),
                                            text(row[1]), cellText(row[2]), text(row[3])));
                   });
        // A tile op the file does not hold (its stage recorded as a row only) keeps its line.
        for (auto& [id, slot] : ops)
            if (slot.index < 0)
                slot.index =
                    sources.add(resolver.resolve(slot.line, std::pair(stage, id), "", "", ""));
    }
    std::unordered_map<std::int64_t, std::int32_t> ofLine; // instructions without a tile op
    for (const Row& r : rows) {
        std::int32_t index = -1;
        if (r.hasTileOp) {
            index = tileOps[r.stage][r.tileOp].index;
        } else if (r.line > 0) {
            auto [it, fresh] = ofLine.try_emplace(r.line, -1);
            if (fresh) it->second = sources.add(resolver.resolve(r.line, {}, "", "", ""));
            index = it->second;
        }
        sources.set(r.id, index);
    }
    return sources;
}

} // namespace pto::prof
