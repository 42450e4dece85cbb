// Formatting of compiler diagnostics.
#include "compiler/ir/Diagnostics.h"

#include <fmt/format.h>

namespace pto {

std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message) {
    std::string where = file.empty() ? std::string("<input>") : file;
    if (loc.line) where += fmt::format(":{}", loc.line);
    if (loc.line && loc.col) where += fmt::format(":{}", loc.col);
    return fmt::format("{}: error: {}", where, message);
}

} // namespace pto
