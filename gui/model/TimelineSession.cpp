// Reads and writes the timeline's bookmark sidecar (JSON, version 1).
#include "gui/model/TimelineSession.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace pto::gui {
namespace {

constexpr int kVersion = 1;

QString qpath(const std::filesystem::path& p) {
    return QString::fromStdString(p.string());
}

} // namespace

std::filesystem::path sessionPath(const std::filesystem::path& trace) {
    return std::filesystem::path(trace.string() + ".session.json");
}

LoadedBookmarks loadBookmarks(const std::filesystem::path& trace) {
    LoadedBookmarks out;
    QFile file(qpath(sessionPath(trace)));
    if (!file.exists()) return out;
    const auto fail = [&](const QString& why) {
        out.bookmarks.clear();
        out.error = QStringLiteral("%1: %2").arg(file.fileName(), why);
        return out;
    };
    if (!file.open(QIODevice::ReadOnly)) return fail(file.errorString());
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(file.read(1 << 24), &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("not JSON at offset %1: %2").arg(parse.offset).arg(parse.errorString()));
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("version")).toInt() != kVersion)
        return fail(QStringLiteral("not a version %1 session file").arg(kVersion));
    for (const QJsonValue& v : root.value(QStringLiteral("bookmarks")).toArray()) {
        const QJsonObject o = v.toObject();
        if (!o.value(QStringLiteral("cycle")).isDouble())
            return fail(QStringLiteral("a bookmark without a cycle"));
        out.bookmarks.push_back({std::int64_t(o.value(QStringLiteral("cycle")).toDouble()),
                                 std::int64_t(o.value(QStringLiteral("slice")).toDouble(-1)),
                                 o.value(QStringLiteral("note")).toString()});
    }
    return out;
}

QString saveBookmarks(const std::filesystem::path& trace, const std::vector<Bookmark>& marks) {
    const QString path = qpath(sessionPath(trace));
    if (marks.empty()) {
        QFile::remove(path);
        return {};
    }
    QJsonArray list;
    for (const Bookmark& b : marks)
        list.append(QJsonObject{{QStringLiteral("cycle"), double(b.cycle)},
                                {QStringLiteral("slice"), double(b.slice)},
                                {QStringLiteral("note"), b.note}});
    const QJsonObject root{{QStringLiteral("version"), kVersion},
                           {QStringLiteral("trace"), qpath(trace.filename())},
                           {QStringLiteral("bookmarks"), list}};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0 ||
        !file.commit())
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace pto::gui
