// Recursive-descent parser of the .pto text format (grammar in docs/PTO_LANGUAGE.md).
#include "compiler/ir/Parser.h"

#include "compiler/ir/Lexer.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

namespace pto {
namespace {

std::vector<std::string_view> allMnemonics() {
    std::vector<std::string_view> names;
    for (int i = 0; i < opKindCount(); ++i) names.push_back(opInfo(OpKind(i)).mnemonic);
    return names;
}

std::optional<OpKind> scalarFormOf(OpKind kind) {
    switch (kind) {
    case OpKind::Add:
        return OpKind::AddS;
    case OpKind::Sub:
        return OpKind::SubS;
    case OpKind::Mul:
        return OpKind::MulS;
    case OpKind::Div:
        return OpKind::DivS;
    case OpKind::Max:
        return OpKind::MaxS;
    case OpKind::Min:
        return OpKind::MinS;
    case OpKind::Cmp:
        return OpKind::CmpS;
    default:
        return std::nullopt;
    }
}

std::string plural(int n, std::string_view word) {
    return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// What the parser knows about the function being parsed.
struct FunctionState {
    Function f;
    NameIndex byName;
    std::vector<SourceLoc> defLoc; // per value: where its name was defined
    std::vector<Type> resultTypes; // from the signature
    SourceLoc bodyStart;
    bool returned = false;
};

// The suffix of an op line: loc(7:5) #12<-#3 origin(5, [16, 0]).
struct OpSuffix {
    std::optional<SourceLoc> loc;
    OpId parent = kNoId;
    std::optional<std::pair<ValueId, Shape>> origin;
};

class Parser {
public:
    Parser(std::string_view text, std::string file) : m_lex(text, std::move(file)) {
        m_tok = m_lex.next();
    }

    Module parseModule();

private:
    // Tokens.
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
    Token peekNext() const {
        Lexer copy = m_lex;
        return copy.next();
    }

    // Functions.
    Function parseFunction();
    Level prescanLevel() const;
    void parseSignature(FunctionState& s);
    void parseBody(FunctionState& s);
    void parseReturn(FunctionState& s);
    void defineName(FunctionState& s, const Token& name, ValueId v);

    // Ops.
    ValueId parseOpExpr(FunctionState& s, const Token* result, bool topLevel);
    OpKind parseMnemonic(const FunctionState& s);
    void parseOperands(FunctionState& s, OpKind& kind, Op& op);
    void parseFixedOperands(FunctionState& s, OpKind kind, Op& op, int count);
    ValueId parseOperand(FunctionState& s);
    bool atScalarLiteral() const;
    double parseScalarLiteral();
    void parseDirectiveSizes(Op& op);
    void parseAttrDict(OpKind kind, Level level, Attrs& attrs);
    AttrValue parseAttrValue();
    std::vector<int64_t> parseIntList();
    OpSuffix parseSuffix();
    ValueId buildOp(FunctionState& s, Op op, const Token& mnemonic, const Token* result,
                    const std::optional<Type>& declared, const OpSuffix& suffix);

    // Types.
    Type parseType(Level level);
    void parseShapeBody(Type& type);
    void pushDim(Type& type, std::string_view digits, SourceLoc loc);

    Lexer m_lex;
    Token m_tok;
    std::vector<std::string_view> m_mnemonics = allMnemonics();
    int m_nesting = 0; // parenthesised ops open around the current token
};

// --- module and functions ------------------------------------------------------------------

Module Parser::parseModule() {
    Module m;
    m.file = file();
    if (m_tok.is(TokKind::Eof))
        fail(m_tok.loc, "empty input: expected a function ('func @name(...) -> type { ... }')");
    std::unordered_map<std::string, SourceLoc> seen;
    while (!m_tok.is(TokKind::Eof)) {
        if (!m_tok.isIdent("func")) failExpected("'func' to start a function");
        SourceLoc at = m_tok.loc;
        Function f = parseFunction();
        auto [it, fresh] = seen.emplace(f.name, at);
        if (!fresh)
            fail(at, fmt::format("redefinition of function @{} (first defined at {}:{})", f.name,
                                 it->second.line, it->second.col));
        m.functions.push_back(std::move(f));
    }
    return m;
}

// Decides the level before parsing the function: Tile iff a tile<> type or a Move op appears
// between here and the end of the body. Lexical errors end the scan; the parse reports them.
Level Parser::prescanLevel() const {
    Lexer scan = m_lex;
    Token t = m_tok;
    int depth = 0;
    bool inBody = false;
    try {
        while (!t.is(TokKind::Eof)) {
            if (t.isIdent("tile") && t.end < scan.text().size() && scan.text()[t.end] == '<')
                return Level::Tile;
            if (t.is(TokKind::Ident))
                if (auto k = parseOpKind(t.text); k && opInfo(*k).cls == OpClass::Move)
                    return Level::Tile;
            if (t.is(TokKind::LBrace)) {
                ++depth;
                inBody = true;
            }
            if (t.is(TokKind::RBrace) && --depth <= 0 && inBody) break;
            if (t.isIdent("func") && depth == 0) break;
            t = scan.next();
        }
    } catch (const CompileError&) {
    }
    return Level::Tensor;
}

Function Parser::parseFunction() {
    FunctionState s;
    s.f.loc = take().loc; // 'func'
    s.f.name = std::string(expect(TokKind::AtName, "a function name such as @softmax").text);
    s.f.level = prescanLevel();
    parseSignature(s);
    if (m_tok.isIdent("loc")) {
        OpSuffix suffix = parseSuffix();
        if (suffix.loc) s.f.loc = *suffix.loc;
    }
    s.bodyStart =
        expect(TokKind::LBrace, fmt::format("'{{' to open the body of @{}", s.f.name)).loc;
    parseBody(s);
    return std::move(s.f);
}

void Parser::parseSignature(FunctionState& s) {
    expect(TokKind::LParen, fmt::format("'(' after @{}", s.f.name));
    if (!accept(TokKind::RParen)) {
        while (true) {
            Token name = expect(TokKind::ValueName, "an argument such as %x");
            expect(TokKind::Colon, fmt::format("':' and a type after argument %{}", name.text));
            Type t = parseType(s.f.level);
            ValueId v = s.f.addArg(t, std::string(name.text));
            defineName(s, name, v);
            if (accept(TokKind::Comma)) continue;
            if (!m_tok.is(TokKind::RParen)) failExpected("',' or ')' after an argument");
            advance();
            break;
        }
    }
    if (!accept(TokKind::Arrow)) return;
    if (!accept(TokKind::LParen)) {
        s.resultTypes.push_back(parseType(s.f.level));
        return;
    }
    if (accept(TokKind::RParen)) return;
    while (true) {
        s.resultTypes.push_back(parseType(s.f.level));
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RParen, "',' or ')' in the result types");
        return;
    }
}

void Parser::parseBody(FunctionState& s) {
    while (true) {
        if (m_tok.is(TokKind::Eof))
            fail(m_tok.loc, fmt::format("unterminated body of @{}: expected '}}' before the end "
                                        "of the file (the body opens at {}:{})",
                                        s.f.name, s.bodyStart.line, s.bodyStart.col));
        if (m_tok.is(TokKind::RBrace)) {
            if (!s.returned)
                fail(m_tok.loc, fmt::format("missing 'return' at the end of @{}", s.f.name));
            advance();
            return;
        }
        if (s.returned)
            fail(m_tok.loc, fmt::format("'return' must be the last statement of @{}, found {} "
                                        "after it",
                                        s.f.name, describeToken(m_tok)));
        if (m_tok.isIdent("return")) {
            parseReturn(s);
        } else if (m_tok.is(TokKind::ValueName)) {
            Token result = take();
            expect(TokKind::Equal, fmt::format("'=' after %{}", result.text));
            parseOpExpr(s, &result, true);
        } else if (m_tok.is(TokKind::Ident)) {
            parseOpExpr(s, nullptr, true);
        } else {
            failExpected("an op, '%name = <op>', 'return' or '}'");
        }
    }
}

void Parser::parseReturn(FunctionState& s) {
    Token ret = take();
    std::vector<ValueId> values;
    std::vector<SourceLoc> locs;
    if (m_tok.is(TokKind::ValueName) || m_tok.is(TokKind::LParen)) {
        do {
            locs.push_back(m_tok.loc);
            values.push_back(parseOperand(s));
        } while (accept(TokKind::Comma));
    }
    if (values.size() != s.resultTypes.size())
        fail(ret.loc, fmt::format("@{} returns {} but its signature declares {}", s.f.name,
                                  plural(int(values.size()), "value"),
                                  plural(int(s.resultTypes.size()), "result")));
    for (size_t i = 0; i < values.size(); ++i) {
        const Type& t = s.f.type(values[i]);
        if (t != s.resultTypes[i])
            fail(locs[i], fmt::format("return value {} has type {}, but @{} declares {}", i,
                                      formatType(t, s.f.level), s.f.name,
                                      formatType(s.resultTypes[i], s.f.level)));
    }
    s.f.results = std::move(values);
    s.returned = true;
}

void Parser::defineName(FunctionState& s, const Token& name, ValueId v) {
    if (s.defLoc.size() <= v) s.defLoc.resize(v + 1);
    s.defLoc[v] = name.loc;
    auto [old, fresh] = s.byName.insert(name.text, v);
    if (!fresh) {
        SourceLoc first = s.defLoc[old];
        fail(name.loc, fmt::format("redefinition of %{} (first defined at {}:{})", name.text,
                                   first.line, first.col));
    }
}

// --- ops -----------------------------------------------------------------------------------

OpKind Parser::parseMnemonic(const FunctionState& s) {
    if (!m_tok.is(TokKind::Ident)) failExpected("an op name");
    std::optional<OpKind> kind = parseOpKind(m_tok.text);
    if (!kind) {
        std::string_view hint = closestMatch(m_tok.text, m_mnemonics);
        fail(m_tok.loc,
             hint.empty() ? fmt::format("unknown op '{}'", m_tok.text)
                          : fmt::format("unknown op '{}' (did you mean '{}'?)", m_tok.text, hint));
    }
    uint8_t levels = opInfo(*kind).levels;
    if (s.f.level == Level::Tensor && !(levels & kLevelTensor))
        fail(m_tok.loc, fmt::format("'{}' is a Tile-level op, but @{} is a Tensor-level function "
                                    "(it has no tile<> values)",
                                    m_tok.text, s.f.name));
    if (s.f.level == Level::Tile && !(levels & kLevelTile))
        fail(m_tok.loc, fmt::format("'{}' is a Tensor-level op, but @{} is a Tile-level function "
                                    "(it contains tile<> values or data movement)",
                                    m_tok.text, s.f.name));
    return *kind;
}

ValueId Parser::parseOpExpr(FunctionState& s, const Token* result, bool topLevel) {
    if (result)
        if (ValueId old = s.byName.find(result->text); old != NameIndex::kNone)
            fail(result->loc, fmt::format("redefinition of %{} (first defined at {}:{})",
                                          result->text, s.defLoc[old].line, s.defLoc[old].col));
    OpKind kind = parseMnemonic(s);
    Token mnemonic = take();
    Op op;
    op.loc = mnemonic.loc;
    if (isDirective(kind))
        parseDirectiveSizes(op);
    else
        parseOperands(s, kind, op);
    op.kind = kind;
    if (m_tok.is(TokKind::LBrace)) parseAttrDict(kind, s.f.level, op.attrs);
    std::optional<Type> declared;
    if (accept(TokKind::Colon)) declared = parseType(s.f.level);
    OpSuffix suffix = topLevel ? parseSuffix() : OpSuffix{};
    if (opHasResult(kind) && topLevel && !result)
        fail(mnemonic.loc, fmt::format("the result of '{}' must be named: write '%name = {} ...'",
                                       mnemonic.text, mnemonic.text));
    if (!opHasResult(kind) && result)
        fail(result->loc,
             fmt::format("'{}' has no result to assign to %{}", mnemonic.text, result->text));
    if (!opHasResult(kind) && !topLevel)
        fail(mnemonic.loc,
             fmt::format("'{}' has no result, so it cannot be an operand", mnemonic.text));
    return buildOp(s, std::move(op), mnemonic, result, declared, suffix);
}

void Parser::parseOperands(FunctionState& s, OpKind& kind, Op& op) {
    OpClass cls = opInfo(kind).cls;
    auto [lo, hi] = operandCountRange(kind);
    if (cls == OpClass::Scalar) {
        op.operands.push_back(parseOperand(s));
        if (accept(TokKind::Comma)) op.attrs.set("scalar", parseScalarLiteral());
        return;
    }
    if (std::optional<OpKind> scalarKind = scalarFormOf(kind)) {
        OpKind written = kind;
        op.operands.push_back(parseOperand(s));
        if (!m_tok.is(TokKind::Comma))
            failExpected(
                fmt::format("',' and a second operand ('{}' takes 2 operands)", opName(kind)));
        advance();
        if (atScalarLiteral()) {
            kind = *scalarKind;
            op.attrs.set("scalar", parseScalarLiteral());
        } else {
            op.operands.push_back(parseOperand(s));
        }
        if (m_tok.is(TokKind::Comma))
            fail(m_tok.loc, fmt::format("too many operands: '{}' takes 2", opName(written)));
        return;
    }
    if (lo == hi) {
        parseFixedOperands(s, kind, op, lo);
        return;
    }
    SourceLoc extra;
    do {
        if (int(op.operands.size()) == hi) extra = m_tok.loc;
        op.operands.push_back(parseOperand(s));
    } while (accept(TokKind::Comma));
    int n = int(op.operands.size());
    if (n > hi)
        fail(extra,
             fmt::format("too many operands: '{}' takes at most {}, got {}", opName(kind), hi, n));
}

void Parser::parseFixedOperands(FunctionState& s, OpKind kind, Op& op, int count) {
    if (count == 0) {
        bool looksLikeOperand = m_tok.is(TokKind::LParen) ||
                                (m_tok.is(TokKind::ValueName) && !peekNext().is(TokKind::Equal));
        if (looksLikeOperand)
            fail(m_tok.loc, fmt::format("'{}' takes no operands, found {}", opName(kind),
                                        describeToken(m_tok)));
        return;
    }
    for (int i = 0; i < count; ++i) {
        if (i > 0) {
            if (!m_tok.is(TokKind::Comma))
                failExpected(fmt::format("',' and operand {} of '{}' (it takes {})", i + 1,
                                         opName(kind), plural(count, "operand")));
            advance();
        }
        op.operands.push_back(parseOperand(s));
    }
    if (m_tok.is(TokKind::Comma))
        fail(m_tok.loc, fmt::format("too many operands: '{}' takes {}", opName(kind),
                                    plural(count, "operand")));
}

ValueId Parser::parseOperand(FunctionState& s) {
    if (m_tok.is(TokKind::ValueName)) {
        ValueId v = s.byName.find(m_tok.text);
        if (v == NameIndex::kNone)
            fail(m_tok.loc, fmt::format("use of undefined value %{}", m_tok.text));
        advance();
        return v;
    }
    if (m_tok.is(TokKind::LParen)) {
        if (m_nesting >= kMaxOpNesting)
            fail(m_tok.loc, fmt::format("ops nested more than {} levels deep (the limit of "
                                        "parenthesised operands); name an intermediate result "
                                        "with '%name = ...' instead",
                                        kMaxOpNesting));
        advance();
        ++m_nesting;
        ValueId v = parseOpExpr(s, nullptr, false);
        --m_nesting;
        expect(TokKind::RParen, "')' to close the nested op");
        return v;
    }
    failExpected("an operand (%value or a parenthesised op)");
}

bool Parser::atScalarLiteral() const {
    return m_tok.is(TokKind::Int) || m_tok.is(TokKind::Float) || m_tok.is(TokKind::Minus) ||
           m_tok.isIdent("inf") || m_tok.isIdent("nan");
}

double Parser::parseScalarLiteral() {
    bool negative = accept(TokKind::Minus);
    double v = 0;
    if (m_tok.is(TokKind::Int) || m_tok.is(TokKind::Float))
        v = m_tok.floatValue;
    else if (m_tok.isIdent("inf"))
        v = std::numeric_limits<double>::infinity();
    else if (m_tok.isIdent("nan"))
        v = std::numeric_limits<double>::quiet_NaN();
    else
        failExpected("a number");
    advance();
    return negative ? -v : v;
}

void Parser::parseDirectiveSizes(Op& op) {
    std::vector<int64_t> sizes;
    if (!m_tok.is(TokKind::LBracket)) failExpected("a size list such as [16, 1024]");
    do {
        std::vector<int64_t> part = parseIntList();
        sizes.insert(sizes.end(), part.begin(), part.end());
    } while (accept(TokKind::Comma));
    op.attrs.set("sizes", std::move(sizes));
}

std::vector<int64_t> Parser::parseIntList() {
    expect(TokKind::LBracket, "'['");
    std::vector<int64_t> list;
    if (accept(TokKind::RBracket)) return list;
    while (true) {
        if (!m_tok.is(TokKind::Int)) failExpected("an integer in the list");
        list.push_back(take().intValue);
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RBracket, "',' or ']' in the list");
        return list;
    }
}

void Parser::parseAttrDict(OpKind kind, Level level, Attrs& attrs) {
    expect(TokKind::LBrace, "'{'");
    if (accept(TokKind::RBrace)) return;
    std::span<const std::string_view> known = knownAttrNames(kind);
    while (true) {
        if (!m_tok.is(TokKind::Ident)) failExpected("an attribute name");
        Token name = take();
        bool isKnown = std::find(known.begin(), known.end(), name.text) != known.end() ||
                       (name.text == "vec_tile" && !isDirective(kind));
        if (level == Level::Tensor && !isKnown) {
            std::vector<std::string_view> candidates(known.begin(), known.end());
            if (!isDirective(kind)) candidates.push_back("vec_tile");
            std::string_view hint = closestMatch(name.text, candidates);
            std::string list = candidates.empty()
                                   ? std::string("it takes none")
                                   : fmt::format("it takes {}", fmt::join(candidates, ", "));
            fail(name.loc, hint.empty() ? fmt::format("unknown attribute '{}' for '{}' ({})",
                                                      name.text, opName(kind), list)
                                        : fmt::format("unknown attribute '{}' for '{}' (did "
                                                      "you mean '{}'?)",
                                                      name.text, opName(kind), hint));
        }
        if (attrs.has(name.text))
            fail(name.loc, fmt::format("duplicate attribute '{}'", name.text));
        attrs.set(name.text, accept(TokKind::Equal) ? parseAttrValue() : AttrValue(true));
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RBrace, "',' or '}' in the attribute list");
        return;
    }
}

AttrValue Parser::parseAttrValue() {
    if (m_tok.is(TokKind::Int)) return take().intValue;
    if (m_tok.is(TokKind::Float)) return take().floatValue;
    if (m_tok.is(TokKind::String)) return take().str;
    if (m_tok.is(TokKind::LBracket)) return parseIntList();
    if (m_tok.is(TokKind::Minus) || m_tok.isIdent("inf") || m_tok.isIdent("nan"))
        return parseScalarLiteral();
    if (m_tok.isIdent("true") || m_tok.isIdent("false")) return take().text == "true";
    if (m_tok.is(TokKind::Ident)) return std::string(take().text);
    failExpected("an attribute value (number, \"string\", [list], true or false)");
}

OpSuffix Parser::parseSuffix() {
    OpSuffix suffix;
    if (m_tok.isIdent("loc") && peekNext().is(TokKind::LParen)) {
        advance();
        advance();
        if (m_tok.isIdent("unknown")) {
            advance();
            suffix.loc = SourceLoc{};
        } else {
            int64_t line = expect(TokKind::Int, "a line number").intValue;
            expect(TokKind::Colon, "':' between line and column");
            int64_t col = expect(TokKind::Int, "a column number").intValue;
            if (line <= 0 || col <= 0 || line > UINT32_MAX || col > UINT32_MAX)
                fail(m_tok.loc, "loc(line:col) needs positive 32-bit numbers");
            suffix.loc = SourceLoc{uint32_t(line), uint32_t(col)};
        }
        expect(TokKind::RParen, "')' after the location");
    }
    if (accept(TokKind::Hash)) {
        expect(TokKind::Int, "an op id after '#'");
        if (accept(TokKind::LeftArrow)) {
            expect(TokKind::Hash, "'#' before the parent id");
            int64_t parent = expect(TokKind::Int, "a parent op id").intValue;
            if (parent < 0 || parent >= int64_t(kNoId)) fail(m_tok.loc, "parent id out of range");
            suffix.parent = OpId(parent);
        }
    }
    if (m_tok.isIdent("origin") && peekNext().is(TokKind::LParen)) {
        advance();
        advance();
        int64_t origin = expect(TokKind::Int, "the origin value id").intValue;
        if (origin < 0 || origin >= int64_t(kNoId)) fail(m_tok.loc, "origin id out of range");
        expect(TokKind::Comma, "',' and the tile offset");
        SourceLoc at = m_tok.loc;
        std::vector<int64_t> offset = parseIntList();
        if (offset.size() > size_t(Shape::kMaxRank)) fail(at, "offset has too many dims");
        suffix.origin.emplace(ValueId(origin), Shape(std::span<const int64_t>(offset)));
        expect(TokKind::RParen, "')' after the origin");
    }
    return suffix;
}

ValueId Parser::buildOp(FunctionState& s, Op op, const Token& mnemonic, const Token* result,
                        const std::optional<Type>& declared, const OpSuffix& suffix) {
    std::vector<Type> types;
    types.reserve(op.operands.size());
    for (ValueId v : op.operands) types.push_back(s.f.type(v));
    normalizeAttrs(op.kind, types, op.attrs);
    Type type;
    try {
        type =
            inferResultType(s.f.level, op.kind, types, op.attrs, declared ? &*declared : nullptr);
    } catch (const ShapeError& e) {
        std::string entity(opName(op.kind));
        if (result) entity += fmt::format(" %{}", result->text);
        fail(mnemonic.loc, fmt::format("{}: {}", entity, e.detail()));
    }
    if (suffix.loc) op.loc = *suffix.loc;
    op.parent = suffix.parent;
    bool hasResult = opHasResult(op.kind);
    OpId id = s.f.addOp(std::move(op), hasResult ? &type : nullptr,
                        result ? std::string(result->text) : std::string());
    ValueId v = s.f.op(id).result;
    if (!hasResult) return kNoId;
    if (result) defineName(s, *result, v);
    if (suffix.origin) {
        s.f.value(v).origin = suffix.origin->first;
        s.f.value(v).offset = suffix.origin->second;
    }
    return v;
}

// --- types ---------------------------------------------------------------------------------

Type Parser::parseType(Level level) {
    bool isTile = m_tok.isIdent("tile");
    if (!isTile && !m_tok.isIdent("tensor"))
        failExpected("a type such as tensor<64x1024xf16> or tile<16x1024xf32, UB>");
    SourceLoc at = m_tok.loc;
    advance();
    expect(TokKind::Less, isTile ? "'<' after 'tile'" : "'<' after 'tensor'");
    Type type;
    parseShapeBody(type);
    if (isTile && accept(TokKind::Comma)) {
        Token space = expect(TokKind::Ident, "a memory space (L1, L0A, L0B, L0C or UB)");
        std::optional<MemSpace> ms = parseMemSpace(space.text);
        if (!ms || *ms == MemSpace::None || *ms == MemSpace::GM)
            fail(space.loc, fmt::format("unknown memory space '{}' for a tile (one of L1, L0A, "
                                        "L0B, L0C, UB; GM values are written tensor<...>)",
                                        space.text));
        type.space = *ms;
    }
    expect(TokKind::Greater, "'>' to close the type");
    if (isTile && level == Level::Tensor) fail(at, "tile<> types need a Tile-level function");
    if (!isTile) type.space = level == Level::Tile ? MemSpace::GM : MemSpace::None;
    return type;
}

// The body of tensor<64x1024xf16>: it lexes as Int(64) Ident(x1024xf16), or Ident(f16) for
// rank 0. The identifier's 'x'-separated pieces are the remaining dims and the dtype.
void Parser::parseShapeBody(Type& type) {
    std::string_view rest;
    SourceLoc restLoc;
    if (m_tok.is(TokKind::Int)) {
        if (m_tok.text.starts_with("0x") || m_tok.text.starts_with("0X"))
            fail(m_tok.loc, "dimension 0 must be positive");
        Token first = take();
        pushDim(type, first.text, first.loc);
        if (!m_tok.is(TokKind::Ident) || m_tok.offset != first.end || m_tok.text[0] != 'x')
            failExpected("'x' and the next dim or the dtype (as in 64x1024xf16)");
        rest = m_tok.text.substr(1);
        restLoc = SourceLoc{m_tok.loc.line, m_tok.loc.col + 1};
    } else if (m_tok.is(TokKind::Ident)) {
        rest = m_tok.text;
        restLoc = m_tok.loc;
    } else {
        failExpected("a shape and dtype such as 64x1024xf16");
    }
    while (true) {
        size_t x = rest.find('x');
        if (x == std::string_view::npos) break;
        pushDim(type, rest.substr(0, x), restLoc);
        rest = rest.substr(x + 1);
        restLoc.col += uint32_t(x + 1);
    }
    std::optional<DType> dtype = parseDType(rest);
    if (!dtype)
        fail(restLoc, fmt::format("unknown dtype '{}' (one of f32, f16, bf16, i8, i32, i1)", rest));
    type.dtype = *dtype;
    advance();
}

void Parser::pushDim(Type& type, std::string_view digits, SourceLoc loc) {
    int64_t d = 0;
    bool decimal =
        !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (!decimal)
        fail(loc, fmt::format("expected a dimension (a positive integer), found '{}'", digits));
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
    if (ec != std::errc() || d > kMaxElements)
        fail(loc, fmt::format("dimension {} is too large (at most 2^48)", digits));
    if (d <= 0) fail(loc, fmt::format("dimension {} must be positive", digits));
    if (type.shape.rank() >= Shape::kMaxRank)
        fail(loc, fmt::format("too many dimensions: the rank is at most {}", Shape::kMaxRank));
    if (type.shape.numel() > kMaxElements / d)
        fail(loc,
             fmt::format("the type has too many elements ({}x{} > 2^48)", type.shape.str(), d));
    type.shape.push(d);
}

} // namespace

Module parseModule(std::string_view text, std::string file, bool verify) {
    Module m = Parser(text, std::move(file)).parseModule();
    m.source = std::string(text);
    if (verify)
        for (const Function& f : m.functions) verifyFunction(f, m.file);
    return m;
}

Function parseFunctionText(std::string_view text, std::string file) {
    Module m = parseModule(text, file);
    if (m.functions.size() != 1)
        throw CompileError(
            file, {}, fmt::format("expected exactly one function, found {}", m.functions.size()));
    return std::move(m.functions.front());
}

} // namespace pto
