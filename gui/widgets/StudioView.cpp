// Shared plumbing of pto-studio's views: reload when the document changes.
#include "gui/widgets/StudioView.h"

#include "gui/model/WorkerResult.h"

namespace pto::gui {

StudioView::StudioView(StudioContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
    connect(&m_context, &StudioContext::documentChanged, this, &StudioView::reload);
}

void StudioView::initialize() {
    setObjectName(viewId());
    reload();
}

void StudioView::reload() {
    try {
        documentChanged();
    } catch (...) {
        emit m_context.viewFailed(tr("%1: %2").arg(viewTitle(), currentErrorText()));
    }
}

} // namespace pto::gui
