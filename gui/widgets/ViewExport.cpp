// Export of a view to PNG through QWidget::grab and to SVG through QSvgGenerator.
#include "gui/widgets/ViewExport.h"

#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace pto::gui {
namespace {

QString writePng(QWidget& widget, QSaveFile& file) {
    const QPixmap pixmap = widget.grab();
    if (pixmap.isNull() || !pixmap.save(&file, "PNG"))
        return QStringLiteral("cannot encode the view as PNG");
    return {};
}

QString writeSvg(QWidget& widget, QSaveFile& file) {
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setSize(widget.size());
    generator.setViewBox(QRect(QPoint(0, 0), widget.size()));
    generator.setTitle(widget.windowTitle().isEmpty() ? widget.objectName() : widget.windowTitle());
    generator.setDescription(QStringLiteral("Exported from pto-studio"));
    QPainter painter;
    if (!painter.begin(&generator)) return QStringLiteral("cannot start the SVG drawing");
    widget.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    return {};
}

} // namespace

QString exportWidget(QWidget& widget, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg"))
        return QStringLiteral("%1: unknown export format '.%2' (use .png or .svg)")
            .arg(path, suffix);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    const QString error =
        suffix == QLatin1String("png") ? writePng(widget, file) : writeSvg(widget, file);
    if (!error.isEmpty()) {
        file.cancelWriting();
        return QStringLiteral("%1: %2").arg(path, error);
    }
    if (!file.commit()) return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace pto::gui
