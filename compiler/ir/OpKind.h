// Op kinds of the Tensor and Tile levels, generated from Ops.def: the enum, a static info
// table (mnemonic, levels, arity, class) and lookups.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto {

enum class OpKind : uint16_t {
#define PTO_OP(kind, mnemonic, levels, arity, cls) kind,
#include "compiler/ir/Ops.def"
#undef PTO_OP
};

enum class OpClass : uint8_t {
    Matmul,
    Binary,
    Scalar,
    Unary,
    Composite,
    Reduce,
    Select,
    Layout,
    Move,
    Directive
};

// Which IR levels may contain an op kind.
enum LevelMask : uint8_t { kLevelTensor = 1, kLevelTile = 2, kLevelDirective = 4 };

struct OpInfo {
    OpKind kind;
    std::string_view mnemonic;
    uint8_t levels;
    int arity; // -1 = variadic
    OpClass cls;
};

const OpInfo& opInfo(OpKind kind);
inline std::string_view opName(OpKind kind) {
    return opInfo(kind).mnemonic;
}
std::optional<OpKind> parseOpKind(std::string_view mnemonic);
int opKindCount();

inline bool isDirective(OpKind k) {
    return opInfo(k).cls == OpClass::Directive;
}
inline bool isElementwise(OpKind k) {
    OpClass c = opInfo(k).cls;
    return c == OpClass::Binary || c == OpClass::Scalar || c == OpClass::Unary ||
           c == OpClass::Select;
}

} // namespace pto
