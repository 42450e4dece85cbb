// The parser of the PTO listing (syntax in PtoPrinter.h).
#include "compiler/ir/PtoParser.h"

#include "compiler/ir/Lexer.h"
#include "compiler/ir/TokenCursor.h"
#include "compiler/ir/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

namespace pto {
namespace {

constexpr uint32_t kAmbiguous = UINT32_MAX - 1;

std::vector<std::string_view> allOpcodeNames() {
    std::vector<std::string_view> names;
    for (int i = 0; i <= static_cast<int>(kLastOpcode); ++i) names.push_back(opcodeName(Opcode(i)));
    return names;
}

class PtoParser : private TokenCursor {
public:
    PtoParser(std::string_view text, std::string file) : TokenCursor(text, std::move(file)) {}
    PtoProgram parse();
    // Per kernel, per instruction: where the listing writes it (parse() fills it).
    ListingLocs& locs() { return m_locs; }

private:
    int64_t expectInt(std::string_view what, int64_t lo, int64_t hi);

    std::string parseSymbol(TokKind sigil, std::string_view what);
    DType parseDtype();
    Pipe parsePipeName(std::string_view what);
    Shape parseDims();
    int32_t parseColsAfter(const Token& rows);
    void parseGm();
    void parseKernel();
    void parseLoop(Kernel& k);
    void addInstr(Kernel& k);
    Instr parseInstr();
    int64_t parseAddressStep();
    void parseFlags(Instr& in);
    void parseCrossFlag(Instr& in);
    Operand parseOperand();
    void parseInstrAttrs(Instr& in);
    void parseProvenance(Instr& in);
    GmRebase parseRebase();
    void parseTask();
    void parseDep();
    TaskDep parseDepKind(TaskDep d);
    uint32_t parseTensorRef();
    uint32_t lookup(const std::unordered_map<std::string, uint32_t>& table, const Token& name,
                    std::string_view what) const;

    PtoProgram m_p;
    ListingLocs m_locs;
    std::unordered_map<std::string, uint32_t> m_kernelByName;
    std::unordered_map<std::string, uint32_t> m_tensorByName;
    std::vector<std::string_view> m_opcodeNames = allOpcodeNames();
    std::array<int64_t, 4>* m_steps = nullptr; // inside a loop: the steps of the instruction
    int64_t m_pendingStep = 0;                 // the step parseOperand read
    int64_t m_iterOffset = 0;                  // inside a loop: the instruction's `!iter +N`
    int64_t m_eventStep = 0;                   // inside a loop: the flag's `+ N*i`
};

int64_t PtoParser::expectInt(std::string_view what, int64_t lo, int64_t hi) {
    Token t = expect(TokKind::Int, what);
    if (t.intValue < lo || t.intValue > hi)
        fail(t.loc, fmt::format("{} {} is out of range ({}..{})", what, t.intValue, lo, hi));
    return t.intValue;
}

std::string PtoParser::parseSymbol(TokKind sigil, std::string_view what) {
    if (m_tok.is(sigil)) return std::string(take().text);
    if (m_tok.is(TokKind::String)) return take().str;
    failExpected(what);
}

DType PtoParser::parseDtype() {
    Token t = expect(TokKind::Ident, "a dtype (f32, f16, bf16, i8, i32, i1)");
    std::optional<DType> d = parseDType(t.text);
    if (!d)
        fail(t.loc, fmt::format("unknown dtype '{}' (one of f32, f16, bf16, i8, i32, i1)", t.text));
    return *d;
}

Pipe PtoParser::parsePipeName(std::string_view what) {
    if (!m_tok.is(TokKind::Ident)) failExpected(what);
    std::optional<Pipe> p = parsePipe(m_tok.text);
    if (!p)
        fail(m_tok.loc,
             fmt::format("unknown pipe '{}' (one of S, MTE1, MTE2, MTE3, M, V, FIX)", m_tok.text));
    advance();
    return *p;
}

// [64x1024] after a dtype: Int(64) Ident(x1024) …, or [] for rank 0.
Shape PtoParser::parseDims() {
    expect(TokKind::LBracket, "'[' and the shape");
    Shape shape;
    if (accept(TokKind::RBracket)) return shape;
    Token first = expect(TokKind::Int, "a dimension");
    if (first.intValue <= 0) fail(first.loc, "dimensions must be positive");
    shape.push(first.intValue);
    if (m_tok.is(TokKind::Ident) && m_tok.offset == first.end && m_tok.text[0] == 'x') {
        Token rest = take();
        std::string_view text = rest.text;
        SourceLoc loc = rest.loc;
        while (!text.empty()) {
            size_t next = text.find('x', 1);
            std::string_view digits =
                text.substr(1, next == std::string_view::npos ? next : next - 1);
            int64_t d = 0;
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
            if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
                d <= 0)
                fail(loc, fmt::format("expected 'x' and a positive dimension, found '{}'", text));
            // Checked before multiplying, so a huge dimension cannot overflow numel().
            constexpr int64_t kMaxShapeElements = int64_t(1) << 48;
            if (d > kMaxShapeElements / shape.numel())
                fail(loc, "the shape has too many elements (at most 2^48)");
            if (!shape.push(d)) fail(loc, "too many dimensions (at most 6)");
            loc.col += uint32_t(digits.size() + 1);
            text = next == std::string_view::npos ? std::string_view() : text.substr(next);
        }
    }
    expect(TokKind::RBracket, "']' after the shape");
    return shape;
}

// The "x1024" that follows the rows of an operand shape.
int32_t PtoParser::parseColsAfter(const Token& rows) {
    bool adjacent = m_tok.is(TokKind::Ident) && m_tok.offset == rows.end && m_tok.text[0] == 'x';
    if (!adjacent) failExpected("'x' and the number of columns (as in 16x1024)");
    std::string_view digits = m_tok.text.substr(1);
    int64_t cols = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cols);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
        cols > INT32_MAX)
        fail(m_tok.loc, fmt::format("expected 'x' and a column count, found '{}'", m_tok.text));
    advance();
    return int32_t(cols);
}

uint32_t PtoParser::lookup(const std::unordered_map<std::string, uint32_t>& table,
                           const Token& name, std::string_view what) const {
    auto it = table.find(std::string(name.text));
    if (it == table.end()) fail(name.loc, fmt::format("unknown {} '{}'", what, name.text));
    if (it->second == kAmbiguous)
        fail(name.loc,
             fmt::format("{} name '{}' is ambiguous (refer to it by #index)", what, name.text));
    return it->second;
}

// --- GM tensors and kernels ----------------------------------------------------------------

void PtoParser::parseGm() {
    advance(); // gm
    GmTensor t;
    t.name = parseSymbol(TokKind::ValueName, "a tensor name such as %x");
    expect(TokKind::Colon, "':' and the tensor type");
    t.dtype = parseDtype();
    t.shape = parseDims();
    Token addr = expect(TokKind::AtName, "'@' and the GM address (e.g. @0x20000)");
    std::string_view text = addr.text;
    int base = text.starts_with("0x") ? 16 : 10;
    if (base == 16) text.remove_prefix(2);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), t.addr, base);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        fail(addr.loc,
             fmt::format("expected a GM address such as @0x20000, found '@{}'", addr.text));
    Token role = expect(TokKind::Ident, "the tensor's role (input, output, workspace or inout)");
    if (role.text == "input")
        t.role = GmRole::Input;
    else if (role.text == "output")
        t.role = GmRole::Output;
    else if (role.text == "workspace")
        t.role = GmRole::Workspace;
    else if (role.text == "inout")
        t.role = GmRole::InOut;
    else
        fail(role.loc,
             fmt::format("unknown role '{}' (input, output, workspace or inout)", role.text));
    if (m_tok.is(TokKind::Bang)) {
        advance();
        Token key = expect(TokKind::Ident, "'value'");
        if (key.text != "value")
            fail(key.loc, fmt::format("unknown tag !{} for a GM tensor", key.text));
        t.tensorValue = ValueId(expectInt("a value id", 0, int64_t(kNoId) - 1));
    }
    auto [it, fresh] = m_tensorByName.emplace(t.name, uint32_t(m_p.gm.size()));
    if (!fresh) it->second = kAmbiguous;
    m_p.gm.push_back(std::move(t));
}

void PtoParser::parseKernel() {
    advance(); // kernel
    Kernel k;
    k.id = uint32_t(m_p.kernels.size());
    k.name = parseSymbol(TokKind::AtName, "a kernel name such as @k0");
    Token core = expect(TokKind::Ident, "the core type (aic or aiv)");
    std::optional<CoreType> c = parseCoreType(core.text);
    if (!c || *c == CoreType::None)
        fail(core.loc, fmt::format("unknown core type '{}' (aic or aiv)", core.text));
    k.core = *c;
    SourceLoc open = expect(TokKind::LBrace, "'{' to open the kernel").loc;
    m_locs.emplace_back();
    while (!accept(TokKind::RBrace)) {
        if (m_tok.is(TokKind::Eof))
            fail(m_tok.loc, fmt::format("unterminated kernel @{}: expected '}}' (it opens at "
                                        "{}:{})",
                                        k.name, open.line, open.col));
        if (m_tok.isIdent("loop"))
            parseLoop(k);
        else
            addInstr(k);
    }
    auto [it, fresh] = m_kernelByName.emplace(k.name, k.id);
    if (!fresh) it->second = kAmbiguous;
    m_p.kernels.push_back(std::move(k));
}

// loop "kv" 3 iter 1 { instructions with address steps }
void PtoParser::parseLoop(Kernel& k) {
    SourceLoc at = m_tok.loc;
    advance(); // loop
    InstrLoop loop;
    loop.name = expect(TokKind::String, "the loop's name as a string (\"kv\")").str;
    loop.count = expectInt("the loop's count", 0, INT32_MAX);
    if (!m_tok.isIdent("iter")) failExpected("'iter' and the iteration of the first round");
    advance();
    loop.firstIter = expectInt("the iteration of the first round", 0, INT32_MAX);
    while (accept(TokKind::Slash)) {
        loop.outerIters.push_back(loop.firstIter);
        loop.firstIter = expectInt("the iteration of the first round", 0, INT32_MAX);
    }
    if (m_tok.isIdent("by")) {
        advance();
        loop.iterStride = expectInt("the iterations per round", 1, 1024);
    }
    expect(TokKind::LBrace, "'{' to open the loop");
    loop.begin = uint32_t(k.instrs.size());
    while (!accept(TokKind::RBrace)) {
        if (m_tok.is(TokKind::Eof))
            fail(m_tok.loc, fmt::format("unterminated loop: expected '}}' (it opens at {}:{})",
                                        at.line, at.col));
        if (m_tok.isIdent("loop")) fail(m_tok.loc, "loops do not nest in a PTO listing");
        std::array<int64_t, 4> steps{};
        m_steps = &steps;
        m_iterOffset = 0;
        m_eventStep = 0;
        addInstr(k);
        m_steps = nullptr;
        loop.steps.push_back(steps);
        loop.iterOffsets.push_back(m_iterOffset);
        loop.eventSteps.push_back(uint8_t(m_eventStep));
        if (m_iterOffset >= loop.iterStride)
            fail(m_tok.loc, fmt::format("!iter +{} is outside a round of {} iteration(s)",
                                        m_iterOffset, loop.iterStride));
    }
    loop.end = uint32_t(k.instrs.size());
    if (loop.begin == loop.end) fail(at, "a loop needs at least one instruction");
    if (std::all_of(loop.iterOffsets.begin(), loop.iterOffsets.end(),
                    [](int64_t o) { return o == 0; }))
        loop.iterOffsets.clear();
    if (std::all_of(loop.eventSteps.begin(), loop.eventSteps.end(),
                    [](uint8_t e) { return e == 0; }))
        loop.eventSteps.clear();
    k.loops.push_back(std::move(loop));
}

// `+ 0x400*i` / `- 0x400*i` after an operand's address inside a loop: the step per round.
int64_t PtoParser::parseAddressStep() {
    const bool minus = m_tok.is(TokKind::Minus);
    if (!minus && !m_tok.is(TokKind::Plus)) return 0;
    if (!m_steps) fail(m_tok.loc, "an address step (+ N*i) is only valid inside a loop");
    advance();
    int64_t step = expectInt("the address step", 0, INT64_MAX);
    expect(TokKind::Star, "'*i' after the address step");
    if (!m_tok.isIdent("i")) failExpected("'i' (the loop round) after '*'");
    advance();
    return minus ? -step : step;
}

// --- instructions --------------------------------------------------------------------------

// The next instruction of kernel `k`, its position kept for the verifier's messages.
void PtoParser::addInstr(Kernel& k) {
    m_locs.back().push_back(m_tok.loc);
    k.instrs.push_back(parseInstr());
}

Instr PtoParser::parseInstr() {
    Instr in;
    if (m_tok.is(TokKind::Ident))
        if (std::optional<MemSpace> s = parseMemSpace(m_tok.text); s && *s != MemSpace::None)
            fail(m_tok.loc, fmt::format("found the operand '{}' where an instruction should start "
                                        "(missing ',' between operands?)",
                                        m_tok.text));
    in.pipe = parsePipeName("a pipe (S, MTE1, MTE2, MTE3, M, V, FIX) or '}'");
    Token op = expect(TokKind::Ident, "an opcode such as TADD");
    std::optional<Opcode> opcode = parseOpcode(op.text);
    if (!opcode) {
        std::string_view hint = closestMatch(op.text, m_opcodeNames);
        fail(op.loc, hint.empty()
                         ? fmt::format("unknown opcode '{}'", op.text)
                         : fmt::format("unknown opcode '{}' (did you mean '{}'?)", op.text, hint));
    }
    in.opcode = *opcode;
    bool hasFlags = in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag ||
                    in.opcode == Opcode::Barrier;
    if (hasFlags) parseFlags(in);
    if (isCrossFlag(in.opcode)) parseCrossFlag(in);
    hasFlags = hasFlags || isCrossFlag(in.opcode);
    auto atOperand = [&] {
        if (!m_tok.is(TokKind::Ident)) return false;
        std::optional<MemSpace> s = parseMemSpace(m_tok.text);
        return s && *s != MemSpace::None;
    };
    if (hasFlags ? accept(TokKind::Comma) : atOperand()) {
        do {
            if (in.operandCount == in.operands.size())
                fail(m_tok.loc, "too many operands (at most 4)");
            in.operands[in.operandCount] = parseOperand();
            if (m_pendingStep != 0) (*m_steps)[in.operandCount] = m_pendingStep;
            ++in.operandCount;
        } while (accept(TokKind::Comma));
    }
    if (m_tok.is(TokKind::LBrace)) parseInstrAttrs(in);
    parseProvenance(in);
    return in;
}

void PtoParser::parseFlags(Instr& in) {
    in.flagSrc = parsePipeName("a pipe");
    if (in.opcode == Opcode::Barrier) return;
    expect(TokKind::Arrow, "'->' between the source and destination pipes");
    in.flagDst = parsePipeName("the destination pipe");
    in.event = uint8_t(expectInt("event id", 0, 255));
    if (!m_tok.is(TokKind::Plus)) return;
    // `+ N*i` inside a loop: the id of round i is (event + N·i) mod kFlagEventIds.
    if (!m_steps) fail(m_tok.loc, "an event step (+ N*i) is only valid inside a loop");
    advance();
    m_eventStep = expectInt("the event step", 1, kFlagEventIds - 1);
    expect(TokKind::Star, "'*i' after the event step");
    if (!m_tok.isIdent("i")) failExpected("'i' (the loop round) after '*'");
    advance();
}

// CROSS_SET_FLAG aiv0 3: the peer core of the cluster and the flag id.
void PtoParser::parseCrossFlag(Instr& in) {
    Token peer = expect(TokKind::Ident, "the peer core (aic, aiv0 or aiv1)");
    std::optional<ClusterRole> role = parseClusterRole(peer.text);
    if (!role) fail(peer.loc, fmt::format("unknown peer core '{}' (aic, aiv0 or aiv1)", peer.text));
    in.peer = *role;
    in.event = uint8_t(expectInt("cross-core flag id", 0, 255));
}

Operand PtoParser::parseOperand() {
    Operand o;
    std::optional<MemSpace> space =
        m_tok.is(TokKind::Ident) ? parseMemSpace(m_tok.text) : std::nullopt;
    if (!space || *space == MemSpace::None)
        failExpected("an operand such as UB[0x0]:f32[16x64/64] (GM, L1, L0A, L0B, L0C or UB)");
    advance();
    o.space = *space;
    expect(TokKind::LBracket, "'[' and the address");
    o.addr = expectInt("address", 0, INT64_MAX);
    m_pendingStep = parseAddressStep();
    expect(TokKind::RBracket, "']' after the address");
    expect(TokKind::Colon, "':' and the dtype");
    o.dtype = parseDtype();
    expect(TokKind::LBracket, "'[' and rows x cols / stride");
    Token rows = expect(TokKind::Int, "the number of rows");
    if (rows.intValue < 0 || rows.intValue > INT32_MAX) fail(rows.loc, "rows out of range");
    o.rows = int32_t(rows.intValue);
    o.cols = parseColsAfter(rows);
    expect(TokKind::Slash, "'/' and the row stride");
    o.stride = expectInt("stride", 0, INT64_MAX);
    expect(TokKind::RBracket, "']' after the stride");
    return o;
}

void PtoParser::parseInstrAttrs(Instr& in) {
    advance(); // {
    if (accept(TokKind::RBrace)) return;
    while (true) {
        Token key = expect(TokKind::Ident, "an attribute (scalar, round, pred, mode, transpose_a, "
                                           "transpose_b)");
        if (key.text == "scalar") {
            expect(TokKind::Equal, "'=' after scalar");
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
            in.scalar = negative ? -v : v;
        } else if (key.text == "round" || key.text == "pred" || key.text == "mode") {
            expect(TokKind::Equal, fmt::format("'=' after {}", key.text));
            if (m_tok.is(TokKind::Ident))
                in.mode = std::string(take().text);
            else
                in.mode = expect(TokKind::String, "a mode such as rne or lt").str;
        } else if (key.text == "transpose_a") {
            in.transposeA = true;
        } else if (key.text == "transpose_b") {
            in.transposeB = true;
        } else {
            fail(key.loc, fmt::format("unknown instruction attribute '{}' (scalar, round, pred, "
                                      "mode, transpose_a, transpose_b)",
                                      key.text));
        }
        if (accept(TokKind::Comma)) continue;
        expect(TokKind::RBrace, "',' or '}' in the attributes");
        return;
    }
}

void PtoParser::parseProvenance(Instr& in) {
    while (m_tok.is(TokKind::Bang)) {
        advance();
        Token key = expect(TokKind::Ident, "'op' or 'loc' after '!'");
        if (key.text == "op") {
            in.tileOp = OpId(expectInt("tile op id", 0, int64_t(kNoId) - 1));
        } else if (key.text == "iter" && m_steps) {
            expect(TokKind::Plus, "'+' and the iteration within the round");
            m_iterOffset = expectInt("the iteration within the round", 0, 1023);
        } else if (key.text == "loc") {
            uint32_t line = uint32_t(expectInt("line", 1, UINT32_MAX));
            expect(TokKind::Colon, "':' between line and column");
            uint32_t col = uint32_t(expectInt("column", 1, UINT32_MAX));
            in.loc = SourceLoc{line, col};
        } else {
            fail(key.loc, fmt::format("unknown tag !{} (expected !op or !loc)", key.text));
        }
    }
}

// --- tasks ---------------------------------------------------------------------------------

uint32_t PtoParser::parseTensorRef() {
    if (m_tok.is(TokKind::ValueName)) return lookup(m_tensorByName, take(), "GM tensor");
    expect(TokKind::Hash, "a GM tensor (%name or #index)");
    return uint32_t(expectInt("GM tensor index", 0, int64_t(UINT32_MAX) - 2));
}

TaskDep PtoParser::parseDepKind(TaskDep d) {
    Token kind = expect(TokKind::Ident, "a dependency kind (raw, war or waw)");
    if (kind.text == "raw")
        d.kind = DepKind::Raw;
    else if (kind.text == "war")
        d.kind = DepKind::War;
    else if (kind.text == "waw")
        d.kind = DepKind::Waw;
    else
        fail(kind.loc, fmt::format("unknown dependency kind '{}' (raw, war or waw)", kind.text));
    if (m_tok.is(TokKind::ValueName) || m_tok.is(TokKind::Hash)) d.tensor = parseTensorRef();
    return d;
}

// [0x0, 0x400) +0x100: the task's GM addresses in [begin, end) move by the delta. (Order and
// overlap are the verifier's to check.)
GmRebase PtoParser::parseRebase() {
    GmRebase r;
    expect(TokKind::LBracket, "'[' to start a rebase range [begin, end)");
    r.begin = expectInt("rebase begin", 0, INT64_MAX);
    expect(TokKind::Comma, "','");
    r.end = expectInt("rebase end", 0, INT64_MAX);
    expect(TokKind::RParen, "')' to close the rebase range [begin, end)");
    accept(TokKind::Plus);
    r.delta = expectInt("rebase distance", INT64_MIN, INT64_MAX);
    return r;
}

void PtoParser::parseTask() {
    advance(); // task
    Task t;
    t.id = uint32_t(expectInt("task id", 0, int64_t(UINT32_MAX) - 1));
    if (m_tok.is(TokKind::AtName)) {
        t.block = lookup(m_kernelByName, take(), "kernel");
    } else {
        expect(TokKind::Hash, "the kernel it runs (@name or #index)");
        t.block = uint32_t(expectInt("kernel index", 0, int64_t(UINT32_MAX) - 1));
    }
    Token core = expect(TokKind::Ident, "the core type (aic or aiv)");
    std::optional<CoreType> c = parseCoreType(core.text);
    if (!c) fail(core.loc, fmt::format("unknown core type '{}' (aic or aiv)", core.text));
    t.core = *c;
    if (m_tok.is(TokKind::String)) t.name = take().str;
    if (m_tok.isIdent("cluster")) {
        advance();
        t.cluster = uint32_t(expectInt("cluster id", 0, int64_t(UINT32_MAX) - 1));
        if (accept(TokKind::Slash)) t.sub = uint8_t(expectInt("the AIV of the cluster", 0, 1));
    }
    if (m_tok.isIdent("rebase")) {
        advance();
        do t.rebases.push_back(parseRebase());
        while (accept(TokKind::Comma));
    }
    if (m_tok.isIdent("after")) {
        advance();
        do {
            TaskDep d;
            d.to = t.id;
            d.from = uint32_t(expectInt("task id", 0, int64_t(UINT32_MAX) - 1));
            m_p.exec.deps.push_back(parseDepKind(d));
        } while (accept(TokKind::Comma));
    }
    m_p.exec.tasks.push_back(std::move(t));
}

void PtoParser::parseDep() {
    advance(); // dep
    TaskDep d;
    d.from = uint32_t(expectInt("task id", 0, int64_t(UINT32_MAX) - 1));
    expect(TokKind::Arrow, "'->'");
    d.to = uint32_t(expectInt("task id", 0, int64_t(UINT32_MAX) - 1));
    m_p.exec.deps.push_back(parseDepKind(d));
}

PtoProgram PtoParser::parse() {
    if (!m_tok.isIdent("pto")) failExpected("'pto' to start a PTO listing");
    advance();
    if (m_tok.is(TokKind::AtName) || m_tok.is(TokKind::String))
        m_p.name = parseSymbol(TokKind::AtName, "the program name");
    while (!m_tok.is(TokKind::Eof)) {
        if (m_tok.isIdent("gm"))
            parseGm();
        else if (m_tok.isIdent("kernel"))
            parseKernel();
        else if (m_tok.isIdent("task"))
            parseTask();
        else if (m_tok.isIdent("dep"))
            parseDep();
        else
            failExpected("'gm', 'kernel', 'task' or 'dep'");
    }
    return std::move(m_p);
}

} // namespace

PtoProgram parsePtoProgram(std::string_view text, std::string file, bool verify) {
    PtoParser parser(text, file);
    PtoProgram p = parser.parse();
    if (verify) verifyPtoProgram(p, file, {}, &parser.locs());
    return p;
}

} // namespace pto
