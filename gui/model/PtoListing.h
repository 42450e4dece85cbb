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
};

/// The kernels of stage `stageId` (its `kernel` nodes) with their instructions in id order, in
/// the printed listing's instruction format (pipe, opcode, operands, `!op`, `!loc line`). The
/// listing's `gm` declarations are not recorded per instruction and are left out.
RebuiltListing rebuildPtoListing(const tracedb::TraceReader& reader, std::int64_t stageId);

} // namespace pto::gui
