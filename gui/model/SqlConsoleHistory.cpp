// Persistent, navigable history of SQL console queries.
#include "gui/model/SqlConsoleHistory.h"

#include <QSettings>

namespace pto::gui {
namespace {
const char* const kKey = "sqlConsole/history";
}

SqlConsoleHistory::SqlConsoleHistory()
    : m_entries(QSettings().value(kKey).toStringList()), m_cursor(int(m_entries.size())) {}

void SqlConsoleHistory::add(const QString& sql) {
    const QString text = sql.trimmed();
    // Re-read so two consoles (or two windows) do not drop each other's entries.
    m_entries = QSettings().value(kKey).toStringList();
    if (!text.isEmpty() && (m_entries.isEmpty() || m_entries.last() != text)) m_entries << text;
    while (m_entries.size() > kMax) m_entries.removeFirst();
    QSettings().setValue(kKey, m_entries);
    m_cursor = int(m_entries.size());
    m_draft.clear();
}

QString SqlConsoleHistory::older(const QString& current) {
    if (m_entries.isEmpty()) return current;
    if (m_cursor == int(m_entries.size())) m_draft = current;
    if (m_cursor > 0) --m_cursor;
    return m_entries[m_cursor];
}

QString SqlConsoleHistory::newer() {
    if (m_cursor >= int(m_entries.size())) return m_draft;
    ++m_cursor;
    return m_cursor == int(m_entries.size()) ? m_draft : m_entries[m_cursor];
}

} // namespace pto::gui
