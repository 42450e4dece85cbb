// Pieces of the bottleneck view: the heat-map cell delegate and a sortable table factory.
#pragma once

#include <QStyledItemDelegate>

class QAbstractItemModel;
class QTableView;

namespace pto::gui {

/// Fills a cell whose `ratioRole` holds a ratio with theme::heatColor and writes its text in
/// black or white, whichever reads on that colour.
class HeatDelegate : public QStyledItemDelegate {
public:
    HeatDelegate(int ratioRole, QObject* parent) : QStyledItemDelegate(parent), m_role(ratioRole) {}
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

private:
    int m_role;
};

/// A read-only, row-selecting table over `model` through a QSortFilterProxyModel sorting by
/// `sortRole`; clicked() gives proxy indexes (map with sourceRow()).
QTableView* makeSortedTable(QAbstractItemModel* model, int sortRole, QWidget* parent);
/// The source row of a proxy index of a table made by makeSortedTable.
int sourceRow(const QTableView* table, const QModelIndex& proxyIndex);
/// Selects and shows the proxy row of `sourceRow` without emitting clicks.
void showSourceRow(QTableView* table, int sourceRow);

} // namespace pto::gui
