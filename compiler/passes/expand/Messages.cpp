// The names expand-tiles' error messages use (error paths only).
#include "compiler/passes/expand/Messages.h"

#include "compiler/ir/Printer.h"

#include <fmt/format.h>

namespace pto::expand {

std::string kib(int64_t bytes) {
    if (bytes < 1024) return fmt::format("{} B", bytes);
    if (bytes < 1024 * 1024) {
        if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
        return fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
    }
    if (bytes % (1024 * 1024) == 0) return fmt::format("{} MiB", bytes / (1024 * 1024));
    return fmt::format("{:.1f} MiB", double(bytes) / (1024.0 * 1024.0));
}

std::string kibOver(int64_t bytes, int64_t limit) {
    if (bytes - limit < 1024) return fmt::format("{} B", bytes);
    return kib(bytes);
}

// "%name" as the printer spells it (error paths only: builds the name table).
std::string valueRef(const Function& f, ValueId v) {
    return fmt::format("%{}", NameTable(f)[v]);
}

std::string opRef(const Function& f, const Op& op) {
    if (op.result == kNoId) return std::string(opName(op.kind));
    return fmt::format("{} {}", opName(op.kind), valueRef(f, op.result));
}

std::string typeRef(const Type& t) {
    if (t.shape.empty()) return fmt::format("tensor<{}>", dtypeName(t.dtype));
    return fmt::format("tensor<{}x{}>", t.shape.str(), dtypeName(t.dtype));
}

std::string listRef(const Ints& v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
}

// The per-op override with `tile`'s last two sizes and leading sizes 1: "[1, 16, 16]".
std::string leadingOnes(const Shape& tile) {
    Ints sizes(tile.begin(), tile.end());
    for (size_t d = 0; d + 2 < sizes.size(); ++d) sizes[d] = 1;
    return listRef(sizes);
}

} // namespace pto::expand
