// The loop an op was unrolled from, as the views show it: "kv, iter 7" from a node's attrs.
#pragma once

#include <string>
#include <string_view>

namespace pto::gui {

/// "kv, iter 7" (nested loops: "outer/inner, iter 1/3") from a node's attrs JSON holding
/// {"loop": "kv", "iter": [7]} (unroll-loops writes them); empty when it has none.
std::string loopLabel(std::string_view attrsJson);

} // namespace pto::gui
