// Loop name and iteration of an unrolled op, from its trace attrs (see LoopLabel.h).
#include "gui/model/LoopLabel.h"

#include "profiler/LoopLabels.h"

namespace pto::gui {

std::string loopLabel(std::string_view attrsJson) {
    // The profiler's reading: attrs may hold -inf (a fill in a loop body), which no JSON parser
    // takes, and the label must not vanish with it.
    return prof::loopLabelOfAttrs(attrsJson);
}

} // namespace pto::gui
