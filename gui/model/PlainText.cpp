// Escapes data shown in tooltips so Qt never interprets it as rich text.
#include "gui/model/PlainText.h"

#include <QTextDocument>

namespace pto::gui {

QString plainToolTip(const QString& text) {
    return Qt::mightBeRichText(text) ? Qt::convertFromPlainText(text, Qt::WhiteSpacePre) : text;
}

} // namespace pto::gui
