// Comparison predicate names and the string form of applyCompare (see Semantics.h).
#include "compiler/ir/Semantics.h"

#include <array>

namespace pto {
namespace {

constexpr std::array<std::string_view, 6> kPredNames = {"eq", "ne", "lt", "le", "gt", "ge"};

} // namespace

std::string_view cmpPredName(CmpPred pred) {
    const auto index = static_cast<size_t>(pred);
    return index < kPredNames.size() ? kPredNames[index] : std::string_view("?");
}

std::optional<CmpPred> parseCmpPred(std::string_view name) {
    for (size_t i = 0; i < kPredNames.size(); ++i)
        if (kPredNames[i] == name) return static_cast<CmpPred>(i);
    return std::nullopt;
}

bool applyCompare(std::string_view pred, float a, float b) {
    const std::optional<CmpPred> parsed = parseCmpPred(pred);
    return parsed && applyCompare(*parsed, a, b);
}

} // namespace pto
