// The canonical text form of Tensor- and Tile-level functions (the .pto format), and the
// spellings of types, numbers and attributes shared by every printer.
#pragma once

// Example (Tensor level):
//
//   func @softmax(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
//     vec_tile [16, 1024]
//     %xf = cast %x : tensor<64x1024xf32>
//     %m = reduce_max %xf {axis = 1, keepdim}
//     ...
//     return %yh
//   }
//
// The printer is deterministic and canonical: parsing its output and printing again gives the
// same text. `: type` is printed only when the result type differs from what shape inference
// gives without it. Unnamed values print as %0, %1, … (skipping names in use); a name used twice
// gets a suffix (%c, %c_1, …). docs/PTO_LANGUAGE.md describes the grammar.

#include "compiler/ir/Graph.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

struct PrintOptions {
    bool locs = false; // each op line ends with " loc(7:5)" (its source position)
    bool ids = false;  // and " #12<-#3" (op id and parent), plus " origin(5, [16, 0])" for tiles
};

std::string printFunction(const Function& f, PrintOptions options = {});
std::string printModule(const Module& m, PrintOptions options = {});

// "tensor<64x1024xf16>", "tile<16x1024xf32, UB>", "tile<16x16xf32>" (space not yet assigned).
// At Tile level GM values are tensors; at Tensor level every value is.
std::string formatType(const Type& type, Level level);
// Shortest text that reads back as the same double, always with a '.', an exponent, or
// inf/nan so that it lexes as a float: 0.5, 1.0, 1e-06, -inf.
std::string formatDouble(double value);
// keepdim → "true", 1, 0.5, "rne" (quoted), [16, 1024].
std::string formatAttrValue(const AttrValue& value);
// " {axis = 1, keepdim}" in stored order, leaving out the names in `skip`; empty when nothing
// is left.
std::string formatAttrs(const Attrs& attrs, std::span<const std::string_view> skip = {});

// The printed name (without '%') of every value of a function.
class NameTable {
public:
    explicit NameTable(const Function& f);
    // A loop body: `fixed` names its capture arguments (as the outer values print), and every
    // name of `outer` (and its enclosing tables) is taken.
    NameTable(const Function& f, const std::vector<std::pair<ValueId, std::string>>& fixed,
              const NameTable* outer);
    std::string_view operator[](ValueId v) const { return m_names[v]; }

private:
    std::vector<std::string> m_names;
    std::vector<std::string> m_reserved; // names of the enclosing scopes
};

// The printed names inside the body of the loop `op` of `f` (whose names are `names`).
NameTable loopBodyNames(const Function& f, const Op& op, const NameTable& names);

// One op line without indentation or newline: "%m = reduce_max %xf {axis = 1, keepdim}".
std::string printOp(const Function& f, const Op& op, const NameTable& names,
                    PrintOptions options = {});

} // namespace pto
