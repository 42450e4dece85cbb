// Lists (action, shortcut) pairs collected from the main window's actions.
#include "gui/app/ShortcutsDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pto::gui {

ShortcutsDialog::ShortcutsDialog(const std::vector<std::pair<QString, QString>>& shortcuts,
                                 QWidget* parent)
    : QDialog(parent), m_table(new QTableWidget(static_cast<int>(shortcuts.size()), 2, this)) {
    setWindowTitle(tr("Keyboard shortcuts"));
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int row = 0; row < static_cast<int>(shortcuts.size()); ++row) {
        m_table->setItem(row, 0, new QTableWidgetItem(shortcuts[std::size_t(row)].first));
        m_table->setItem(row, 1, new QTableWidgetItem(shortcuts[std::size_t(row)].second));
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(480, 420);
}

} // namespace pto::gui
