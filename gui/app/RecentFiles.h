// The recently opened trace files, kept in QSettings.
#pragma once

#include <QStringList>

#include <memory>

class QThreadPool;

namespace pto::gui {

/// The list lives in memory; every change is written to QSettings on a thread of its own, in
/// order, so opening a file never waits for the settings file on a busy disk (QSettings syncs
/// to disk when its object is destroyed; that took 64–144 ms on the GUI thread).
class RecentFiles {
public:
    static constexpr int kMaxFiles = 10;

    RecentFiles();
    ~RecentFiles(); // waits for the pending writes
    RecentFiles(const RecentFiles&) = delete;
    RecentFiles& operator=(const RecentFiles&) = delete;

    QStringList files() const { return m_files; }
    /// Moves `path` to the front (adding it if new) and keeps at most kMaxFiles.
    void add(const QString& path);
    void remove(const QString& path);
    /// Blocks until every change made so far is in QSettings.
    void waitForWrites();

private:
    void store();

    QStringList m_files;
    std::unique_ptr<QThreadPool> m_writer;
};

} // namespace pto::gui
