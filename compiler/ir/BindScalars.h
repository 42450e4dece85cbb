// Binding index arguments (trip counts given when the program runs: `--bind t=37`).
#pragma once

#include "compiler/ir/Graph.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// One `--bind NAME=VALUE`.
struct ScalarBind {
    std::string name;
    int64_t value = 0;
};

// Parses "t=37" (the name with or without '%'). Throws CompileError naming the text and what
// is wrong ("--bind t: expected NAME=INTEGER").
ScalarBind parseScalarBind(std::string_view text);

// Specialises `f` for the bound numbers: every loop whose upper bound is an index argument
// (upper_arg, at any depth) gets that number as its upper bound, and the index arguments leave
// the signature, so the function is what it would be with the numbers written in the text.
// Throws CompileError (at the function, in `file`) for an index argument without a bind (naming
// it and the loop it bounds), a bind naming no index argument (listing the ones there are), and
// a name bound twice. A function without index arguments accepts no binds.
void bindScalars(Function& f, std::span<const ScalarBind> binds, const std::string& file);

} // namespace pto
