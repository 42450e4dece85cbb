// The tokenizer shared by the .pto parser and the PTO listing parser: identifiers, %values,
// @symbols, numbers, strings and punctuation, each with its line and column.
#pragma once

// Tokens are produced on demand (one at a time) so that a 400k-op file is never held as a token
// array. Lexical errors (an unexpected character, an unterminated string, an integer that does
// not fit in 64 bits) throw CompileError at the offending character.
//
// Numbers: decimal integers, hexadecimal integers (0x1f), and floats (1.5, 2e-3, 1.5e+10). A '-'
// directly followed by a digit is part of the number; '->' is an arrow; any other '-' is Minus.
// Shape literals such as 64x1024xf16 lex as the integer 64 followed by the identifier
// x1024xf16 (the parsers split it; see Parser.cpp). A value name directly followed by '#' and
// digits is one name: %r#0 is result 0 of `%r:2 = for ...`.

#include "compiler/ir/Diagnostics.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pto {

enum class TokKind : uint8_t {
    Eof,
    Ident,     // func, add, f16, UB, MTE2 …
    ValueName, // %x (text without '%')
    AtName,    // @softmax (text without '@')
    Int,       // 42, -3, 0x8000
    Float,     // 0.5, -1e-06
    String,    // "rne" (text = contents, escapes resolved)
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    Arrow,     // ->
    LeftArrow, // <-
    Hash,      // #
    Bang,      // !
    Slash,     // /
    Minus,     // - not followed by a digit or '>'
    Plus,      // + (affine view offsets)
    Star,      // * (affine view offsets)
};

struct Token {
    TokKind kind = TokKind::Eof;
    std::string_view text; // the spelling (for ValueName/AtName without the sigil)
    SourceLoc loc;
    size_t offset = 0;     // byte offset of the first character in the input
    size_t end = 0;        // byte offset one past the last character
    int64_t intValue = 0;  // Int
    double floatValue = 0; // Float (and Int, converted)
    std::string str;       // String contents with escapes resolved

    bool is(TokKind k) const { return kind == k; }
    bool isIdent(std::string_view word) const { return kind == TokKind::Ident && text == word; }
};

// How a token is shown in "found ..." messages: 'add', '%x', end of file.
std::string describeToken(const Token& tok);

class Lexer {
public:
    Lexer(std::string_view text, std::string file);

    // The next token; Eof forever at the end of the input.
    Token next();
    const std::string& file() const { return m_file; }
    std::string_view text() const { return m_text; }

private:
    [[noreturn]] void fail(SourceLoc loc, const std::string& message) const;
    char peek(size_t ahead = 0) const;
    void advance();
    void skipSpaceAndComments();
    Token makeToken(TokKind kind, size_t start, SourceLoc loc) const;
    Token lexNumber(size_t start, SourceLoc loc);
    Token lexName(TokKind kind, size_t start, SourceLoc loc);
    Token lexString(size_t start, SourceLoc loc);
    Token lexPunct(size_t start, SourceLoc loc);

    std::string_view m_text;
    std::string m_file;
    size_t m_pos = 0;
    uint32_t m_line = 1;
    uint32_t m_col = 1;
};

// A map from names to ids by open addressing. The parsers and the printer look up hundreds of
// thousands of value names, where std::unordered_map's chasing of nodes dominates. Keys are
// string_views that the caller keeps alive (names in the input text, or in the IR).
class NameIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // Inserts name -> id unless the name is present. Returns the id stored for the name (the new
    // one or the existing one) and whether it was inserted.
    std::pair<uint32_t, bool> insert(std::string_view name, uint32_t id);
    // The id of `name`, or kNone.
    uint32_t find(std::string_view name) const;
    bool contains(std::string_view name) const { return find(name) != kNone; }
    size_t size() const { return m_size; }

private:
    struct Slot {
        const char* data = nullptr;
        uint32_t length = 0;
        uint32_t hash = 0;
        uint32_t id = kNone;
    };
    size_t probe(std::string_view name, uint32_t hash) const;
    void grow();

    std::vector<Slot> m_slots;
    size_t m_size = 0;
};

// The candidate closest to `word` by edit distance, or empty when none is close enough to be a
// plausible typo (used for "did you mean ...?" hints).
std::string_view closestMatch(std::string_view word, std::span<const std::string_view> candidates);

} // namespace pto
