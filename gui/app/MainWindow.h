// The main window of pto-studio: menus, docked views, status bar, opening files.
#pragma once

#include "gui/app/RecentFiles.h"
#include "gui/widgets/StudioContext.h"

#include <QMainWindow>

#include <vector>

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

    StudioContext& context() { return m_context; }
    const std::vector<StudioView*>& views() const { return m_views; }
    StudioView* view(const QString& id) const;

private:
    void createViews();
    void createMenus();
    void refreshRecentMenu();
    void updateStatus();

    StudioContext m_context;
    RecentFiles m_recent;
    std::vector<StudioView*> m_views;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace pto::gui
