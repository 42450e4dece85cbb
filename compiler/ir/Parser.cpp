// Recursive-descent parser of the .pto text format (grammar in docs/PTO_LANGUAGE.md).
#include "compiler/ir/Parser.h"

#include "compiler/ir/Lexer.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/TokenCursor.h"
#include "compiler/ir/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
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

// What the parser knows about the function (or loop body) being parsed.
struct FunctionState {
    Function f;
    NameIndex byName;
    std::vector<SourceLoc> defLoc; // per value: where its name was defined
    std::vector<Type> resultTypes; // from the signature (loop body: the iter_args' types)
    SourceLoc bodyStart;
    bool returned = false;
    // Loop bodies: the enclosing scope, and the outer value behind each capture argument.
    FunctionState* outer = nullptr;
    std::vector<ValueId> captureSources;
    std::vector<std::string> iterNames; // the iter_args, for yield messages
    // Induction variables of loops closed in this scope: name -> the loop's position.
    std::unordered_map<std::string_view, SourceLoc> closedIvs;
    // Induction variables visible here (the body's own and captured ones) -> their loop's 'for'.
    std::unordered_map<ValueId, SourceLoc> ivLoops;
};

// A called function's signature, known before any body is parsed (calls may come first).
struct Signature {
    std::vector<Type> args;
    std::vector<Type> results;
    SourceLoc loc;
};

// The names on the left of '=' of a statement: `%y`, `%a, %b` or `%r:2` (%r#0, %r#1).
struct ResultNames {
    std::vector<Token> names;
    std::vector<std::string_view> spelled; // the names the values get
    bool grouped = false;                  // written %r:N
};

// The suffix of an op line: loc(7:5) #12<-#3 origin(5, [16, 0]).
struct OpSuffix {
    std::optional<SourceLoc> loc;
    OpId parent = kNoId;
    std::optional<std::pair<ValueId, Shape>> origin;
};

class Parser : private TokenCursor {
public:
    Parser(std::string_view text, std::string file) : TokenCursor(text, std::move(file)) {}

    Module parseModule();

private:
    // Functions.
    void prescanSignatures();
    Function parseFunction();
    Level prescanLevel() const;
    void parseSignature(FunctionState& s);
    void parseResultType(FunctionState& s);
    void parseBody(FunctionState& s);
    void parseReturn(FunctionState& s);
    void defineName(FunctionState& s, const Token& name, ValueId v);
    void defineNameAs(FunctionState& s, std::string_view name, SourceLoc at, ValueId v);
    ValueId lookup(FunctionState& s, std::string_view name);
    const SourceLoc* visibleDefinition(const FunctionState& s, std::string_view name) const;
    const SourceLoc* closedIv(const FunctionState& s, std::string_view name) const;
    const SourceLoc* ivLoopOf(const FunctionState& s, std::string_view name) const;

    // Loops and calls.
    ResultNames parseResultNames();
    void parseStatementWithResults(FunctionState& s);
    void parseFor(FunctionState& s, const ResultNames& results);
    void parseCall(FunctionState& s, const ResultNames& results);
    void defineResults(FunctionState& s, OpId id, const ResultNames& results,
                       const std::vector<Type>& types, std::string_view what);
    int64_t parseLoopBound(std::string_view what);
    std::string parseIndexBound(const FunctionState& s);
    Type parseIndexType();
    void parseAffineOffsets(FunctionState& s, Op& op);
    void parseAffineExpr(FunctionState& s, std::vector<ValueId>& ivs,
                         std::vector<std::map<size_t, int64_t>>& coeffs, int64_t& constant);

    // Ops.
    ValueId parseOpExpr(FunctionState& s, const Token* result, bool topLevel);
    OpKind parseMnemonic(const FunctionState& s);
    void parseOperands(FunctionState& s, OpKind& kind, Op& op);
    void parseFixedOperands(FunctionState& s, OpKind kind, Op& op, int count);
    // An operand; `offset`: in a view/tload/tstore offset, where an induction variable may be.
    ValueId parseOperand(FunctionState& s, bool offset = false);
    [[noreturn]] void failUndefined(const FunctionState& s, const Token& name);
    // Fails when `name` is an induction variable used as data (not in an offset).
    void rejectInductionVariable(const FunctionState& s, const Token& name) const;
    bool atScalarLiteral() const;
    double parseScalarLiteral();
    void parseDirectiveSizes(Op& op);
    void checkAttrName(OpKind kind, Level level, const Token& name);
    void parseAttrDict(OpKind kind, Level level, Attrs& attrs, FunctionState* s = nullptr,
                       Op* op = nullptr);
    AttrValue parseAttrValue();
    std::vector<int64_t> parseIntList();
    OpSuffix parseSuffix();
    ValueId buildOp(FunctionState& s, Op op, const Token& mnemonic, const Token* result,
                    const std::optional<Type>& declared, const OpSuffix& suffix);

    // Types.
    Type parseType(Level level);
    void parseShapeBody(Type& type);
    void pushDim(Type& type, std::string_view digits, SourceLoc loc);

    std::vector<std::string_view> m_mnemonics = allMnemonics();
    int m_nesting = 0; // parenthesised ops open around the current token
    std::unordered_map<std::string, Signature> m_signatures; // every function of the module
    std::deque<std::string> m_ownedNames; // names not in the text (%r#0), kept for NameIndex
};

// --- module and functions ------------------------------------------------------------------

Module Parser::parseModule() {
    Module m;
    m.file = file();
    if (m_tok.is(TokKind::Eof))
        fail(m_tok.loc, "empty input: expected a function ('func @name(...) -> type { ... }')");
    std::unordered_map<std::string, SourceLoc> seen;
    prescanSignatures();
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

// Reads the signature of every function before any body, so that a call may name a function
// defined later. Errors end the scan quietly; the real parse reports them in place.
void Parser::prescanSignatures() {
    Parser scan(*this);
    try {
        while (scan.m_tok.isIdent("func")) {
            SourceLoc at = scan.take().loc;
            std::string name(scan.expect(TokKind::AtName, "a function name").text);
            FunctionState tmp;
            tmp.f.level = scan.prescanLevel();
            scan.parseSignature(tmp);
            Signature sig;
            for (ValueId a : tmp.f.args) sig.args.push_back(tmp.f.type(a));
            sig.results = tmp.resultTypes;
            sig.loc = at;
            m_signatures.emplace(name, std::move(sig));
            int depth = 0;
            while (!scan.m_tok.is(TokKind::Eof)) {
                if (scan.m_tok.is(TokKind::LBrace)) ++depth;
                if (scan.m_tok.is(TokKind::RBrace) && --depth == 0) {
                    scan.advance();
                    break;
                }
                scan.advance();
            }
        }
    } catch (const CompileError&) {
    }
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
            Type t = m_tok.isIdent("index") ? parseIndexType() : parseType(s.f.level);
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
        parseResultType(s);
        return;
    }
    if (accept(TokKind::RParen)) return;
    while (true) {
        parseResultType(s);
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RParen, "',' or ')' in the result types");
        return;
    }
}

// A result of the signature. A Tile-level function's results are GM tensors (the outputs the
// compiler's Tile stages declare); a tile would be handed to no one: a hand-written kernel
// writes its results with tstore into tensor arguments.
void Parser::parseResultType(FunctionState& s) {
    const SourceLoc at = m_tok.loc;
    Type t = parseType(s.f.level);
    if (s.f.level == Level::Tile && t.isTile())
        fail(at,
             fmt::format("@{} is a Tile-level function, which cannot return a tile ({}): "
                         "store it with tstore into a tensor argument, such as '%y: "
                         "tensor<{}x{}>', and return nothing",
                         s.f.name, formatType(t, s.f.level), t.shape.str(), dtypeName(t.dtype)));
    s.resultTypes.push_back(t);
}

void Parser::parseBody(FunctionState& s) {
    const bool loop = s.outer != nullptr;
    const std::string_view terminator = loop ? "yield" : "return";
    const std::string where =
        loop ? fmt::format("the body of loop '{}'", s.f.name) : fmt::format("@{}", s.f.name);
    while (true) {
        if (m_tok.is(TokKind::Eof))
            fail(m_tok.loc, fmt::format("unterminated body of {}: expected '}}' before the end "
                                        "of the file (the body opens at {}:{})",
                                        loop ? fmt::format("loop '{}'", s.f.name) : where,
                                        s.bodyStart.line, s.bodyStart.col));
        if (m_tok.is(TokKind::RBrace)) {
            if (!s.returned && !(loop && s.resultTypes.empty()))
                fail(m_tok.loc, fmt::format("missing '{}' at the end of {}", terminator, where));
            advance();
            return;
        }
        if (s.returned)
            fail(m_tok.loc, fmt::format("'{}' must be the last statement of {}, found {} "
                                        "after it",
                                        terminator, where, describeToken(m_tok)));
        if (m_tok.isIdent(terminator)) {
            parseReturn(s);
        } else if (m_tok.isIdent(loop ? "return" : "yield")) {
            fail(m_tok.loc, loop ? fmt::format("'return' inside a loop body: end the body of loop "
                                               "'{}' with 'yield'",
                                               s.f.name)
                                 : std::string("'yield' outside a loop body"));
        } else if (m_tok.is(TokKind::ValueName)) {
            parseStatementWithResults(s);
        } else if (m_tok.isIdent("for") && peekNext().is(TokKind::ValueName)) {
            parseFor(s, ResultNames{});
        } else if (m_tok.isIdent("for") && peekNext().is(TokKind::String)) {
            parseFor(s, ResultNames{});
        } else if (m_tok.is(TokKind::Ident)) {
            parseOpExpr(s, nullptr, true);
        } else {
            failExpected(fmt::format("an op, '%name = <op>', '{}' or '}}'", terminator));
        }
    }
}

ResultNames Parser::parseResultNames() {
    ResultNames r;
    r.names.push_back(take());
    if (accept(TokKind::Colon)) { // %r:N
        Token n =
            expect(TokKind::Int, fmt::format("the number of results after %{}:", r.names[0].text));
        if (n.intValue < 1 || n.intValue > 1024)
            fail(n.loc, fmt::format("%{}:{}: the number of results must be 1 to 1024",
                                    r.names[0].text, n.intValue));
        r.grouped = true;
        for (int64_t i = 0; i < n.intValue; ++i) {
            m_ownedNames.push_back(fmt::format("{}#{}", r.names[0].text, i));
            r.spelled.push_back(m_ownedNames.back());
        }
        return r;
    }
    while (accept(TokKind::Comma))
        r.names.push_back(expect(TokKind::ValueName, "a result name such as %b after ','"));
    for (const Token& t : r.names) r.spelled.push_back(t.text);
    return r;
}

void Parser::parseStatementWithResults(FunctionState& s) {
    ResultNames results = parseResultNames();
    expect(TokKind::Equal, fmt::format("'=' after %{}", results.names.back().text));
    if (m_tok.isIdent("for")) return parseFor(s, results);
    if (m_tok.isIdent("call")) return parseCall(s, results);
    if (results.names.size() > 1 || results.grouped)
        fail(results.names[0].loc, fmt::format("only 'for' and 'call' define several results; "
                                               "'{}' defines one",
                                               m_tok.text));
    parseOpExpr(s, &results.names[0], true);
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
    const bool loop = s.outer != nullptr;
    if (values.size() != s.resultTypes.size())
        fail(ret.loc, loop ? fmt::format("yield gives {} but loop '{}' has {}",
                                         plural(int(values.size()), "value"), s.f.name,
                                         plural(int(s.resultTypes.size()), "iter_arg"))
                           : fmt::format("@{} returns {} but its signature declares {}", s.f.name,
                                         plural(int(values.size()), "value"),
                                         plural(int(s.resultTypes.size()), "result")));
    for (size_t i = 0; i < values.size(); ++i) {
        const Type& t = s.f.type(values[i]);
        if (t == s.resultTypes[i]) continue;
        if (loop)
            fail(locs[i], fmt::format("yield value {} has type {}, but iter_arg %{} has type {}", i,
                                      formatType(t, s.f.level), s.iterNames[i],
                                      formatType(s.resultTypes[i], s.f.level)));
        fail(locs[i], fmt::format("return value {} has type {}, but @{} declares {}", i,
                                  formatType(t, s.f.level), s.f.name,
                                  formatType(s.resultTypes[i], s.f.level)));
    }
    s.f.results = std::move(values);
    s.returned = true;
}

void Parser::defineName(FunctionState& s, const Token& name, ValueId v) {
    defineNameAs(s, name.text, name.loc, v);
}

void Parser::defineNameAs(FunctionState& s, std::string_view name, SourceLoc at, ValueId v) {
    if (const SourceLoc* first = visibleDefinition(s, name))
        fail(at, fmt::format("redefinition of %{} (first defined at {}:{})", name, first->line,
                             first->col));
    if (s.defLoc.size() <= v) s.defLoc.resize(v + 1);
    s.defLoc[v] = at;
    s.byName.insert(name, v);
}

// Where `name` is defined in this scope or an enclosing one, or nullptr.
const SourceLoc* Parser::visibleDefinition(const FunctionState& s, std::string_view name) const {
    for (const FunctionState* scope = &s; scope; scope = scope->outer)
        if (ValueId v = scope->byName.find(name); v != NameIndex::kNone) return &scope->defLoc[v];
    return nullptr;
}

// The loop whose induction variable `name` is (nullptr when it names another value or none).
const SourceLoc* Parser::ivLoopOf(const FunctionState& s, std::string_view name) const {
    for (const FunctionState* scope = &s; scope; scope = scope->outer) {
        const ValueId v = scope->byName.find(name);
        if (v == NameIndex::kNone) continue;
        const auto it = scope->ivLoops.find(v);
        return it == scope->ivLoops.end() ? nullptr : &it->second;
    }
    return nullptr;
}

const SourceLoc* Parser::closedIv(const FunctionState& s, std::string_view name) const {
    for (const FunctionState* scope = &s; scope; scope = scope->outer)
        if (auto it = scope->closedIvs.find(name); it != scope->closedIvs.end()) return &it->second;
    return nullptr;
}

// The value `name` in scope: a loop body reaches outer values through capture arguments,
// created on first use (and through every loop in between).
ValueId Parser::lookup(FunctionState& s, std::string_view name) {
    ValueId v = s.byName.find(name);
    if (v != NameIndex::kNone || !s.outer) return v;
    ValueId outer = lookup(*s.outer, name);
    if (outer == NameIndex::kNone) return outer;
    ValueId arg = s.f.addArg(s.outer->f.type(outer), std::string(name));
    s.captureSources.push_back(outer);
    if (s.defLoc.size() <= arg) s.defLoc.resize(arg + 1);
    s.defLoc[arg] = s.outer->defLoc[outer];
    s.byName.insert(name, arg);
    if (auto it = s.outer->ivLoops.find(outer); it != s.outer->ivLoops.end())
        s.ivLoops[arg] = it->second;
    return arg;
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
    if (s.f.level == Level::Tile && isDirective(*kind))
        fail(m_tok.loc, fmt::format("'{}' is a Tensor-level directive (it chooses the tiles "
                                    "expand-tiles cuts tensor ops into), but @{} is a Tile-level "
                                    "function, which works on the tiles it loads: give each "
                                    "tload the tile shape you want (such as 'tile<16x256xf32, "
                                    "UB>')",
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
    if (isControl(kind))
        fail(m_tok.loc, fmt::format("'{}' is a statement, not an operand: write '%name = {} ...' "
                                    "on its own line",
                                    m_tok.text, m_tok.text));
    Token mnemonic = take();
    Op op;
    op.loc = mnemonic.loc;
    if (isDirective(kind))
        parseDirectiveSizes(op);
    else
        parseOperands(s, kind, op);
    op.kind = kind;
    if (m_tok.is(TokKind::LBrace)) parseAttrDict(kind, s.f.level, op.attrs, &s, &op);
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
        if (accept(TokKind::Comma)) {
            if (m_tok.is(TokKind::ValueName)) rejectInductionVariable(s, m_tok);
            op.attrs.set("scalar", parseScalarLiteral());
        }
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
    // The induction variables of view/tload/tstore come from their offsets, not the operands.
    if (std::optional<size_t> base = affineOperandBase(kind); lo == hi || base) {
        parseFixedOperands(s, kind, op, base ? int(*base) : lo);
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

ValueId Parser::parseOperand(FunctionState& s, bool offset) {
    if (m_tok.is(TokKind::ValueName)) {
        if (!offset) rejectInductionVariable(s, m_tok);
        ValueId v = lookup(s, m_tok.text);
        if (v == NameIndex::kNone) failUndefined(s, m_tok);
        if (s.f.type(v).index)
            fail(m_tok.loc, fmt::format("%{} is an index argument (a number bound when the "
                                        "program runs); it may only be a loop's upper bound, as "
                                        "in 'for %i = 0 to %{}'",
                                        m_tok.text, m_tok.text));
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

void Parser::rejectInductionVariable(const FunctionState& s, const Token& name) const {
    const SourceLoc* loop = ivLoopOf(s, name.text);
    if (!loop) return;
    fail(name.loc, fmt::format("%{} is the induction variable of the loop at {}:{}, an index and "
                               "not data: it may only appear in view, tload and tstore offsets, "
                               "affine (such as {{offsets = [%{} * 256, 0]}})",
                               name.text, loop->line, loop->col, name.text));
}

// A name with no value: the induction variable of a closed loop, a multi-result name without
// (or with an out-of-range) #N, or nothing at all.
void Parser::failUndefined(const FunctionState& s, const Token& name) {
    if (const SourceLoc* at = closedIv(s, name.text))
        fail(name.loc, fmt::format("use of the induction variable %{} outside its loop (the "
                                   "loop at {}:{})",
                                   name.text, at->line, at->col));
    const std::string_view base = name.text.substr(0, name.text.find('#'));
    int results = 0;
    while (visibleDefinition(s, fmt::format("{}#{}", base, results))) ++results;
    if (results > 0) {
        const std::string uses = results == 1
                                     ? fmt::format("%{}#0", base)
                                     : fmt::format("%{}#0 … %{}#{}", base, base, results - 1);
        const SourceLoc* at = visibleDefinition(s, fmt::format("{}#0", base));
        if (base.size() == name.text.size())
            fail(name.loc, fmt::format("%{} (defined at {}:{}) has {}: use {}", base, at->line,
                                       at->col, plural(results, "result"), uses));
        fail(name.loc,
             fmt::format("%{} is out of range: %{} (defined at {}:{}) has {}: use {}", name.text,
                         base, at->line, at->col, plural(results, "result"), uses));
    }
    fail(name.loc, fmt::format("use of undefined value %{}", name.text));
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

void Parser::parseAttrDict(OpKind kind, Level level, Attrs& attrs, FunctionState* s, Op* op) {
    expect(TokKind::LBrace, "'{'");
    if (accept(TokKind::RBrace)) return;
    while (true) {
        if (!m_tok.is(TokKind::Ident)) failExpected("an attribute name");
        Token name = take();
        if (affineOperandBase(kind) && name.text == affineOffsetAttr(kind) && s && op &&
            !attrs.has(name.text) && accept(TokKind::Equal)) {
            parseAffineOffsets(*s, *op);
            if (accept(TokKind::Comma)) continue;
            expect(TokKind::RBrace, "',' or '}' in the attribute list");
            return;
        }
        checkAttrName(kind, level, name);
        if (attrs.has(name.text))
            fail(name.loc, fmt::format("duplicate attribute '{}'", name.text));
        attrs.set(name.text, accept(TokKind::Equal) ? parseAttrValue() : AttrValue(true));
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RBrace, "',' or '}' in the attribute list");
        return;
    }
}

// An attribute the op does not take is an error at both levels (a typo must not be ignored):
// the op's own attributes, the per-op vec_tile override (Tensor level), and `loop`/`iter`
// (where unroll-loops took an op from) are taken; at Tile level also the attributes the
// Tensor→Tile passes attach (tilePassAttrNames), so a printed Tile stage parses back.
void Parser::checkAttrName(OpKind kind, Level level, const Token& name) {
    const bool directive = isDirective(kind);
    std::vector<std::string_view> candidates;
    if (level == Level::Tensor) {
        std::span<const std::string_view> known = knownAttrNames(kind);
        candidates.assign(known.begin(), known.end());
        if (!directive) candidates.push_back("vec_tile");
    } else {
        candidates = tileAttrNames(kind);
    }
    auto listed = [&](auto&& names) {
        return std::find(names.begin(), names.end(), name.text) != names.end();
    };
    if (listed(candidates) || ((name.text == "loop" || name.text == "iter") && !directive)) return;
    if (level == Level::Tile && listed(tilePassAttrNames(kind))) return;
    if (level == Level::Tile && (name.text == "vec_tile" || name.text == "cube_tile"))
        fail(name.loc, fmt::format("'{}' on '{}': a tile override is a tiling choice of the "
                                   "Tensor level; a Tile-level op works on the tiles it is "
                                   "given (choose their shapes in the tload types)",
                                   name.text, opName(kind)));
    std::string_view hint = closestMatch(name.text, candidates);
    std::string list = candidates.empty() ? std::string("it takes none")
                                          : fmt::format("it takes {}", fmt::join(candidates, ", "));
    fail(name.loc, hint.empty() ? fmt::format("unknown attribute '{}' for '{}' ({})", name.text,
                                              opName(kind), list)
                                : fmt::format("unknown attribute '{}' for '{}' (did you mean "
                                              "'{}'?)",
                                              name.text, opName(kind), hint));
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

// --- loops and calls -----------------------------------------------------------------------

int64_t Parser::parseLoopBound(std::string_view what) {
    Token t = expect(TokKind::Int, fmt::format("an integer {}", what));
    return t.intValue;
}

// `to %t`: the name of an index argument of the function (the loop's body reaches it through
// every enclosing scope, without a capture: it is no value of the body).
std::string Parser::parseIndexBound(const FunctionState& s) {
    Token t = take();
    const FunctionState* top = &s;
    while (top->outer) top = top->outer;
    ValueId v = top->byName.find(t.text);
    if (v == NameIndex::kNone || !top->f.type(v).index) {
        if (!visibleDefinition(s, t.text))
            fail(t.loc, fmt::format("use of undefined value %{} as the upper bound", t.text));
        fail(t.loc, fmt::format("the upper bound %{} is not an index argument: a trip count "
                                "bound when the program runs is an argument of the function "
                                "declared '%{}: index'",
                                t.text, t.text));
    }
    return std::string(t.text);
}

// `index`: the type of a scalar argument bound when the program runs.
Type Parser::parseIndexType() {
    advance();
    Type t{DType::I32, Shape{}, MemSpace::None};
    t.index = true;
    return t;
}

// for ["name"] %i = LO to HI [step S] [iter_args(%a = %a0, ...)] [suffix] { ... [yield ...] }
void Parser::parseFor(FunctionState& s, const ResultNames& results) {
    Token forTok = take();
    int depth = 0;
    for (const FunctionState* o = s.outer; o; o = o->outer) ++depth;
    if (depth >= kMaxLoopNesting)
        fail(forTok.loc,
             fmt::format("loops nested more than {} levels deep; split the nest or {}",
                         kMaxLoopNesting,
                         s.f.level == Level::Tile
                             ? "write the iterations of an inner loop out by hand (a Tile-level "
                               "function cannot call another)"
                             : "move its inner loops into a function ('call @f')"));
    Op op;
    op.kind = OpKind::For;
    op.loc = forTok.loc;
    std::string name;
    if (m_tok.is(TokKind::String)) {
        Token nameTok = take();
        name = nameTok.str;
        if (std::string problem = loopNameProblem(name); !problem.empty())
            fail(nameTok.loc, fmt::format("loop name \"{}\" {}", name, problem));
    }
    Token iv = expect(TokKind::ValueName, "the induction variable such as %i after 'for'");
    expect(TokKind::Equal, fmt::format("'=' and the lower bound after %{}", iv.text));
    int64_t lower = parseLoopBound("lower bound");
    if (!m_tok.isIdent("to")) failExpected("'to' and the upper bound");
    advance();
    std::optional<int64_t> upper;
    if (m_tok.is(TokKind::ValueName)) {
        op.attrs.set("upper_arg", parseIndexBound(s));
    } else {
        upper = parseLoopBound("upper bound");
    }
    int64_t step = 1;
    if (m_tok.isIdent("step")) {
        advance();
        step = parseLoopBound("step");
    }
    op.attrs.set("lower", lower);
    if (upper) op.attrs.set("upper", *upper);
    op.attrs.set("step", step);
    if (!name.empty()) op.attrs.set("name", name);

    FunctionState b;
    b.outer = &s;
    b.f.name = name.empty() ? std::string("for") : name;
    b.f.level = s.f.level;
    b.f.loc = forTok.loc;
    const ValueId ivArg =
        b.f.addArg(Type{DType::I32, Shape{}, MemSpace::None}, std::string(iv.text));
    defineName(b, iv, ivArg);
    b.ivLoops[ivArg] = forTok.loc;
    if (m_tok.isIdent("iter_args")) {
        advance();
        expect(TokKind::LParen, "'(' after iter_args");
        std::vector<std::pair<Token, ValueId>> iters;
        do {
            Token iterName = expect(TokKind::ValueName, "an iter_arg such as %m");
            expect(TokKind::Equal, fmt::format("'=' and the initial value of %{}", iterName.text));
            iters.emplace_back(iterName, parseOperand(s));
        } while (accept(TokKind::Comma));
        expect(TokKind::RParen, "',' or ')' after the iter_args");
        for (auto& [iterName, init] : iters) {
            op.operands.push_back(init);
            const Type& t = s.f.type(init);
            defineName(b, iterName, b.f.addArg(t, std::string(iterName.text)));
            b.resultTypes.push_back(t);
            b.iterNames.emplace_back(iterName.text);
        }
    }
    if (m_tok.isIdent("loc") || m_tok.is(TokKind::Hash)) {
        OpSuffix suffix = parseSuffix();
        if (suffix.loc) op.loc = *suffix.loc;
        op.parent = suffix.parent;
    }
    b.bodyStart = expect(TokKind::LBrace, "'{' to open the loop body").loc;
    parseBody(b);
    op.operands.insert(op.operands.end(), b.captureSources.begin(), b.captureSources.end());
    size_t iterCount = b.resultTypes.size();
    std::vector<Type> types = b.resultTypes;
    b.f.args.shrink_to_fit();
    op.body.push_back(std::move(b.f));
    s.closedIvs[iv.text] = forTok.loc;
    if (results.names.empty() && iterCount > 0)
        fail(forTok.loc, fmt::format("the loop has {}: name its results ('%r = for ...' or "
                                     "'%r:{} = for ...')",
                                     plural(int(iterCount), "iter_arg"), iterCount));
    OpId id = s.f.addOp(std::move(op));
    defineResults(s, id, results, types, "the loop's iter_args");
}

// call @f(%a, %b): the results take the callee's signature.
void Parser::parseCall(FunctionState& s, const ResultNames& results) {
    Token callTok = take();
    Token callee = expect(TokKind::AtName, "the called function such as @block after 'call'");
    auto it = m_signatures.find(std::string(callee.text));
    if (it == m_signatures.end()) {
        std::vector<std::string_view> names;
        for (const auto& [n, sig] : m_signatures) names.push_back(n);
        std::sort(names.begin(), names.end());
        std::string_view hint = closestMatch(callee.text, names);
        fail(callee.loc, hint.empty()
                             ? fmt::format("call of unknown function @{}", callee.text)
                             : fmt::format("call of unknown function @{} (did you mean @{}?)",
                                           callee.text, hint));
    }
    const Signature& sig = it->second;
    for (size_t i = 0; i < sig.args.size(); ++i)
        if (sig.args[i].index)
            fail(callee.loc, fmt::format("call @{}: @{} takes index argument {}, bound when the "
                                         "program runs; only the entry function may take index "
                                         "arguments",
                                         callee.text, callee.text, i));
    Op op;
    op.kind = OpKind::Call;
    op.loc = callTok.loc;
    op.attrs.set("callee", std::string(callee.text));
    expect(TokKind::LParen, fmt::format("'(' and the arguments of @{}", callee.text));
    std::vector<SourceLoc> locs;
    if (!accept(TokKind::RParen)) {
        do {
            locs.push_back(m_tok.loc);
            op.operands.push_back(parseOperand(s));
        } while (accept(TokKind::Comma));
        expect(TokKind::RParen, "',' or ')' after the arguments");
    }
    if (op.operands.size() != sig.args.size())
        fail(callTok.loc,
             fmt::format("call @{}: passes {}, but @{} (at {}:{}) takes {}", callee.text,
                         plural(int(op.operands.size()), "argument"), callee.text, sig.loc.line,
                         sig.loc.col, plural(int(sig.args.size()), "argument")));
    for (size_t i = 0; i < op.operands.size(); ++i)
        if (s.f.type(op.operands[i]) != sig.args[i])
            fail(locs[i],
                 fmt::format("call @{}: argument {} has type {}, but @{} takes {}", callee.text, i,
                             formatType(s.f.type(op.operands[i]), s.f.level), callee.text,
                             formatType(sig.args[i], s.f.level)));
    OpSuffix suffix = parseSuffix();
    if (suffix.loc) op.loc = *suffix.loc;
    op.parent = suffix.parent;
    OpId id = s.f.addOp(std::move(op));
    defineResults(s, id, results, sig.results, fmt::format("@{}'s results", callee.text));
}

void Parser::defineResults(FunctionState& s, OpId id, const ResultNames& results,
                           const std::vector<Type>& types, std::string_view what) {
    if (results.spelled.size() != types.size()) {
        SourceLoc at = results.names.empty() ? s.f.op(id).loc : results.names[0].loc;
        std::string written = results.names.empty() ? std::string("no results")
                                                    : plural(int(results.spelled.size()), "result");
        fail(at, fmt::format("{} names {}, but {} are {} value{}", opName(s.f.op(id).kind), written,
                             what, types.size(), types.size() == 1 ? "" : "s"));
    }
    for (size_t i = 0; i < types.size(); ++i) {
        Value v;
        v.type = types[i];
        v.name = std::string(results.spelled[i]);
        v.def = id;
        ValueId vid = s.f.addValue(std::move(v));
        s.f.op(id).results.push_back(vid);
        SourceLoc at = results.names[results.grouped ? 0 : i].loc;
        defineNameAs(s, results.spelled[i], at, vid);
    }
}

// offsets = [%i * 256 + 64, 0]: per dim a sum of integer terms and induction variables times
// integers. The variables become operands 1.. of the view, their coefficients the attribute
// iv_strides (one row of rank entries per variable), the constants the attribute offsets.
void Parser::parseAffineOffsets(FunctionState& s, Op& op) {
    expect(TokKind::LBracket, "'[' and the offsets");
    std::vector<ValueId> ivs;
    std::vector<std::map<size_t, int64_t>> coeffs; // per dim: iv index -> coefficient
    std::vector<int64_t> constants;
    if (!accept(TokKind::RBracket)) {
        while (true) {
            coeffs.emplace_back();
            int64_t c = 0;
            parseAffineExpr(s, ivs, coeffs, c);
            constants.push_back(c);
            if (accept(TokKind::Comma)) continue;
            expect(TokKind::RBracket, "',' or ']' in the offsets");
            break;
        }
    }
    op.attrs.set(affineOffsetAttr(op.kind), constants);
    if (ivs.empty()) return;
    std::vector<int64_t> strides(ivs.size() * constants.size(), 0);
    for (size_t d = 0; d < coeffs.size(); ++d)
        for (auto [k, c] : coeffs[d]) strides[k * constants.size() + d] = c;
    op.operands.insert(op.operands.end(), ivs.begin(), ivs.end());
    op.attrs.set("iv_strides", strides);
}

void Parser::parseAffineExpr(FunctionState& s, std::vector<ValueId>& ivs,
                             std::vector<std::map<size_t, int64_t>>& coeffs, int64_t& constant) {
    auto checked = [&](SourceLoc at, int64_t a, int64_t b, bool mul) {
        int64_t r = 0;
        bool overflow = mul ? __builtin_mul_overflow(a, b, &r) : __builtin_add_overflow(a, b, &r);
        if (overflow) fail(at, "the offset expression overflows 64 bits");
        return r;
    };
    int64_t sign = accept(TokKind::Minus) ? -1 : 1;
    while (true) {
        SourceLoc at = m_tok.loc;
        int64_t factor = sign;
        ValueId iv = NameIndex::kNone;
        if (m_tok.is(TokKind::Int)) {
            factor = checked(at, factor, take().intValue, true);
            if (accept(TokKind::Star)) {
                if (!m_tok.is(TokKind::ValueName)) failExpected("an induction variable after '*'");
                iv = parseOperand(s, true);
            }
        } else if (m_tok.is(TokKind::ValueName)) {
            iv = parseOperand(s, true);
            if (accept(TokKind::Star))
                factor = checked(at, factor, expect(TokKind::Int, "an integer after '*'").intValue,
                                 true);
        } else {
            failExpected("an offset: an integer or an induction variable such as %i * 256");
        }
        if (iv == NameIndex::kNone) {
            constant = checked(at, constant, factor, false);
        } else {
            size_t k = size_t(std::find(ivs.begin(), ivs.end(), iv) - ivs.begin());
            if (k == ivs.size()) ivs.push_back(iv);
            int64_t& c = coeffs.back()[k];
            c = checked(at, c, factor, false);
        }
        if (accept(TokKind::Plus)) {
            sign = 1;
        } else if (accept(TokKind::Minus)) {
            sign = -1;
        } else if (m_tok.is(TokKind::Int) && m_tok.text.starts_with("-")) {
            sign = 1; // "%i - 64" written without a space: the '-' belongs to the integer
        } else {
            return;
        }
    }
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
    if (verify) verifyModule(m);
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
