// The list of views pto-studio docks, in one place.
#pragma once

#include "gui/widgets/StudioView.h"

#include <functional>
#include <vector>

namespace pto::gui {

struct ViewEntry {
    std::function<StudioView*(StudioContext&, QWidget*)> make;
    Qt::DockWidgetArea area = Qt::RightDockWidgetArea;
};

/// Every view of the application, in the order of the View menu.
std::vector<ViewEntry> studioViews();

} // namespace pto::gui
