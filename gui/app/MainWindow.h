// The main window of pto-studio: menus, docked views, status bar, opening files.
#pragma once

#include "gui/app/RecentFiles.h"
#include "gui/widgets/StudioContext.h"

#include <QMainWindow>
#include <QStringList>

#include <utility>
#include <vector>

class QDockWidget;
class QLabel;
class QMenu;

namespace pto::gui {

class StudioView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Opens a trace; on failure shows a dialog naming the file and the reason (unless
    /// `quiet`, for tests) and returns that reason. Returns an empty string on success.
    QString openFile(const QString& path, bool quiet = false);
    /// Opens a trace as the baseline the compare view sets the open run against; the same
    /// error handling as openFile. An empty path clears the baseline.
    QString openBaseline(const QString& path, bool quiet = false);
    /// Opens "PATH" or a copied reference "PATH#slice=ID" (see EntityReference.h): the file,
    /// then selects the entity (the views follow). A file whose name holds '#' opens as is.
    QString openReference(const QString& text, bool quiet = false);
    /// Selects slice `id` of the open trace (Go → Slice by id); the reason when there is none.
    QString goToSlice(qint64 id);
    /// The reference of the current selection, as Edit → Copy reference puts on the clipboard.
    QString selectionReference() const;

    StudioContext& context() { return m_context; }
    const std::vector<StudioView*>& views() const { return m_views; }
    StudioView* view(const QString& id) const;
    QDockWidget* dockOf(const StudioView* view) const;

    /// Geometry and dock layout to / from QSettings (keys mainWindow/geometry, mainWindow/state).
    void saveLayout() const;
    /// Returns false when nothing was saved or the saved state does not fit.
    bool restoreLayout();
    /// Opens the first recent file when "Reopen last file at start" is on; false otherwise.
    bool reopenLastFile();

    /// The view an export acts on: the one holding the focus, else the first visible one.
    StudioView* activeView() const;
    /// Writes `view`'s exportTarget() to `path` (.png or .svg); empty string on success.
    QString exportView(StudioView& view, const QString& path);
    /// Every action with a shortcut: (description, shortcut text), sorted by description.
    std::vector<std::pair<QString, QString>> shortcuts() const;
    QString statusText() const;
    /// The views that could not show the open document, and why ("Graph: trace … is corrupt").
    const QStringList& viewProblems() const { return m_viewProblems; }

protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createViews();
    void createMenus();
    void createFileMenu();
    void createHelpMenu();
    void createEditMenu();
    /// The entity exists in the open trace (a reference may come from another version of it).
    bool exists(const EntityRef& ref) const;
    void refreshRecentMenu();
    void showOpenError(const QString& path, const QString& reason);
    /// A tune file of `pto tune` (told apart from a trace by its tables) goes to the tune view.
    QString openTuneFile(const QString& path, bool quiet);
    void updateStatus();
    /// The status bar of an open tune file without a trace: the file and its candidates.
    QString tuneStatus() const;
    /// Raises a dock's tab now, or at the first show when the window is not shown yet.
    void raiseDock(QDockWidget* dock);
    void exportActiveView();
    void showShortcuts();

    StudioContext m_context;
    RecentFiles m_recent;
    std::vector<StudioView*> m_views;
    std::vector<QDockWidget*> m_frontDocks; ///< tabs raised at the first show
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_status = nullptr;
    QStringList m_viewProblems; ///< views that could not show the current document, and why
};

} // namespace pto::gui
