// The hierarchy of the graph view's stage as a Qt tree model: groups and nodes, with the
// graph's expanded state as a check box on every group.
#pragma once

#include <QAbstractItemModel>

namespace pto::gui {

class GraphModel;

/// Columns: name, number of nodes under the item. Item ids are hierarchy item indices.
/// Checking a group expands it in the graph (and the other way round).
class HierarchyTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role { ItemRole = Qt::UserRole + 1 };

    explicit HierarchyTreeModel(GraphModel& graph, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// The index of a hierarchy item (column 0); invalid for the root.
    QModelIndex indexOfItem(int item) const;

private:
    int itemOf(const QModelIndex& index) const;
    void onVisibleChanged(int item);

    GraphModel& m_graph;
};

} // namespace pto::gui
