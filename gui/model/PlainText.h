// Text from a trace, an arch file or a program shown by Qt: never as rich text.
#pragma once

#include <QString>

namespace pto::gui {

/// A tooltip showing `text` literally. Qt renders a tooltip as HTML when it looks like HTML
/// (Qt::mightBeRichText); such text is escaped into a paragraph that keeps its line breaks,
/// anything else is returned unchanged. Labels use QLabel::setTextFormat(Qt::PlainText).
QString plainToolTip(const QString& text);

} // namespace pto::gui
