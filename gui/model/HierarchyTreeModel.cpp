// Tree model over the graph hierarchy: rows are an item's children, ids are item indices.
#include "gui/model/HierarchyTreeModel.h"

#include "gui/model/GraphModel.h"

#include <algorithm>

namespace pto::gui {

HierarchyTreeModel::HierarchyTreeModel(GraphModel& graph, QObject* parent)
    : QAbstractItemModel(parent), m_graph(graph) {
    connect(&graph, &GraphModel::stageReset, this, [this] {
        beginResetModel();
        endResetModel();
    });
    connect(&graph, &GraphModel::visibleChanged, this, &HierarchyTreeModel::onVisibleChanged);
}

int HierarchyTreeModel::itemOf(const QModelIndex& index) const {
    return index.isValid() ? int(index.internalId()) : 0;
}

QModelIndex HierarchyTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!m_graph.hasStage() || row < 0 || column < 0 || column >= 2) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const auto& children = m_graph.hierarchy().item(itemOf(parent)).children;
    if (std::size_t(row) >= children.size()) return {};
    return createIndex(row, column, quintptr(children[std::size_t(row)]));
}

QModelIndex HierarchyTreeModel::indexOfItem(int item) const {
    if (!m_graph.hasStage() || item <= 0) return {};
    const auto& h = m_graph.hierarchy();
    const auto& siblings = h.item(h.item(item).parent).children;
    const auto row = std::find(siblings.begin(), siblings.end(), item) - siblings.begin();
    return createIndex(int(row), 0, quintptr(item));
}

QModelIndex HierarchyTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || !m_graph.hasStage()) return {};
    return indexOfItem(m_graph.hierarchy().item(itemOf(child)).parent);
}

int HierarchyTreeModel::rowCount(const QModelIndex& parent) const {
    if (!m_graph.hasStage() || (parent.isValid() && parent.column() != 0)) return 0;
    return int(m_graph.hierarchy().item(itemOf(parent)).children.size());
}

int HierarchyTreeModel::columnCount(const QModelIndex&) const {
    return 2;
}

QVariant HierarchyTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_graph.hasStage()) return {};
    const int id = itemOf(index);
    const HierarchyItem& item = m_graph.hierarchy().item(id);
    if (role == ItemRole) return id;
    if (role == Qt::DisplayRole && index.column() == 0)
        return QString::fromStdString(m_graph.hierarchy().displayLabel(m_graph.stage(), id));
    if (role == Qt::DisplayRole && index.column() == 1) return item.leafCount();
    if (role == Qt::CheckStateRole && index.column() == 0 && item.isGroup())
        return m_graph.isExpanded(id) ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::TextAlignmentRole && index.column() == 1)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool HierarchyTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::CheckStateRole || index.column() != 0) return false;
    const int id = itemOf(index);
    if (!m_graph.hierarchy().item(id).isGroup()) return false;
    m_graph.setExpanded(id, value.toInt() == Qt::Checked);
    return true;
}

Qt::ItemFlags HierarchyTreeModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == 0 && m_graph.hierarchy().item(itemOf(index)).isGroup())
        f |= Qt::ItemIsUserCheckable;
    if (rowCount(index) == 0) f |= Qt::ItemNeverHasChildren;
    return f;
}

QVariant HierarchyTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == 0 ? tr("Item") : tr("Nodes");
}

void HierarchyTreeModel::onVisibleChanged(int item) {
    if (item <= 0) { // many groups may have changed (reveal, collapse all, mode)
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, 0), {Qt::CheckStateRole});
        return;
    }
    const QModelIndex changed = indexOfItem(item);
    emit dataChanged(changed, changed, {Qt::CheckStateRole});
}

} // namespace pto::gui
