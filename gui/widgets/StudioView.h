// Base of every dockable view of pto-studio: a name, the shared context, export to PNG/SVG.
#pragma once

#include "gui/widgets/StudioContext.h"

#include <QWidget>

namespace pto::gui {

/// A view reloads in documentChanged() and follows the shared selection. The main window
/// docks it under viewTitle(); objectName() is viewId() so layouts can be saved and restored.
class StudioView : public QWidget {
    Q_OBJECT
public:
    StudioView(StudioContext& context, QWidget* parent = nullptr);

    virtual QString viewId() const = 0;
    virtual QString viewTitle() const = 0;
    /// The widget drawn when the view is exported (the whole view by default).
    virtual QWidget* exportTarget() { return this; }
    /// True while work the view started for the open document is still running or its result
    /// not yet shown — on workerPool() or on a thread of the view's own (the timeline's
    /// summary, the graph's layout). `--screenshot` waits until no view has any.
    virtual bool hasPendingWork() const { return false; }

protected:
    /// Called after the context's document changed (also once at construction end through
    /// initialize()). document() may be null.
    virtual void documentChanged() = 0;
    /// Subclass constructors call this last so the view shows the current document.
    void initialize();

    StudioContext& context() { return m_context; }
    const TraceDocument* document() const { return m_context.document(); }
    SelectionModel& selection() { return m_context.selection(); }

private:
    /// documentChanged() with every exception turned into StudioContext::viewFailed: a view
    /// reading a damaged trace on the GUI thread must not take the others (or Qt) down.
    void reload();

    StudioContext& m_context;
};

} // namespace pto::gui
