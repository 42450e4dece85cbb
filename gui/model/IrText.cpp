// Printed IR of a stage: line ↔ entity mapping from the printed structure, pass changes by
// a line diff against the parent stage.
#include "gui/model/IrText.h"

#include "gui/model/LinkResolver.h"
#include "gui/model/PtoListing.h"
#include "gui/model/StageCompareModel.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellNull;
using prof::cellText;

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string_view firstWord(std::string_view s) {
    std::size_t end = 0;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != '{' &&
           s[end] != '(' && s[end] != ',')
        ++end;
    return s.substr(0, end);
}

/// The op mnemonic of a Tensor/Tile line: `%x = kind ...` or `kind ...`.
std::string_view mnemonicOf(std::string_view line) {
    if (!line.empty() && line.front() == '%') {
        const std::size_t eq = line.find(" = ");
        if (eq != std::string_view::npos) return firstWord(line.substr(eq + 3));
    }
    return firstWord(line);
}

bool sameIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

struct NodeInfo {
    std::string kind;
    std::string name;
};

std::unordered_map<std::int64_t, NodeInfo> nodeInfos(const tracedb::TraceReader& reader,
                                                     std::int64_t stageId) {
    std::unordered_map<std::int64_t, NodeInfo> nodes;
    prof::forEachRow(
        reader, fmt::format("SELECT id, kind, name FROM node WHERE stage_id = {}", stageId),
        [&](auto row) {
            nodes.emplace(cellInt(row[0]), NodeInfo{cellText(row[1]), cellText(row[2])});
        });
    return nodes;
}

/// `prefix N ...` → N, or nullopt.
std::optional<std::int64_t> numberAfter(std::string_view line, std::string_view prefix) {
    if (!line.starts_with(prefix)) return std::nullopt;
    const std::string_view word = firstWord(line.substr(prefix.size()));
    if (word.empty()) return std::nullopt;
    std::int64_t value = 0;
    for (char c : word) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

/// Why stage `ord` has no ir_text: the recorder's `ir_text_omitted` stats row, else a generic
/// reason.
/// A rebuilt listing shows at most this many instructions: a million lines would take the
/// editor seconds to lay out, and nobody reads them in a text view.
constexpr std::int64_t kMaxRebuiltInstrs = 200000;

std::string omittedReason(const tracedb::TraceReader& reader, std::int64_t ord,
                          const std::string& name) {
    std::string reason;
    prof::forEachRow(reader,
                     fmt::format("SELECT description FROM stats WHERE name = 'ir_text_omitted' "
                                 "AND idx = {} LIMIT 1",
                                 ord),
                     [&](auto row) { reason = cellText(row[0]); });
    if (!reason.empty()) return reason;
    return fmt::format("stage {} was recorded without its text (big stages are; print it with "
                       "pto compile --print-after)",
                       name);
}

} // namespace

IrText IrText::load(const tracedb::TraceReader& reader, std::int64_t stageId) {
    IrText ir;
    ir.m_stageId = stageId;
    std::string level, name;
    std::int64_t ord = -1;
    bool found = false;
    prof::forEachRow(reader,
                     fmt::format("SELECT level, parent_stage_id, ir_text, ord, name FROM stage "
                                 "WHERE id = {}",
                                 stageId),
                     [&](auto row) {
                         found = true;
                         level = cellText(row[0]);
                         ir.m_parentStageId = cellNull(row[1]) ? -1 : cellInt(row[1]);
                         ir.m_text = cellText(row[2]);
                         ord = cellInt(row[3]);
                         name = cellText(row[4]);
                     });
    if (!found) {
        ir.m_note = fmt::format("stage {} is not in the trace", stageId);
        return ir;
    }
    bool rebuilt = false;
    if (ir.m_text.empty()) {
        const std::string reason = omittedReason(reader, ord, name);
        RebuiltListing listing;
        if (level == "pto") listing = rebuildPtoListing(reader, stageId, kMaxRebuiltInstrs);
        if (listing.instructions == 0) {
            ir.m_note = reason;
            return ir;
        }
        ir.m_text = std::move(listing.text);
        ir.m_note =
            listing.instructions < listing.total
                ? fmt::format("listing rebuilt from the first {} of the {} recorded instructions "
                              "(pto compile --print-after emit-pto prints them all), without gm "
                              "declarations ({})",
                              listing.instructions, listing.total, reason)
                : fmt::format("listing rebuilt from the {} recorded instructions, without gm "
                              "declarations ({})",
                              listing.instructions, reason);
        rebuilt = true;
    }
    ir.m_refs.assign(splitLines(ir.m_text).size(), EntityRef{});
    ir.mapLines(reader, level, rebuilt ? kMaxRebuiltInstrs : -1);
    if (rebuilt) return ir; // the parent stage has no text either: nothing to diff against
    std::string parentText;
    if (ir.m_parentStageId >= 0)
        prof::forEachRow(reader,
                         fmt::format("SELECT ir_text FROM stage WHERE id = {}", ir.m_parentStageId),
                         [&](auto row) { parentText = cellText(row[0]); });
    // A parent too large to store its text: diffing against nothing would mark every line.
    if (ir.m_parentStageId < 0 || !parentText.empty()) ir.diffWithParent(parentText);
    return ir;
}

void IrText::mapLines(const tracedb::TraceReader& reader, const std::string& level,
                      std::int64_t maxInstrs) {
    const std::vector<std::string_view> lines = splitLines(m_text);
    const auto nodes = nodeInfos(reader, m_stageId);
    std::vector<std::pair<std::int64_t, std::string>> instrs; // (id, opcode) in order
    if (level == "pto")
        prof::forEachRow(reader,
                         fmt::format("SELECT id, opcode FROM instr WHERE stage_id = {} ORDER BY "
                                     "id LIMIT {}",
                                     m_stageId, maxInstrs),
                         [&](auto row) { instrs.emplace_back(cellInt(row[0]), cellText(row[1])); });
    const auto args = std::count_if(nodes.begin(), nodes.end(),
                                    [](const auto& n) { return n.second.kind == "arg"; });
    std::unordered_map<std::string, std::int64_t> kernels;
    for (const auto& [id, node] : nodes)
        if (node.kind == "kernel") kernels.emplace(node.name, id);
    bool inBody = false;
    // Inside an op's region (a loop's body in the parsed program, which records the loop as its
    // `for` op only): the lines are no nodes of the stage, they belong to that op.
    int regionDepth = 0;
    std::int64_t regionOp = -1;
    std::int64_t nextOp = 0;
    std::size_t nextInstr = 0;
    std::size_t checked = 0;
    auto link = [&](std::size_t line, std::int64_t id, std::string_view kind) {
        const auto it = nodes.find(id);
        if (it == nodes.end() || it->second.kind != kind) return false;
        m_refs[line] = EntityRef::node(m_stageId, id);
        ++checked;
        return true;
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = trim(lines[i]);
        bool ok = true;
        if (level == "tensor" || level == "tile") {
            if (line.starts_with("func ")) {
                inBody = true;
                nextOp = 0;
                regionDepth = 0;
            } else if (inBody && regionDepth > 0) {
                regionDepth += (line.ends_with("{") ? 1 : 0) - (line.starts_with("}") ? 1 : 0);
                m_refs[i] = EntityRef::node(m_stageId, regionOp);
            } else if (line == "}") {
                inBody = false;
            } else if (inBody && !line.empty()) {
                const std::string_view kind = mnemonicOf(line);
                ok = kind == "return" ? link(i, -(args + 1), kind) : link(i, nextOp++, kind);
                if (ok && line.ends_with("{")) {
                    regionDepth = 1;
                    regionOp = nextOp - 1;
                }
            }
        } else if (level == "block") {
            if (auto id = numberAfter(line, "block ")) ok = link(i, *id, "block_fn");
        } else if (level == "exec") {
            if (auto id = numberAfter(line, "task ")) ok = link(i, *id, "task");
        } else if (level == "pto") {
            if (line.starts_with("kernel @")) {
                const auto it = kernels.find(std::string(firstWord(line.substr(8))));
                ok = it != kernels.end() && link(i, it->second, "kernel");
                inBody = true;
            } else if (line == "}") {
                inBody = false;
            } else if (inBody && !line.empty()) {
                const std::string_view rest = trim(line.substr(firstWord(line).size()));
                ok = nextInstr < instrs.size() &&
                     sameIgnoringCase(firstWord(rest), instrs[nextInstr].second);
                if (ok) {
                    m_refs[i] = EntityRef::instr(instrs[nextInstr++].first);
                    ++checked;
                }
            }
        }
        if (!ok) {
            m_refs.assign(lines.size(), EntityRef{});
            m_note = fmt::format("line {} ('{}') does not match the recorded nodes of stage {}; "
                                 "lines are not linked",
                                 i + 1, line.substr(0, 60), m_stageId);
            return;
        }
    }
    m_mapped = checked > 0;
}

void IrText::diffWithParent(const std::string& parentText) {
    if (m_parentStageId < 0) return; // the parsed program: no pass, nothing changed
    m_diffed = true;
    const LineDiff diff = diffLines(splitLines(parentText), splitLines(m_text));
    for (std::size_t i = 0; i < diff.added.size(); ++i)
        if (diff.added[i]) m_changed.push_back(static_cast<int>(i));
    m_removed = diff.removedCount();
    m_approximate = diff.approximate;
}

const EntityRef& IrText::entityAt(std::size_t line) const {
    static const EntityRef kNone;
    return line < m_refs.size() ? m_refs[line] : kNone;
}

std::vector<int> IrText::linesOf(const EntityRef& ref, LinkResolver& links,
                                 StageMapper& mapper) const {
    std::vector<int> lines;
    auto collect = [&](auto&& matches) {
        for (std::size_t i = 0; i < m_refs.size(); ++i)
            if (matches(m_refs[i])) lines.push_back(static_cast<int>(i));
    };
    if (ref.isNone() || m_refs.empty()) return lines;
    collect([&](const EntityRef& r) { return r == ref; });
    if (!lines.empty()) return lines;
    EntityRef source = ref;
    if (source.kind == EntityRef::Kind::Slice)
        source = EntityRef::instr(links.instrOfSlice(source.id));
    if (source.kind == EntityRef::Kind::Instr) {
        collect([&](const EntityRef& r) { return r == source; });
        if (!lines.empty()) return lines;
        const NodeKey tile = links.tileOpOfInstr(source.id);
        if (!tile.valid()) return lines;
        source = EntityRef::node(tile.stageId, tile.id);
    }
    if (source.kind != EntityRef::Kind::Node) return lines;
    const bool listing = std::any_of(m_refs.begin(), m_refs.end(), [](const EntityRef& r) {
        return r.kind == EntityRef::Kind::Instr;
    });
    if (listing && mapper.tileStage() >= 0) {
        std::unordered_set<std::int64_t> instrs;
        for (std::int64_t op : mapper.map(source.stageId, source.id, mapper.tileStage()))
            for (std::int64_t i : links.instrsOfTileOp(mapper.tileStage(), op)) instrs.insert(i);
        collect([&](const EntityRef& r) {
            return r.kind == EntityRef::Kind::Instr && instrs.count(r.id) > 0;
        });
        return lines;
    }
    const std::vector<std::int64_t> nodes = mapper.map(source.stageId, source.id, m_stageId);
    const std::unordered_set<std::int64_t> nodeSet(nodes.begin(), nodes.end());
    collect([&](const EntityRef& r) {
        return r.kind == EntityRef::Kind::Node && r.stageId == m_stageId && nodeSet.count(r.id);
    });
    return lines;
}

std::int64_t sourceLineOf(const tracedb::TraceReader& reader, const EntityRef& ref) {
    std::string sql;
    switch (ref.kind) {
    case EntityRef::Kind::Node:
        sql = fmt::format("SELECT src_line FROM node WHERE stage_id = {} AND id = {}", ref.stageId,
                          ref.id);
        break;
    case EntityRef::Kind::Instr:
        sql = fmt::format("SELECT src_line FROM instr WHERE id = {}", ref.id);
        break;
    case EntityRef::Kind::Slice:
        sql = fmt::format("SELECT i.src_line FROM slice s JOIN instr i ON i.id = s.instr_id "
                          "WHERE s.id = {}",
                          ref.id);
        break;
    default:
        return 0;
    }
    std::int64_t line = 0;
    prof::forEachRow(reader, sql, [&](auto row) { line = cellNull(row[0]) ? 0 : cellInt(row[0]); });
    return line;
}

} // namespace pto::gui
