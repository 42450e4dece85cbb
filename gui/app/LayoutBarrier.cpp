// LayoutBarrier: a view's holder that answers its layout requests itself.
#include "gui/app/LayoutBarrier.h"

#include <QEvent>

namespace pto::gui {

LayoutBarrier::LayoutBarrier(QWidget* content, QWidget* parent)
    : QWidget(parent), m_content(content) {
    m_content->setParent(this);
    setSizePolicy(m_content->sizePolicy());
}

QSize LayoutBarrier::sizeHint() const {
    return m_content->sizeHint();
}

QSize LayoutBarrier::minimumSizeHint() const {
    return m_content->minimumSizeHint();
}

bool LayoutBarrier::event(QEvent* event) {
    if (event->type() == QEvent::LayoutRequest) {
        m_content->setGeometry(rect()); // the view keeps the dock's size; nothing goes up
        return true;
    }
    return QWidget::event(event);
}

void LayoutBarrier::resizeEvent(QResizeEvent*) {
    m_content->setGeometry(rect());
}

} // namespace pto::gui
