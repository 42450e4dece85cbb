// Recent files of pto-studio, stored under the "recentFiles" settings key.
#include "gui/app/RecentFiles.h"

#include <QFileInfo>
#include <QSettings>
#include <QThreadPool>

namespace pto::gui {
namespace {
const char* const kKey = "recentFiles";
}

RecentFiles::RecentFiles()
    : m_files(QSettings().value(kKey).toStringList()), m_writer(std::make_unique<QThreadPool>()) {
    m_writer->setMaxThreadCount(1); // one writer: the changes reach the file in order
}

RecentFiles::~RecentFiles() {
    waitForWrites();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_files.removeAll(absolute);
    m_files.prepend(absolute);
    while (m_files.size() > kMaxFiles) m_files.removeLast();
    store();
}

void RecentFiles::remove(const QString& path) {
    m_files.removeAll(QFileInfo(path).absoluteFilePath());
    store();
}

void RecentFiles::waitForWrites() {
    m_writer->waitForDone();
}

void RecentFiles::store() {
    // QSettings is reentrant: a QSettings of the writer thread's own may write the same file.
    m_writer->start([list = m_files] { QSettings().setValue(kKey, list); });
}

} // namespace pto::gui
