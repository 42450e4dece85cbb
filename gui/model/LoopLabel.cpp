// Loop name and iteration of an unrolled op, from its trace attrs (see LoopLabel.h).
#include "gui/model/LoopLabel.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace pto::gui {

std::string loopLabel(std::string_view attrsJson) {
    if (attrsJson.find("\"loop\"") == std::string_view::npos) return {};
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray(attrsJson.data(), static_cast<qsizetype>(attrsJson.size())));
    const QJsonObject attrs = doc.object();
    const QString loop = attrs.value(QStringLiteral("loop")).toString();
    if (loop.isEmpty()) return {};
    QStringList iters;
    for (const QJsonValue& v : attrs.value(QStringLiteral("iter")).toArray())
        iters << QString::number(v.toInteger());
    if (iters.isEmpty()) return loop.toStdString();
    return QStringLiteral("%1, iter %2").arg(loop, iters.join(QLatin1Char('/'))).toStdString();
}

} // namespace pto::gui
