// The token cursor both text parsers (.pto programs and .ptoasm listings) read through: the
// current token, advance/accept/expect, and errors worded one way ("expected X, found Y").
#pragma once

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Lexer.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace pto {

class TokenCursor {
protected:
    TokenCursor(std::string_view text, std::string file) : m_lex(text, std::move(file)) {
        m_tok = m_lex.next();
    }

    const std::string& file() const { return m_lex.file(); }
    void advance() { m_tok = m_lex.next(); }
    Token take() {
        Token t = std::move(m_tok);
        advance();
        return t;
    }
    bool accept(TokKind kind) {
        if (!m_tok.is(kind)) return false;
        advance();
        return true;
    }
    [[noreturn]] void fail(SourceLoc loc, std::string message) const {
        throw CompileError(file(), loc, std::move(message));
    }
    [[noreturn]] void failExpected(std::string_view what) const {
        fail(m_tok.loc, fmt::format("expected {}, found {}", what, describeToken(m_tok)));
    }
    Token expect(TokKind kind, std::string_view what) {
        if (!m_tok.is(kind)) failExpected(what);
        return take();
    }
    /// The token after the current one, without moving.
    Token peekNext() const {
        Lexer copy = m_lex;
        return copy.next();
    }

    Lexer m_lex;
    Token m_tok;
};

} // namespace pto
