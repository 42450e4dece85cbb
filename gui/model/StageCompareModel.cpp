// Stage list, per-stage node list with highlights, and the node mapping between two stages.
#include "gui/model/StageCompareModel.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <set>
#include <span>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellNull;
using prof::cellText;

std::string levelName(tracedb::StageLevel level) {
    return std::string(tracedb::enumName(level));
}

/// A row of the node list from (id, kind, name, shape, space): "#3  matmul %c [64,64] L0C". The
/// program's arguments and its return (negative ids, not positions) show no id, and a name that
/// only repeats the kind is left out: it read "#-2  return return".
QString nodeText(std::span<const tracedb::SqlValue> cells) {
    const QString kind = QString::fromStdString(cellText(cells[1]));
    const std::int64_t id = cellInt(cells[0]);
    QString text = id >= 0 ? QStringLiteral("#%1  %2").arg(id).arg(kind) : kind;
    for (int c = 2; c < 5; ++c) {
        if (cellNull(cells[std::size_t(c)])) continue;
        const QString value = QString::fromStdString(cellText(cells[std::size_t(c)]));
        if (!value.isEmpty() && !(c == 2 && value == kind)) text += QLatin1Char(' ') + value;
    }
    return text;
}

} // namespace

StageMapper::StageMapper(const tracedb::TraceReader& reader, LinkResolver& links)
    : m_reader(reader), m_links(links) {
    for (const tracedb::StageRow& s : reader.stages())
        m_stages[s.id] = {s.parentStageId.value_or(-1), levelName(s.level)};
    prof::forEachRow(reader,
                     "SELECT tile_stage_id FROM instr WHERE tile_stage_id IS NOT NULL "
                     "LIMIT 1",
                     [&](auto row) { m_tileStage = cellInt(row[0]); });
}

const std::unordered_map<std::int64_t, std::int64_t>& StageMapper::parents(std::int64_t stage) {
    if (auto it = m_parents.find(stage); it != m_parents.end()) return it->second;
    auto& map = m_parents[stage];
    prof::forEachRow(m_reader,
                     fmt::format("SELECT id, parent_id FROM node WHERE stage_id = {} AND "
                                 "parent_id IS NOT NULL",
                                 stage),
                     [&](auto row) { map.emplace(cellInt(row[0]), cellInt(row[1])); });
    return map;
}

std::vector<std::int64_t> StageMapper::nodeIds(std::int64_t stage) const {
    return prof::intColumn(
        m_reader, fmt::format("SELECT id FROM node WHERE stage_id = {} ORDER BY id", stage));
}

bool StageMapper::isAncestor(std::int64_t ancestor, std::int64_t stage) const {
    for (std::size_t steps = 0; steps <= m_stages.size(); ++steps) {
        const auto it = m_stages.find(stage);
        if (it == m_stages.end() || it->second.parent < 0) return false;
        stage = it->second.parent;
        if (stage == ancestor) return true;
    }
    return false;
}

bool StageMapper::isLowLevel(std::int64_t stage) const {
    const auto it = m_stages.find(stage);
    return it != m_stages.end() && it->second.level != "tensor" && it->second.level != "tile";
}

std::optional<std::int64_t> StageMapper::ancestorIn(std::int64_t stage, std::int64_t node,
                                                    std::int64_t ancestor) {
    for (std::size_t steps = 0; stage != ancestor && steps <= m_stages.size(); ++steps) {
        const auto& map = parents(stage);
        const auto it = map.find(node);
        if (it == map.end()) return std::nullopt;
        node = it->second;
        stage = m_stages[stage].parent;
    }
    if (stage != ancestor) return std::nullopt;
    return node;
}

std::vector<std::int64_t> StageMapper::descendantsIn(std::int64_t stage, std::int64_t node,
                                                     std::int64_t descendant) {
    std::vector<std::int64_t> ids;
    for (std::int64_t id : nodeIds(descendant))
        if (ancestorIn(descendant, id, stage) == node) ids.push_back(id);
    return ids;
}

const prof::KernelLaunches& StageMapper::launches() {
    if (!m_launches) m_launches = prof::KernelLaunches::load(m_reader);
    return *m_launches;
}

// Instructions name kernels (PTO stage ids), which are the block functions' ids only while no
// kernel text is shared: a block maps to the kernel compiled from it, if any (KernelLaunches.h).
std::vector<std::int64_t> StageMapper::toTileStage(std::int64_t stage, std::int64_t node) {
    if (!isLowLevel(stage)) return map(stage, node, m_tileStage);
    std::int64_t block = node;
    if (m_stages[stage].level == "exec") {
        const auto& map = parents(stage);
        const auto it = map.find(node);
        if (it == map.end()) return {};
        block = it->second;
    }
    const std::int64_t kernel =
        m_stages[stage].level == "pto" ? node : launches().kernelOfBlock(block);
    if (kernel < 0) return {};
    return prof::intColumn(m_reader,
                           fmt::format("SELECT DISTINCT tile_op_id FROM instr WHERE block_id = {} "
                                       "AND tile_op_id IS NOT NULL ORDER BY tile_op_id",
                                       kernel));
}

std::vector<std::int64_t> StageMapper::fromTileStage(std::span<const std::int64_t> tileOps,
                                                     std::int64_t toStage) {
    std::set<std::int64_t> out;
    if (!isLowLevel(toStage)) {
        for (std::int64_t op : tileOps)
            for (std::int64_t id : map(m_tileStage, op, toStage)) out.insert(id);
        return {out.begin(), out.end()};
    }
    std::set<std::int64_t> kernels, blocks;
    for (std::int64_t op : tileOps)
        for (std::int64_t k : m_links.blocksOfTileOp(m_tileStage, op)) kernels.insert(k);
    if (m_stages[toStage].level == "pto") return {kernels.begin(), kernels.end()};
    for (std::int64_t k : kernels) blocks.insert(launches().blockOfKernel(k));
    if (m_stages[toStage].level != "exec") return {blocks.begin(), blocks.end()};
    for (const auto& [task, block] : parents(toStage))
        if (blocks.count(block)) out.insert(task);
    return {out.begin(), out.end()};
}

std::vector<std::int64_t> StageMapper::map(std::int64_t fromStage, std::int64_t node,
                                           std::int64_t toStage) {
    if (fromStage == toStage) return {node};
    if (!isLowLevel(fromStage) && !isLowLevel(toStage)) {
        if (isAncestor(toStage, fromStage)) {
            if (auto up = ancestorIn(fromStage, node, toStage)) return {*up};
        } else if (isAncestor(fromStage, toStage)) {
            auto down = descendantsIn(fromStage, node, toStage);
            if (!down.empty()) return down;
        }
        const std::int64_t op = m_links.tensorOpOfNode(fromStage, node);
        return op == -1 ? std::vector<std::int64_t>{} : m_links.nodesOf(op, toStage);
    }
    if (m_tileStage < 0) return {};
    // Through the tile ops: block functions keep their ids from the Block stages to the PTO
    // kernels (the instructions' block_id); tasks name theirs through parent_id.
    const std::vector<std::int64_t> ops = toTileStage(fromStage, node);
    return fromTileStage(ops, toStage);
}

namespace {

/// The node (of a Tile stage, or any stage) a selection stands for, or none.
NodeKey sourceOf(const EntityRef& ref, LinkResolver& links) {
    if (ref.kind == EntityRef::Kind::Node) return {ref.stageId, ref.id};
    if (ref.kind != EntityRef::Kind::Instr && ref.kind != EntityRef::Kind::Slice) return {};
    const std::int64_t instr =
        ref.kind == EntityRef::Kind::Instr ? ref.id : links.instrOfSlice(ref.id);
    return instr >= 0 ? links.tileOpOfInstr(instr) : NodeKey{};
}

} // namespace

StageSides readStageSides(const StageSidesRequest& request, const tracedb::TraceReader& reader,
                          LinkResolver& links, StageMapper& mapper, CancelToken& token) {
    StageSides sides;
    const NodeKey source = sourceOf(request.selection, links);
    for (std::size_t side = 0; side < 2; ++side) {
        const std::int64_t stage = request.stages[side];
        if (stage < 0) continue;
        if (request.readIds[side]) sides.ids[side] = StageNodeListModel::readIds(reader, stage);
        if (source.stageId >= 0) {
            const std::vector<std::int64_t> ids = mapper.map(source.stageId, source.id, stage);
            sides.highlighted[side] = {ids.begin(), ids.end()};
            if (!ids.empty()) sides.firstHighlighted[side] = ids.front();
        }
        token.check();
    }
    return sides;
}

StageListModel::StageListModel(QObject* parent) : QAbstractListModel(parent) {}

void StageListModel::load(const tracedb::TraceReader* reader) {
    beginResetModel();
    m_rows.clear();
    if (reader)
        for (const tracedb::StageRow& s : reader->stages())
            // Numbered by stage id, as the SQL console (stage.id, node.stage_id) and
            // `file#node=STAGE/ID` references number them; the order was shown (one less).
            m_rows.push_back(
                {s.id, QStringLiteral("%1 %2 (%3)")
                           .arg(s.id)
                           .arg(QString::fromStdString(s.pass.empty() ? s.name : s.pass))
                           .arg(QString::fromStdString(levelName(s.level)))});
    endResetModel();
}

std::int64_t StageListModel::stageAt(int row) const {
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].id : -1;
}

int StageListModel::rowOf(std::int64_t stageId) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == stageId) return static_cast<int>(i);
    return -1;
}

int StageListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

QVariant StageListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) return row.text;
    if (role == Qt::UserRole) return QVariant::fromValue<qlonglong>(row.id);
    return {};
}

StageNodeListModel::StageNodeListModel(QObject* parent) : QAbstractListModel(parent) {}

std::vector<std::int64_t> StageNodeListModel::readIds(const tracedb::TraceReader& reader,
                                                      std::int64_t stageId) {
    return prof::intColumn(
        reader, fmt::format("SELECT id FROM node WHERE stage_id = {} ORDER BY id", stageId));
}

void StageNodeListModel::load(const tracedb::TraceReader* reader, std::int64_t stageId) {
    setNodes(reader, stageId, reader ? readIds(*reader, stageId) : std::vector<std::int64_t>{});
}

void StageNodeListModel::setNodes(const tracedb::TraceReader* reader, std::int64_t stageId,
                                  std::vector<std::int64_t> ids) {
    beginResetModel();
    m_reader = reader;
    m_stageId = stageId;
    m_ids = std::move(ids);
    m_text.clear();
    m_highlighted.clear();
    endResetModel();
}

const QString& StageNodeListModel::textAt(int row) const {
    const int block = row / kTextBlock;
    auto it = m_text.find(block);
    if (it == m_text.end()) {
        const std::size_t first = std::size_t(block) * kTextBlock;
        const std::size_t last = std::min(m_ids.size(), first + kTextBlock) - 1;
        std::vector<QString> texts;
        texts.reserve(last - first + 1);
        prof::forEachRow(*m_reader,
                         fmt::format("SELECT id, kind, name, shape, space FROM node WHERE "
                                     "stage_id = {} AND id BETWEEN {} AND {} ORDER BY id",
                                     m_stageId, m_ids[first], m_ids[last]),
                         [&](auto cells) { texts.push_back(nodeText(cells)); });
        texts.resize(last - first + 1); // never short, even if the file changed under us
        it = m_text.emplace(block, std::move(texts)).first;
    }
    return it->second[std::size_t(row % kTextBlock)];
}

std::int64_t StageNodeListModel::nodeAt(int row) const {
    return row >= 0 && row < rowCount() ? m_ids[static_cast<std::size_t>(row)] : -1;
}

int StageNodeListModel::rowOf(std::int64_t nodeId) const {
    const auto it = std::lower_bound(m_ids.begin(), m_ids.end(), nodeId);
    return it == m_ids.end() || *it != nodeId ? -1 : static_cast<int>(it - m_ids.begin());
}

void StageNodeListModel::setHighlighted(std::unordered_set<std::int64_t> next) {
    if (next == m_highlighted) return;
    m_highlighted = std::move(next);
    if (!m_ids.empty())
        emit dataChanged(index(0), index(rowCount() - 1), {HighlightRole, Qt::BackgroundRole});
}

int StageNodeListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_ids.size());
}

QVariant StageNodeListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const std::int64_t id = m_ids[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return textAt(index.row());
    case Qt::UserRole:
        return QVariant::fromValue<qlonglong>(id);
    case HighlightRole:
        return m_highlighted.count(id) > 0;
    case Qt::BackgroundRole:
        return m_highlighted.count(id) ? QVariant(QBrush(QColor(255, 214, 102))) : QVariant();
    default:
        return {};
    }
}

} // namespace pto::gui
