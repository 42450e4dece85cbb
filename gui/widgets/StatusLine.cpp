// StatusLine: elided one-line text, repainted alone.
#include "gui/widgets/StatusLine.h"

#include <QPainter>

namespace pto::gui {

StatusLine::StatusLine(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void StatusLine::setText(const QString& text) {
    if (text == m_text) return;
    m_text = text;
    setToolTip(text);
    update(); // no updateGeometry(): the size hint never depends on the text
}

QSize StatusLine::sizeHint() const {
    return {fontMetrics().averageCharWidth() * 40, fontMetrics().height() + 4};
}

QSize StatusLine::minimumSizeHint() const {
    return {0, fontMetrics().height() + 4};
}

void StatusLine::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setPen(palette().color(QPalette::WindowText));
    const QRect r = contentsRect().adjusted(2, 0, -2, 0);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(m_text, Qt::ElideRight, r.width()));
}

} // namespace pto::gui
