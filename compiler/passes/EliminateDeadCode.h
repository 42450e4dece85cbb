// dead-code: drops ops whose results can never reach a function result, at the Tensor or the
// Tile level (a tstore into a workspace that nothing reads back is dead too).
#pragma once

#include "compiler/ir/Graph.h"

namespace pto {

// In place. Keeps directives, function arguments, stores into outputs and arguments, and
// every op a kept op reads. One backward sweep: ops are in program order, so every reader of
// a value (and of a workspace) comes after its producer (and the stores into it).
void eliminateDeadCode(Function& f);

} // namespace pto
