// Values laid over the graph's nodes as colours: simulated cycles, bound class, on-chip
// buffer bytes, numerical error; and their aggregate over a collapsed group.
#pragma once

#include "gui/model/GraphStage.h"
#include "gui/model/Hierarchy.h"

#include <QString>

#include <string>
#include <vector>

namespace pto::gui {

enum class OverlayKind { None, Cycles, Bound, Buffer, Error };

struct GraphOverlay {
    OverlayKind kind = OverlayKind::None;
    QString title;                   ///< legend title with the unit
    std::vector<double> values;      ///< per node index; NaN = no value
    std::vector<QString> categories; ///< categorical overlays: values index this list
    QString note;                    ///< why there are no values (empty when there are)

    bool categorical() const { return !categories.empty(); }
    bool hasValues() const;
    /// The value of a hierarchy item: the node's own, or over a group's nodes the sum
    /// (cycles, bytes), the maximum (error) or the most frequent category (bound).
    double aggregate(const Hierarchy& hierarchy, int item) const;
};

/// Computes the overlay for the nodes of `stage`. Never throws: a trace without the data
/// (no run, no diff results) gives an overlay without values and a note saying why.
GraphOverlay computeOverlay(const tracedb::TraceReader& reader, const GraphStage& stage,
                            OverlayKind kind);

/// Display names of the overlay kinds, in enum order.
QString overlayName(OverlayKind kind);

} // namespace pto::gui
