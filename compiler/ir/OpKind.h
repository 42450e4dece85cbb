// Op kinds of the Tensor and Tile levels, generated from Ops.def: the enum, a static info
// table (mnemonic, levels, operand counts, class, flags, attribute names) and lookups.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto {

enum class OpKind : uint16_t {
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    kind,
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
    Directive,
    Control, // for, call: ops with any number of results (and a body)
    Index    // gather: data-dependent indexing (index tensors)
};

// Which IR levels may contain an op kind.
enum LevelMask : uint8_t { kLevelTensor = 1, kLevelTile = 2, kLevelDirective = 4 };

// Facts of Ops.def's flags column.
enum OpFlag : uint8_t {
    kOpDeclared = 1, // the result type comes from the declaration (`: type`)
    kOpIntegers = 2, // an elementwise op that also takes integer operands
};

struct OpInfo {
    OpKind kind;
    std::string_view mnemonic;
    uint8_t levels;
    int minArity;
    int maxArity; // -1 = any number
    OpClass cls;
    uint8_t flags;              // OpFlag bits
    std::string_view attrNames; // space-separated, in printing order
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
inline bool isControl(OpKind k) {
    return opInfo(k).cls == OpClass::Control;
}
inline bool isElementwise(OpKind k) {
    OpClass c = opInfo(k).cls;
    return c == OpClass::Binary || c == OpClass::Scalar || c == OpClass::Unary ||
           c == OpClass::Select;
}

} // namespace pto
