// Formatting of compiler diagnostics.
#include "compiler/ir/Diagnostics.h"

#include <fmt/format.h>

#include <fstream>

namespace pto {
namespace {

constexpr std::size_t kExcerptWidth = 120; // bytes of a long line shown around the column

bool continuationByte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The part of `line` shown: all of it, or kExcerptWidth bytes around byte `col` (0-based)
// marked with "…" where cut; `col` is moved to the same place in the part.
std::string windowOf(const std::string& line, std::size_t& col) {
    if (line.size() <= kExcerptWidth) return line;
    std::size_t begin = col > kExcerptWidth / 2 ? col - kExcerptWidth / 2 : 0;
    while (begin > 0 && continuationByte(line[begin])) --begin;
    std::size_t end = std::min(line.size(), begin + kExcerptWidth);
    while (end < line.size() && continuationByte(line[end])) ++end;
    std::string part = (begin > 0 ? "…" : "") + line.substr(begin, end - begin);
    col = col - begin + (begin > 0 ? std::string("…").size() : 0);
    return end < line.size() ? part + "…" : part;
}

// Spaces (tabs kept) up to byte `col` of `text`, one per character, then a caret.
std::string caretUnder(const std::string& text, std::size_t col) {
    std::string pad;
    for (std::size_t i = 0; i < col && i < text.size(); ++i)
        if (!continuationByte(text[i])) pad += text[i] == '\t' ? '\t' : ' ';
    return pad + "^";
}

} // namespace

std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message) {
    std::string where = file.empty() ? std::string("<input>") : file;
    if (loc.line) where += fmt::format(":{}", loc.line);
    if (loc.line && loc.col) where += fmt::format(":{}", loc.col);
    return fmt::format("{}: error: {}", where, message);
}

std::string sourceExcerpt(const std::string& file, SourceLoc loc) {
    if (file.empty() || !loc.known()) return {};
    std::ifstream in(file, std::ios::binary);
    std::string line;
    for (uint32_t n = 0; n < loc.line; ++n)
        if (!in || !std::getline(in, line)) return {};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // The lexer counts columns after a leading byte-order mark; so does the excerpt.
    if (loc.line == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (line.find('\0') != std::string::npos) return {};
    std::size_t col = loc.col > 0 ? std::min<std::size_t>(loc.col - 1, line.size()) : 0;
    const std::string shown = windowOf(line, col);
    const std::string number = std::to_string(loc.line);
    return fmt::format("{} | {}\n{} | {}\n", number, shown, std::string(number.size(), ' '),
                       loc.col > 0 ? caretUnder(shown, col) : std::string());
}

} // namespace pto
