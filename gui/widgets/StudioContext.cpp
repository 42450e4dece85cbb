// The shared document and selection of pto-studio's views.
#include "gui/widgets/StudioContext.h"

namespace pto::gui {

StudioContext::StudioContext(QObject* parent) : QObject(parent) {}

StudioContext::~StudioContext() = default;

void StudioContext::closing() {
    if (m_document) emit documentClosing();
}

void StudioContext::setDocument(std::unique_ptr<TraceDocument> document) {
    closing();
    m_selection.clear();
    m_document = std::move(document);
    emit documentChanged();
}

void StudioContext::setBaseline(std::unique_ptr<TraceDocument> baseline) {
    m_baseline = std::move(baseline);
    emit baselineChanged();
}

} // namespace pto::gui
