// The views of pto-studio: one line per view (add yours here).
#include "gui/app/Views.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/CompareView.h"
#include "gui/widgets/DiffView.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/SliceTableView.h"
#include "gui/widgets/SqlConsole.h"
#include "gui/widgets/StageCompareView.h"
#include "gui/widgets/TimelineView.h"
#include "gui/widgets/TuneView.h"

namespace pto::gui {

std::vector<ViewEntry> studioViews() {
    std::vector<ViewEntry> views;
    views.push_back({[](StudioContext& c, QWidget* p) { return new TimelineView(c, p); },
                     Qt::BottomDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new BottleneckView(c, p); },
                     Qt::RightDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new SqlConsole(c, p); },
                     Qt::BottomDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new SliceTableView(c, p); },
                     Qt::BottomDockWidgetArea});
    views.push_back(
        {[](StudioContext& c, QWidget* p) { return new GraphView(c, p); }, Qt::LeftDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new IrTextView(c, p); },
                     Qt::RightDockWidgetArea});
    views.push_back(
        {[](StudioContext& c, QWidget* p) { return new DiffView(c, p); }, Qt::RightDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new StageCompareView(c, p); },
                     Qt::LeftDockWidgetArea});
    views.push_back({[](StudioContext& c, QWidget* p) { return new CompareView(c, p); },
                     Qt::RightDockWidgetArea});
    views.push_back(
        {[](StudioContext& c, QWidget* p) { return new TuneView(c, p); }, Qt::RightDockWidgetArea});
    return views;
}

} // namespace pto::gui
