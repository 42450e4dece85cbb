// How expand-tiles' error messages name sizes, values, ops, types and tile sizes.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/passes/expand/Rewrite.h"

#include <cstdint>
#include <string>

namespace pto::expand {

std::string kib(int64_t bytes);

// kib(bytes) of a size over `limit`, or its bytes ("65538 B") within 1 KiB of it, where kib
// would read as the limit itself.
std::string kibOver(int64_t bytes, int64_t limit);

// "%name" as the printer spells it (error paths only: builds the name table).
std::string valueRef(const Function& f, ValueId v);

std::string opRef(const Function& f, const Op& op);

std::string typeRef(const Type& t);

std::string listRef(const Ints& v);

// The per-op override with `tile`'s last two sizes and leading sizes 1: "[1, 16, 16]".
std::string leadingOnes(const Shape& tile);

} // namespace pto::expand
