// What every view shares: the open trace document and the one selection.
#pragma once

#include "gui/model/QueryTrack.h"
#include "gui/model/SelectionModel.h"
#include "gui/model/TraceDocument.h"

#include <QObject>

#include <memory>

namespace pto::gui {

/// Owned by the main window (or by a test); views keep a reference. Changing the document
/// clears the selection and emits documentChanged; views then reload (document() may be null
/// when no file is open).
class StudioContext : public QObject {
    Q_OBJECT
public:
    explicit StudioContext(QObject* parent = nullptr);
    ~StudioContext() override;

    const TraceDocument* document() const { return m_document.get(); }
    SelectionModel& selection() { return m_selection; }
    const SelectionModel& selection() const { return m_selection; }

    void setDocument(std::unique_ptr<TraceDocument> document);
    /// Tells the views that the open document is about to go (another is opened, or the
    /// window closes), so they can save what belongs with it. setDocument calls it too.
    void closing();
    /// The run the open one is compared with (`pto-studio A.db --baseline B.db`); null when
    /// none. Changing it emits baselineChanged; opening another document keeps it.
    const TraceDocument* baseline() const { return m_baseline.get(); }
    void setBaseline(std::unique_ptr<TraceDocument> baseline);
    /// The tune file the Tuning view shows ("" for none) and its number of candidates. A tune
    /// file is no trace: the document stays; with none open the views reload to say so.
    const QString& tuneFile() const { return m_tuneFile; }
    int tuneCandidates() const { return m_tuneCandidates; }
    void setTuneFile(const QString& path, int candidates);
    /// What a view without a document says: no trace open, or that a tune file is open and how
    /// to open one of its candidates' traces.
    QString noTraceText() const;
    /// The short form for a status line: "No trace open", or noTraceText() for a tune file.
    QString noTraceStatus() const {
        return m_tuneFile.isEmpty() ? tr("No trace open") : noTraceText();
    }
    /// Asks the timeline to show query results as an extra track.
    void showQueryTrack(std::shared_ptr<const QueryTrack> track) {
        emit queryTrackRequested(std::move(track));
    }

signals:
    void documentChanged();
    /// The open document is about to be replaced or closed (it is still document()).
    void documentClosing();
    void baselineChanged();
    /// A view could not show the document (its reader threw, e.g. on a corrupt page); the
    /// other views and the document stay. `what` says which view and why.
    void viewFailed(const QString& what);
    /// A view asks the others to show a time range of the timeline (cycles).
    void revealTimeRequested(qint64 begin, qint64 end);
    void queryTrackRequested(std::shared_ptr<const pto::gui::QueryTrack> track);

private:
    std::unique_ptr<TraceDocument> m_document;
    std::unique_ptr<TraceDocument> m_baseline;
    SelectionModel m_selection;
    QString m_tuneFile;
    int m_tuneCandidates = 0;
};

} // namespace pto::gui
