// Writes any widget as a PNG (pixels) or SVG (vector drawing) file.
#pragma once

#include <QString>

class QWidget;

namespace pto::gui {

/// Draws `widget` into `path`; the format follows the extension (.png or .svg). Returns an
/// empty string on success, otherwise the reason (unknown extension, cannot write the file).
/// The file appears whole or not at all (written beside it, then renamed).
QString exportWidget(QWidget& widget, const QString& path);

} // namespace pto::gui
