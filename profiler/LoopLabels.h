// Loop labels as a trace writes them, and which loops the user wrote. Two places name a loop:
// a node's attrs {"loop": "kv", "iter": [7]} (unroll-loops writes them on every op it unrolls,
// and they flow into the tile ops), and the arg `loop` of an instruction slice that ran in a
// counted loop of its kernel (compiler/ir/PtoLoops.h: "kv, iter 7"). A counted loop is either
// a loop of the program rerolled ("kv") or one the compiler made of other repetition
// (reroll-loops: the tiles a vector kernel streams, a matmul's K steps or output blocks,
// compiler/passes/RerollLoops.h); the second kind is no loop the user wrote, so tools show
// the source loop first and the compiler's round as secondary information.
#pragma once

#include <string>
#include <string_view>

namespace pto::prof {

/// "kv, iter 7" ("outer/inner, iter 1/3" when nested) from a node's attrs JSON holding
/// {"loop": "kv", "iter": [7]}; "" when it has none. Reads the text as the recorder writes it
/// (attrs may hold non-JSON numbers such as -inf, so no JSON parser is involved).
std::string loopLabelOfAttrs(std::string_view attrsJson);

/// The loop name in a node's attrs ("kv" of {"loop": "kv", …}); "" when it has none.
std::string loopNameOfAttrs(std::string_view attrsJson);

/// The loop name of a label: "kv" of "kv, iter 7", "tiles" of "tiles, round 2 of 3"; the whole
/// text when it has neither form.
std::string_view loopNameOfLabel(std::string_view label);

/// Whether a counted loop of this name was made by the compiler: "tiles", a matmul's K steps
/// "matmul@L:C.k" or output blocks "matmul@L:C.block" (also inside a program loop,
/// "kv/matmul@L:C.k"). Program loops are named by the user ("kv") or "for@L:C".
bool isCompilerLoopName(std::string_view name);

/// Whether the slice arg `loop` (a round of a counted loop) names an iteration of a loop the
/// user wrote: not a compiler-made loop, and (when the instruction's op names its source loop,
/// `sourceLabel`, from loopLabelOfAttrs) the same loop.
bool isProgramLoopRound(std::string_view roundLabel, std::string_view sourceLabel);

/// A round of a compiler-made loop in words: "a loop the compiler made over the tiles this
/// kernel streams (reroll-loops), not one of the program", "K step 5 of the matmul at 22:11
/// (in kv, iter 2)", …; "" for any other label.
std::string describeCompilerLoopRound(std::string_view roundLabel);

} // namespace pto::prof
