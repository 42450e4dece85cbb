// The op info table generated from Ops.def, and mnemonic lookup.
#include "compiler/ir/OpKind.h"

#include <array>

namespace pto {
namespace {

constexpr uint8_t T = kLevelTensor;
constexpr uint8_t L = kLevelTile;
constexpr uint8_t TL = kLevelTensor | kLevelTile;
constexpr uint8_t D = kLevelTensor | kLevelTile | kLevelDirective;

constexpr OpInfo kInfos[] = {
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    OpInfo{OpKind::kind, mnemonic, levels, minArity, maxArity, OpClass::cls, flags, attrs},
#include "compiler/ir/Ops.def"
#undef PTO_OP
};

} // namespace

const OpInfo& opInfo(OpKind kind) {
    return kInfos[static_cast<int>(kind)];
}

int opKindCount() {
    return static_cast<int>(std::size(kInfos));
}

std::optional<OpKind> parseOpKind(std::string_view mnemonic) {
    for (const OpInfo& info : kInfos)
        if (info.mnemonic == mnemonic) return info.kind;
    return std::nullopt;
}

} // namespace pto
