// The parser of the .pto text format: Tensor- and Tile-level functions (docs/PTO_LANGUAGE.md).
#pragma once

// Hand-written lexer and recursive descent. Errors throw CompileError at the offending token
// with what was expected ("expected ',' and operand 2 of 'add' (it takes 2 operands), found
// '%y'"), unknown names with a suggestion ("unknown op 'softmx' (did you mean 'softmax'?)"),
// and shape errors from ShapeInference at the op's mnemonic.
//
// Accepted sugar, printed canonically: nested parenthesised ops as operands
// (`%e = exp (sub %xf, %m)`, `return (cast %y : tensor<64x1024xf16>)`), a number as the second
// operand of add/sub/mul/div/max/min/cmp (it becomes adds/…/cmps), bare words as string
// attribute values (`{pred = lt}`), and negative axes (normalised). Every op gets `loc` = the
// line:col of its mnemonic (or the `loc(…)` it carries) and parent = kNoId (or the `#id<-#p`
// it carries). A function is Tile level iff it contains a tile<> type or a tload / tstore /
// tmove / gm_tensor op; there, tensor<> values are GM tensors.

#include "compiler/ir/Graph.h"

#include <string>
#include <string_view>

namespace pto {

// Nested parenthesised ops (`exp (exp (... %x))`) may go this many levels deep; deeper nesting
// is an error at the '(' that passes the limit (the parser recurses once per level, so the
// limit keeps its stack bounded whatever the input). Name intermediate results instead.
inline constexpr int kMaxOpNesting = 256;

// Loops may nest this many levels deep: the parser, the verifier, the interpreters and
// unroll-loops recurse once per level, so the limit keeps their stacks bounded (5000 nested
// loops crashed the parser). Real kernels nest a handful.
inline constexpr int kMaxLoopNesting = 64;

// Parses every function of a .pto file; `file` names it in diagnostics. With `verify` (the
// default) each function is checked by verifyFunction as well.
Module parseModule(std::string_view text, std::string file, bool verify = true);

// Parses text holding exactly one function.
Function parseFunctionText(std::string_view text, std::string file = "<input>");

} // namespace pto
