// Formats and parses "PATH#kind=id" references to trace entities.
#include "gui/model/EntityReference.h"

#include <QRegularExpression>

namespace pto::gui {

QString formatReference(const QString& path, const EntityRef& ref) {
    switch (ref.kind) {
    case EntityRef::Kind::Slice:
        return QStringLiteral("%1#slice=%2").arg(path).arg(ref.id);
    case EntityRef::Kind::Instr:
        return QStringLiteral("%1#instr=%2").arg(path).arg(ref.id);
    case EntityRef::Kind::Track:
        return QStringLiteral("%1#track=%2").arg(path).arg(ref.id);
    case EntityRef::Kind::Node:
        return QStringLiteral("%1#node=%2/%3").arg(path).arg(ref.stageId).arg(ref.id);
    case EntityRef::Kind::None:
        break;
    }
    return path;
}

std::optional<EntityReference> parseReference(const QString& text) {
    const qsizetype hash = text.lastIndexOf(QLatin1Char('#'));
    if (hash < 0) return EntityReference{text, {}};
    static const QRegularExpression form(
        QStringLiteral("^(slice|instr|track)=(\\d+)$|^node=(-?\\d+)/(-?\\d+)$"));
    const QRegularExpressionMatch m = form.match(text.mid(hash + 1));
    if (!m.hasMatch() || hash == 0) return std::nullopt;
    EntityReference out{text.left(hash), {}};
    if (!m.captured(1).isEmpty()) {
        const qint64 id = m.captured(2).toLongLong();
        const QString kind = m.captured(1);
        out.ref = kind == QLatin1String("slice")   ? EntityRef::slice(id)
                  : kind == QLatin1String("instr") ? EntityRef::instr(id)
                                                   : EntityRef::track(id);
    } else {
        out.ref = EntityRef::node(m.captured(3).toLongLong(), m.captured(4).toLongLong());
    }
    return out;
}

} // namespace pto::gui
