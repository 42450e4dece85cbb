// Help→Keyboard shortcuts: a table of every action that has a shortcut.
#pragma once

#include <QDialog>

#include <utility>
#include <vector>

class QTableWidget;

namespace pto::gui {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const std::vector<std::pair<QString, QString>>& shortcuts, QWidget* parent);
    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

} // namespace pto::gui
