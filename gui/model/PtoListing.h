// The PTO listing of an emit-pto stage rebuilt from its `instr` rows, for traces whose stage was
// recorded without ir_text (the listing of a big run is above the recorder's text limit).
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>

namespace pto::gui {

struct RebuiltListing {
    std::string text;              ///< `kernel @name core {` … `}` blocks, one instruction a line
    std::int64_t instructions = 0; ///< instruction lines written
    std::int64_t total = 0;        ///< instructions of the stage (more than written when capped)
};

/// The kernels of stage `stageId` (its `kernel` nodes) with their instructions in id order, in
/// the printed listing's instruction format (pipe, opcode, operands, `!op`, `!loc line`). The
/// listing's `gm` declarations are not recorded per instruction and are left out; of its task
/// lines, those of kernel texts several tasks share (their node attrs, docs/TRACE_SCHEMA.md)
/// follow the kernels, with each task's GM rebases (without name, cluster and deps). At most
/// `maxInstructions` are written (-1: all), the first in id order.
RebuiltListing rebuildPtoListing(const tracedb::TraceReader& reader, std::int64_t stageId,
                                 std::int64_t maxInstructions = -1);

} // namespace pto::gui
