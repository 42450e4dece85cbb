// The shared document and selection of pto-studio's views.
#include "gui/widgets/StudioContext.h"

#include <QFileInfo>

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

void StudioContext::setTuneFile(const QString& path, int candidates) {
    m_tuneFile = path;
    m_tuneCandidates = candidates;
    if (!m_document) emit documentChanged();
}

QString StudioContext::noTraceText() const {
    if (m_tuneFile.isEmpty())
        return tr("No trace open: File → Open (Ctrl+O) or drop a trace file here.");
    return tr("Tune file %1 is open in the Tuning view (%2 candidates), not a trace: "
              "double-click a candidate there to open its trace.")
        .arg(QFileInfo(m_tuneFile).fileName())
        .arg(m_tuneCandidates);
}

} // namespace pto::gui
