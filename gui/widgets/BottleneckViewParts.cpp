// Heat-map delegate and sortable table helpers of the bottleneck view.
#include "gui/widgets/BottleneckViewParts.h"

#include "gui/widgets/Theme.h"

#include <QHeaderView>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace pto::gui {

void HeatDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                         const QModelIndex& index) const {
    const QVariant ratio = index.data(m_role);
    if (!ratio.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QColor fill = theme::heatColor(ratio.toDouble(), option.palette);
    painter->fillRect(option.rect, fill);
    painter->setPen(theme::textOn(fill));
    painter->drawText(option.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter,
                      index.data(Qt::DisplayRole).toString());
    if (option.state & QStyle::State_Selected) {
        painter->setPen(QPen(option.palette.color(QPalette::Highlight), 2));
        painter->drawRect(option.rect.adjusted(1, 1, -1, -1));
    }
}

QTableView* makeSortedTable(QAbstractItemModel* model, int sortRole, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(-1, Qt::AscendingOrder); // model order until the user sorts
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

int sourceRow(const QTableView* table, const QModelIndex& proxyIndex) {
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(table->model());
    return proxy->mapToSource(proxyIndex).row();
}

void showSourceRow(QTableView* table, int row) {
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(table->model());
    if (row < 0) {
        table->clearSelection();
        return;
    }
    const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(row, 0));
    table->selectRow(index.row());
    table->scrollTo(index);
}

} // namespace pto::gui
