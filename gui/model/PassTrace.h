// The passes that changed one node of a trace (issue 20, "Trace through passes"): the node's
// descendants followed stage by stage through parent links, and the stages after which their
// rows (kind, name, type, space, attrs) differ — the stages an IR text view steps through.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::gui {

struct PassStep {
    std::int64_t stageId = 0;        ///< the stage after the pass
    std::string pass;                ///< the pass that produced it
    std::vector<std::int64_t> nodes; ///< the traced node's descendants in that stage
    std::vector<std::string> before; ///< their rows in the stage before, one line each
    std::vector<std::string> after;  ///< … and in this stage
};

/// The changing passes of node `nodeId` of `stageId`, in pipeline order, over the Tensor and
/// Tile stages that descend from it (parent_stage_id chain). Unchanged passes are left out;
/// so are passes whose stage was not recorded in full (a change they made shows at the next
/// stage that was, under that stage's pass).
std::vector<PassStep> passTrace(const tracedb::TraceReader& reader, std::int64_t stageId,
                                std::int64_t nodeId);

} // namespace pto::gui
