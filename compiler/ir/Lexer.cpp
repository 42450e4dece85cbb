// The on-demand tokenizer of the .pto text format and the PTO listing.
#include "compiler/ir/Lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <vector>

namespace pto {
namespace {

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
bool isHexDigit(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) {
    return isIdentStart(c) || isDigit(c);
}
bool isNameChar(char c) {
    return isIdentChar(c) || c == '.';
}

std::string describeChar(char c) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80)
        return fmt::format("byte 0x{:02x} (non-ASCII text is only allowed in comments and strings)",
                           byte);
    if (byte < 0x20 || byte == 0x7f) return fmt::format("control character 0x{:02x}", byte);
    return fmt::format("character '{}'", c);
}

size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
            diag = up;
        }
    }
    return row[b.size()];
}

} // namespace

std::string describeToken(const Token& tok) {
    switch (tok.kind) {
    case TokKind::Eof:
        return "end of file";
    case TokKind::ValueName:
        return fmt::format("'%{}'", tok.text);
    case TokKind::AtName:
        return fmt::format("'@{}'", tok.text);
    case TokKind::String:
        return fmt::format("string \"{}\"", tok.str);
    default:
        return fmt::format("'{}'", tok.text);
    }
}

Lexer::Lexer(std::string_view text, std::string file) : m_text(text), m_file(std::move(file)) {
    // A UTF-8 byte-order mark, as some editors save files, is skipped; columns count after it.
    constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
    if (m_text.starts_with(kUtf8Bom)) m_pos = kUtf8Bom.size();
}

void Lexer::fail(SourceLoc loc, const std::string& message) const {
    throw CompileError(m_file, loc, message);
}

char Lexer::peek(size_t ahead) const {
    return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
}

void Lexer::advance() {
    if (m_text[m_pos] == '\n') {
        ++m_line;
        m_col = 1;
    } else {
        ++m_col;
    }
    ++m_pos;
}

void Lexer::skipSpaceAndComments() {
    while (m_pos < m_text.size()) {
        char c = peek();
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            advance();
        } else if (c == '/' && peek(1) == '/') {
            while (m_pos < m_text.size() && peek() != '\n') advance();
        } else {
            return;
        }
    }
}

Token Lexer::makeToken(TokKind kind, size_t start, SourceLoc loc) const {
    Token t;
    t.kind = kind;
    t.text = m_text.substr(start, m_pos - start);
    t.loc = loc;
    t.offset = start;
    t.end = m_pos;
    return t;
}

Token Lexer::next() {
    skipSpaceAndComments();
    size_t start = m_pos;
    SourceLoc loc{m_line, m_col};
    if (m_pos >= m_text.size()) return makeToken(TokKind::Eof, start, loc);
    char c = peek();
    if (isDigit(c) || (c == '-' && isDigit(peek(1)))) return lexNumber(start, loc);
    if (isIdentStart(c)) {
        while (isIdentChar(peek())) advance();
        return makeToken(TokKind::Ident, start, loc);
    }
    if (c == '%') return lexName(TokKind::ValueName, start, loc);
    if (c == '@') return lexName(TokKind::AtName, start, loc);
    if (c == '"') return lexString(start, loc);
    return lexPunct(start, loc);
}

Token Lexer::lexNumber(size_t start, SourceLoc loc) {
    if (peek() == '-') advance();
    size_t digitsStart = m_pos;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X') && isHexDigit(peek(2))) {
        advance();
        advance();
        while (isHexDigit(peek())) advance();
        Token t = makeToken(TokKind::Int, start, loc);
        uint64_t value = 0;
        auto [ptr, ec] =
            std::from_chars(m_text.data() + digitsStart + 2, m_text.data() + m_pos, value, 16);
        if (ec != std::errc() || value > uint64_t(INT64_MAX))
            fail(loc, fmt::format("integer literal '{}' does not fit in 64 bits", t.text));
        t.intValue = m_text[start] == '-' ? -int64_t(value) : int64_t(value);
        t.floatValue = double(t.intValue);
        return t;
    }
    while (isDigit(peek())) advance();
    bool isFloat = false;
    if (peek() == '.' && isDigit(peek(1))) {
        isFloat = true;
        advance();
        while (isDigit(peek())) advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
        isFloat = true;
        advance();
        if (peek() == '+' || peek() == '-') advance();
        while (isDigit(peek())) advance();
    }
    Token t = makeToken(isFloat ? TokKind::Float : TokKind::Int, start, loc);
    const char* first = m_text.data() + start;
    const char* last = m_text.data() + m_pos;
    if (isFloat) {
        auto [ptr, ec] = std::from_chars(first, last, t.floatValue);
        if (ec != std::errc() || ptr != last)
            fail(loc, fmt::format("float literal '{}' is out of range", t.text));
    } else {
        auto [ptr, ec] = std::from_chars(first, last, t.intValue);
        if (ec != std::errc() || ptr != last)
            fail(loc, fmt::format("integer literal '{}' does not fit in 64 bits", t.text));
        t.floatValue = double(t.intValue);
    }
    return t;
}

Token Lexer::lexName(TokKind kind, size_t start, SourceLoc loc) {
    char sigil = peek();
    advance();
    size_t nameStart = m_pos;
    while (isNameChar(peek())) advance();
    if (m_pos == nameStart)
        fail(loc, fmt::format("expected a name after '{}', found {}", sigil,
                              m_pos < m_text.size() ? describeChar(peek()) : "end of file"));
    if (kind == TokKind::ValueName && peek() == '#' && isDigit(peek(1))) { // %r#0
        advance();
        while (isDigit(peek())) advance();
    }
    Token t = makeToken(kind, start, loc);
    t.text = m_text.substr(nameStart, m_pos - nameStart);
    return t;
}

Token Lexer::lexString(size_t start, SourceLoc loc) {
    advance(); // opening quote
    std::string contents;
    while (true) {
        if (m_pos >= m_text.size() || peek() == '\n')
            fail(loc, "unterminated string literal (missing closing '\"')");
        char c = peek();
        advance();
        if (c == '"') break;
        if (c != '\\') {
            contents += c;
            continue;
        }
        char e = peek();
        if (e == 'n')
            contents += '\n';
        else if (e == 't')
            contents += '\t';
        else if (e == '"' || e == '\\')
            contents += e;
        else
            fail({m_line, m_col}, fmt::format("unknown escape '\\{}' in string", e));
        advance();
    }
    Token t = makeToken(TokKind::String, start, loc);
    t.str = std::move(contents);
    return t;
}

Token Lexer::lexPunct(size_t start, SourceLoc loc) {
    char c = peek();
    advance();
    auto one = [&](TokKind k) { return makeToken(k, start, loc); };
    switch (c) {
    case '(':
        return one(TokKind::LParen);
    case ')':
        return one(TokKind::RParen);
    case '{':
        return one(TokKind::LBrace);
    case '}':
        return one(TokKind::RBrace);
    case '[':
        return one(TokKind::LBracket);
    case ']':
        return one(TokKind::RBracket);
    case '>':
        return one(TokKind::Greater);
    case ',':
        return one(TokKind::Comma);
    case ':':
        return one(TokKind::Colon);
    case '=':
        return one(TokKind::Equal);
    case '#':
        return one(TokKind::Hash);
    case '+':
        return one(TokKind::Plus);
    case '*':
        return one(TokKind::Star);
    case '!':
        return one(TokKind::Bang);
    case '/':
        return one(TokKind::Slash);
    case '<':
        if (peek() == '-') {
            advance();
            return one(TokKind::LeftArrow);
        }
        return one(TokKind::Less);
    case '-':
        if (peek() == '>') {
            advance();
            return one(TokKind::Arrow);
        }
        return one(TokKind::Minus);
    default:
        fail(loc, fmt::format("unexpected {}", describeChar(c)));
    }
}

namespace {

uint32_t hashName(std::string_view name) {
    uint64_t h = std::hash<std::string_view>{}(name);
    return uint32_t(h ^ (h >> 32));
}

} // namespace

size_t NameIndex::probe(std::string_view name, uint32_t hash) const {
    size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot& s = m_slots[i];
        if (s.id == kNone) return i;
        if (s.hash == hash && s.length == name.size() && std::string_view(s.data, s.length) == name)
            return i;
    }
}

void NameIndex::grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    for (const Slot& s : old)
        if (s.id != kNone) m_slots[probe(std::string_view(s.data, s.length), s.hash)] = s;
}

std::pair<uint32_t, bool> NameIndex::insert(std::string_view name, uint32_t id) {
    if (2 * (m_size + 1) > m_slots.size()) grow();
    uint32_t hash = hashName(name);
    Slot& s = m_slots[probe(name, hash)];
    if (s.id != kNone) return {s.id, false};
    s = Slot{name.data(), uint32_t(name.size()), hash, id};
    ++m_size;
    return {id, true};
}

uint32_t NameIndex::find(std::string_view name) const {
    if (m_slots.empty()) return kNone;
    return m_slots[probe(name, hashName(name))].id;
}

std::string_view closestMatch(std::string_view word, std::span<const std::string_view> candidates) {
    std::string_view best;
    size_t bestDistance = SIZE_MAX;
    for (std::string_view c : candidates) {
        size_t d = editDistance(word, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    size_t limit = std::max<size_t>(1, word.size() / 3);
    if (bestDistance == 0 || bestDistance > limit || bestDistance >= word.size()) return {};
    return best;
}

} // namespace pto
