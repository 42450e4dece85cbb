// Source spans of directives, attribute dictionaries and function bodies, and byte edits of a
// program's text (driver/ProgramTextEdit.h).
#include "driver/ProgramTextEdit.h"

#include "compiler/ir/Lexer.h"

#include <algorithm>

namespace pto {
namespace {

// The tokens of the source from a byte offset on, one token of lookahead; offsets are those of
// the whole source.
class TokenScan {
public:
    TokenScan(std::string_view source, size_t offset)
        : m_lexer(source.substr(offset), "<program>"), m_base(offset) {
        m_next = read();
    }
    const Token& peek() const { return m_next; }
    Token take() {
        Token t = m_next;
        m_next = read();
        return t;
    }

private:
    Token read() {
        Token t = m_lexer.next();
        t.offset += m_base;
        t.end += m_base;
        return t;
    }
    Lexer m_lexer;
    size_t m_base;
    Token m_next;
};

bool opens(const Token& t) {
    return t.is(TokKind::LParen) || t.is(TokKind::LBracket) || t.is(TokKind::LBrace);
}

bool closes(const Token& t) {
    return t.is(TokKind::RParen) || t.is(TokKind::RBracket) || t.is(TokKind::RBrace);
}

// Takes a bracketed group (the next token opens it); the offset past its closing token.
std::optional<size_t> skipGroup(TokenScan& scan) {
    int depth = 0;
    while (!scan.peek().is(TokKind::Eof)) {
        const Token t = scan.take();
        depth += opens(t) ? 1 : closes(t) ? -1 : 0;
        if (depth == 0) return t.end;
    }
    return std::nullopt;
}

// Lexing from an op's position can meet a lexical error further on: no span then.
template <typename Fn> auto orNothing(Fn&& fn) -> decltype(fn()) {
    try {
        return fn();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// [begin, end) widened to its line (without the newline) when only blanks surround it there.
TextEdit wholeLineOf(std::string_view source, size_t begin, size_t end) {
    size_t lineStart = begin, lineEnd = end;
    while (lineStart > 0 && (source[lineStart - 1] == ' ' || source[lineStart - 1] == '\t'))
        --lineStart;
    while (lineEnd < source.size() &&
           (source[lineEnd] == ' ' || source[lineEnd] == '\t' || source[lineEnd] == '\r'))
        ++lineEnd;
    const bool alone = (lineStart == 0 || source[lineStart - 1] == '\n') &&
                       (lineEnd == source.size() || source[lineEnd] == '\n');
    return alone ? TextEdit{lineStart, lineEnd, ""} : TextEdit{begin, end, ""};
}

// One `name` or `name = value` of an attribute dictionary.
struct AttrSpan {
    std::string name;
    size_t begin = 0;
    size_t valueBegin = 0; // == end for a unit attribute
    size_t end = 0;
};

std::optional<size_t> takeAttrValue(TokenScan& scan) {
    if (opens(scan.peek())) return skipGroup(scan);
    if (scan.peek().is(TokKind::Minus)) scan.take();
    if (scan.peek().is(TokKind::Eof) || closes(scan.peek())) return std::nullopt;
    return scan.take().end;
}

// The attributes of the dictionary whose '{' is next, and the offset past its '}'.
std::optional<std::pair<std::vector<AttrSpan>, size_t>> takeDict(TokenScan& scan) {
    scan.take(); // '{'
    std::vector<AttrSpan> attrs;
    while (!scan.peek().is(TokKind::RBrace)) {
        const Token name = scan.take();
        if (!name.is(TokKind::Ident)) return std::nullopt;
        AttrSpan a{std::string(name.text), name.offset, name.end, name.end};
        if (scan.peek().is(TokKind::Equal)) {
            scan.take();
            a.valueBegin = scan.peek().offset;
            auto end = takeAttrValue(scan);
            if (!end) return std::nullopt;
            a.end = *end;
        }
        attrs.push_back(std::move(a));
        if (scan.peek().is(TokKind::Comma))
            scan.take();
        else if (!scan.peek().is(TokKind::RBrace))
            return std::nullopt;
    }
    return std::pair{std::move(attrs), scan.take().end};
}

// After an op's operands: its attribute dictionary, its type, its suffix, or the next
// statement (a new line that does not continue a list).
bool endsOperands(const Token& t, bool afterComma, uint32_t line) {
    if (t.is(TokKind::Eof) || t.is(TokKind::Colon) || t.is(TokKind::RBrace) ||
        t.is(TokKind::Hash) || t.is(TokKind::LBrace))
        return true;
    if (t.isIdent("loc") || t.isIdent("origin")) return true;
    return !afterComma && t.loc.line != line;
}

// The edit of an op's dictionary `attrs` (past '}' at `dictEnd`; `before`: the end of the
// token before '{', `open`: past '{').
TextEdit dictEdit(const std::vector<AttrSpan>& attrs, size_t before, size_t open, size_t dictEnd,
                  const std::string& name, const std::string& value) {
    auto at =
        std::find_if(attrs.begin(), attrs.end(), [&](const AttrSpan& a) { return a.name == name; });
    const std::string assignment = name + " = " + value;
    if (at == attrs.end()) {
        if (value.empty()) return {open, open, ""};
        if (attrs.empty()) return {open, open, assignment};
        return {attrs.back().end, attrs.back().end, ", " + assignment};
    }
    if (!value.empty()) return {at->begin, at->end, assignment};
    if (attrs.size() == 1) return {before, dictEnd, ""};
    if (at + 1 != attrs.end()) return {at->begin, (at + 1)->begin, ""};
    return {(at - 1)->end, at->end, ""};
}

} // namespace

std::string applyTextEdits(std::string_view source, std::vector<TextEdit> edits) {
    std::stable_sort(edits.begin(), edits.end(),
                     [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
    std::string out;
    size_t at = 0;
    for (const TextEdit& e : edits) {
        out.append(source.substr(at, e.begin - std::min(at, e.begin)));
        out += e.text;
        at = std::max(at, e.end);
    }
    out.append(source.substr(std::min(at, source.size())));
    return out;
}

SourceLines::SourceLines(std::string_view source) : m_source(source) {
    m_starts.push_back(0);
    for (size_t i = 0; i < source.size(); ++i)
        if (source[i] == '\n') m_starts.push_back(i + 1);
}

std::optional<size_t> SourceLines::offsetOf(SourceLoc loc) const {
    if (loc.line == 0 || loc.col == 0 || loc.line > m_starts.size()) return std::nullopt;
    const size_t offset = m_starts[loc.line - 1] + loc.col - 1;
    if (offset >= m_source.size()) return std::nullopt;
    return offset;
}

std::optional<size_t> bodyOpenEnd(std::string_view source, const SourceLines& lines,
                                  const Function& f) {
    const auto start = lines.offsetOf(f.loc);
    if (!start) return std::nullopt;
    return orNothing([&]() -> std::optional<size_t> {
        TokenScan scan(source, *start);
        if (!scan.peek().isIdent("func")) return std::nullopt;
        int depth = 0;
        while (!scan.peek().is(TokKind::Eof)) {
            const Token t = scan.take();
            if (depth == 0 && t.is(TokKind::LBrace)) return t.end;
            depth += t.is(TokKind::LParen) ? 1 : t.is(TokKind::RParen) ? -1 : 0;
        }
        return std::nullopt;
    });
}

std::optional<TextEdit> directiveSpan(std::string_view source, const SourceLines& lines,
                                      const Op& op, bool wholeLine) {
    const auto start = lines.offsetOf(op.loc);
    if (!start) return std::nullopt;
    return orNothing([&]() -> std::optional<TextEdit> {
        TokenScan scan(source, *start);
        if (!scan.take().is(TokKind::Ident) || !scan.peek().is(TokKind::LBracket))
            return std::nullopt;
        auto end = skipGroup(scan);
        while (end && scan.peek().is(TokKind::Comma)) {
            scan.take();
            if (!scan.peek().is(TokKind::LBracket)) return std::nullopt;
            end = skipGroup(scan);
        }
        if (!end) return std::nullopt;
        return wholeLine ? wholeLineOf(source, *start, *end) : TextEdit{*start, *end, ""};
    });
}

std::optional<TextEdit> attributeEdit(std::string_view source, const SourceLines& lines,
                                      const Op& op, const std::string& name,
                                      const std::string& value) {
    const auto start = lines.offsetOf(op.loc);
    if (!start) return std::nullopt;
    return orNothing([&]() -> std::optional<TextEdit> {
        TokenScan scan(source, *start);
        const Token mnemonic = scan.take();
        size_t lastEnd = mnemonic.end;
        uint32_t line = mnemonic.loc.line;
        bool afterComma = false;
        while (!endsOperands(scan.peek(), afterComma, line)) {
            afterComma = scan.peek().is(TokKind::Comma);
            line = scan.peek().loc.line;
            auto end = opens(scan.peek()) ? skipGroup(scan) : std::optional(scan.take().end);
            if (!end) return std::nullopt;
            lastEnd = *end;
        }
        if (!scan.peek().is(TokKind::LBrace)) {
            if (value.empty()) return TextEdit{lastEnd, lastEnd, ""};
            return TextEdit{lastEnd, lastEnd, " {" + name + " = " + value + "}"};
        }
        const size_t open = scan.peek().end;
        auto dict = takeDict(scan);
        if (!dict) return std::nullopt;
        return dictEdit(dict->first, lastEnd, open, dict->second, name, value);
    });
}

} // namespace pto
