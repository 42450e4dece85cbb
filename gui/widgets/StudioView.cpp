// Shared plumbing of pto-studio's views: reload when the document changes.
#include "gui/widgets/StudioView.h"

namespace pto::gui {

StudioView::StudioView(StudioContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
    connect(&m_context, &StudioContext::documentChanged, this, [this] { documentChanged(); });
}

void StudioView::initialize() {
    setObjectName(viewId());
    documentChanged();
}

} // namespace pto::gui
