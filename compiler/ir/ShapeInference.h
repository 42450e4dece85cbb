// Result types of Tensor- and Tile-level ops: shape, dtype and memory space from the operands
// and attributes, with the checks that make an op well-typed.
#pragma once

// The rules (docs/PTO_LANGUAGE.md lists them per op):
// - binary ops, cmp and where broadcast their operands the NumPy way; binary operands share a
//   dtype; cmp gives i1; where takes an i1 condition.
// - reductions drop `axis` (or keep it as 1 with `keepdim`); a negative axis counts from the end.
// - matmul: [.., m, k] · [.., k, n] (transpose_a / transpose_b swap the last two dims), equal
//   leading dims; f16/bf16/f32 → f32 and i8 → i32 unless the declared type says otherwise.
// - cast, reshape, broadcast, fill, tload, tmove and gm_tensor take their result type from the
//   declaration (`: type`); the others infer it, and a declaration, when given, must agree.
// - At Tile level a result lives where its first tile operand lives (matmul: L0C once its
//   operands are placed); a declared memory space wins.
//
// Errors throw ShapeError whose message starts with the op's mnemonic ("add: operand shapes
// 64x1024 and 32x1024 do not broadcast (dim 0: 64 vs 32)"); callers add file:line:col and the
// result's name.

#include "compiler/ir/Graph.h"

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pto {

class ShapeError : public std::runtime_error {
public:
    ShapeError(OpKind kind, std::string detail);
    OpKind kind() const { return m_kind; }
    // The message without the leading "mnemonic: ".
    const std::string& detail() const { return m_detail; }

private:
    OpKind m_kind;
    std::string m_detail;
};

// The result type of `kind` applied to `operands` of `f` (whose level decides GM vs tile
// spaces). `declared` is the type written after ':' (or nullptr); when given it is checked
// against the inferred one and returned. Throws ShapeError.
Type inferResultType(const Function& f, OpKind kind, std::span<const ValueId> operands,
                     const Attrs& attrs, const Type* declared);

// The same from operand types alone.
Type inferResultType(Level level, OpKind kind, std::span<const Type> operands, const Attrs& attrs,
                     const Type* declared);

// Whether the result type of `op` is exactly what inference gives without a declaration, so
// the printer can leave out ": type".
bool declaredTypeIsDefault(const Function& f, const Op& op);

// The most elements a tensor or tile may have (so byte sizes and offsets fit in 64 bits).
inline constexpr int64_t kMaxElements = int64_t(1) << 48;

// The element count of `shape`, or nullopt when a dim is not positive or the count exceeds
// kMaxElements.
std::optional<int64_t> checkedElementCount(const Shape& shape);

// Whether ops of `kind` take their result type from the declaration (cast, reshape, broadcast,
// fill, gm_tensor, tload, tmove): inference without one fails.
bool needsDeclaredType(OpKind kind);

// Whether ops of `kind` define a result value (false for tstore and the directives).
bool opHasResult(OpKind kind);

// The number of value operands an op of `kind` takes: [min, max] (equal for fixed arity).
std::pair<int, int> operandCountRange(OpKind kind);

// Canonicalises attributes in place before inference: negative axes become non-negative,
// float attributes written as integers (scalar = 2) become floats, false unit attributes
// (keepdim = false) are dropped. Never throws: invalid values are left for inference to report.
void normalizeAttrs(OpKind kind, std::span<const Type> operands, Attrs& attrs);

// The attribute names an op of `kind` understands ("axis", "keepdim" …), besides the per-op
// tile overrides "vec_tile" and "cube_tile".
std::span<const std::string_view> knownAttrNames(OpKind kind);

// The attributes a user may write on a Tile-level op of `kind`: knownAttrNames but the tile
// overrides (a Tile-level op works on the tiles it is given, so cube_tile has no meaning there).
std::vector<std::string_view> tileAttrNames(OpKind kind);

// The attributes the Tensor→Tile passes attach to Tile ops of `kind` and read back later, so a
// printed Tile stage parses again: `role`, `ping_pong` and `retired` on gm_tensor (a workspace's
// role and fused ping-pong depth), `k_step` on a matmul's tload, tmove, matmul and matmul_acc
// (the K block, for reroll-loops). (`loop` and `iter`, on any op, are accepted at both levels.)
std::span<const std::string_view> tilePassAttrNames(OpKind kind);

} // namespace pto
