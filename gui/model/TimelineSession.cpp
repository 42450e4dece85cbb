// Reads and writes the timeline's session sidecar (JSON, version 1: bookmarks, optional view).
#include "gui/model/TimelineSession.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>

namespace pto::gui {
namespace {

constexpr int kVersion = 1;

QString qpath(const std::filesystem::path& p) {
    return QString::fromStdString(p.string());
}

/// The "view" object; nullopt when absent or not a usable range (an older sidecar has none).
std::optional<TimelineViewState> readView(const QJsonObject& root) {
    const QJsonObject v = root.value(QStringLiteral("view")).toObject();
    const double begin = v.value(QStringLiteral("begin")).toDouble(-1);
    const double end = v.value(QStringLiteral("end")).toDouble(-1);
    if (begin < 0 || end <= begin) return std::nullopt;
    return TimelineViewState{begin, end, std::max(0, v.value(QStringLiteral("scroll_y")).toInt()),
                             std::int64_t(v.value(QStringLiteral("slice")).toDouble(-1))};
}

QJsonObject writeView(const TimelineViewState& view) {
    return {{QStringLiteral("begin"), view.begin},
            {QStringLiteral("end"), view.end},
            {QStringLiteral("scroll_y"), view.scrollY},
            {QStringLiteral("slice"), double(view.selectedSlice)}};
}

} // namespace

std::filesystem::path sessionPath(const std::filesystem::path& trace) {
    return std::filesystem::path(trace.string() + ".session.json");
}

TimelineSession loadSession(const std::filesystem::path& trace) {
    TimelineSession out;
    QFile file(qpath(sessionPath(trace)));
    if (!file.exists()) return out;
    const auto fail = [&](const QString& why) {
        out.bookmarks.clear();
        out.view.reset();
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
    out.view = readView(root);
    return out;
}

QString saveSession(const std::filesystem::path& trace, const TimelineSession& session) {
    const QString path = qpath(sessionPath(trace));
    if (session.bookmarks.empty()) {
        QFile::remove(path);
        return {};
    }
    QJsonArray list;
    for (const Bookmark& b : session.bookmarks)
        list.append(QJsonObject{{QStringLiteral("cycle"), double(b.cycle)},
                                {QStringLiteral("slice"), double(b.slice)},
                                {QStringLiteral("note"), b.note}});
    QJsonObject root{{QStringLiteral("version"), kVersion},
                     {QStringLiteral("trace"), qpath(trace.filename())},
                     {QStringLiteral("bookmarks"), list}};
    if (session.view) root.insert(QStringLiteral("view"), writeView(*session.view));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0 ||
        !file.commit())
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace pto::gui
