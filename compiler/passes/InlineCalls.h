// inline-calls: replaces every `call @f(...)` of a Tensor function by a copy of @f's body.
#pragma once

#include "compiler/ir/Graph.h"

#include <span>
#include <string>

namespace pto {

// Tensor → Tensor: `functions` are the module's functions (calls name them). Calls inside the
// callee and inside loop bodies are inlined too. A copied op keeps the callee op's `loc` (its
// source line in the same file) and gets parent = the call it replaces. Raises CompileError for
// an unknown callee or a call chain deeper than 64 (recursion; verifyModule reports it first).
void inlineCalls(Function& f, std::span<const Function> functions, const std::string& file);

} // namespace pto
