// Recent files of pto-studio, stored under the "recentFiles" settings key.
#include "gui/app/RecentFiles.h"

#include <QFileInfo>
#include <QSettings>

namespace pto::gui {
namespace {
const char* const kKey = "recentFiles";
}

QStringList RecentFiles::files() const {
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles) list.removeLast();
    QSettings().setValue(kKey, list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    QSettings().setValue(kKey, list);
}

} // namespace pto::gui
