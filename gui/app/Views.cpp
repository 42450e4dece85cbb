// The views of pto-studio: one line per view (add yours here).
#include "gui/app/Views.h"

namespace pto::gui {

std::vector<ViewEntry> studioViews() {
    std::vector<ViewEntry> views;
    return views;
}

} // namespace pto::gui
