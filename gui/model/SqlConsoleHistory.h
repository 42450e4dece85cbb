// The SQL console's query history: newest last, stepped with up/down, kept in QSettings.
#pragma once

#include <QString>
#include <QStringList>

namespace pto::gui {

/// Entries live under the settings key "sqlConsole/history" (at most kMax, no immediate
/// repeats). older()/newer() walk from the end; add() resets the walk.
class SqlConsoleHistory {
public:
    static constexpr int kMax = 200;

    SqlConsoleHistory();

    const QStringList& entries() const { return m_entries; }
    void add(const QString& sql);
    /// The previous entry (stays at the oldest); `current` is kept to come back to.
    QString older(const QString& current);
    /// The next entry, or the text being edited before the walk started.
    QString newer();

private:
    QStringList m_entries;
    int m_cursor = 0; ///< == size(): not walking
    QString m_draft;
};

} // namespace pto::gui
