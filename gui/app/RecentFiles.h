// The recently opened trace files, kept in QSettings.
#pragma once

#include <QStringList>

namespace pto::gui {

class RecentFiles {
public:
    static constexpr int kMaxFiles = 10;

    QStringList files() const;
    /// Moves `path` to the front (adding it if new) and keeps at most kMaxFiles.
    void add(const QString& path);
    void remove(const QString& path);
};

} // namespace pto::gui
