// The Tensor/Tile-level and PTO-level verifiers (rules listed in Verifier.h).
#include "compiler/ir/Verifier.h"

#include "base/TripCount.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoShare.h"
#include "compiler/ir/ShapeInference.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>

namespace pto {
namespace {

// --- Tensor / Tile level -------------------------------------------------------------------

// The values an induction variable takes: first, last (equal to first for one iteration);
// none when the loop runs zero times.
struct IvRange {
    int64_t first = 0;
    int64_t last = 0;
    bool empty = false;
};
using IvRanges = std::unordered_map<ValueId, IvRange>;

class FunctionVerifier {
public:
    FunctionVerifier(const Function& f, const std::string& file, IvRanges ivs = {})
        : m_f(f), m_file(file), m_ivs(std::move(ivs)) {}
    void run();

private:
    [[noreturn]] void fail(const Op& op, const std::string& message) const;
    [[noreturn]] void failFunction(const std::string& message) const {
        throw CompileError(m_file, m_f.loc, fmt::format("@{}: {}", m_f.name, message));
    }
    std::string entity(const Op& op) const;
    void checkArgs();
    void checkStructure(const Op& op, OpId position);
    void checkOperands(const Op& op);
    void checkResult(const Op& op);
    void checkType(const Op& op) const;
    void checkVecTileScope(const Op& op);
    void checkResults() const;
    void checkInductionUses(const Op& op) const;
    void checkAffineView(const Op& op) const;
    std::string affineOffsetText(const Op& op, int64_t constant,
                                 const std::vector<int64_t>& strides, size_t dim,
                                 const NameTable& names) const;
    void checkLoop(const Op& op) const;
    void checkTileRegionAt(const Op& op, const std::vector<int64_t>& offsets,
                           const std::string& at) const;
    void checkLoopTypes(const Op& op, const Function& body) const;
    void checkMultiResults(const Op& op);

    const Function& m_f;
    const std::string& m_file;
    IvRanges m_ivs; // the induction variables visible here (this loop's and captured ones)
    std::vector<bool> m_defined;
    const Op* m_vecTile = nullptr; // the vec_tile directive in scope
};

std::string FunctionVerifier::entity(const Op& op) const {
    std::string e(opName(op.kind));
    if (op.result != kNoId && op.result < m_f.valueCount())
        e += fmt::format(" %{}", NameTable(m_f)[op.result]);
    if (op.kind == OpKind::For && op.attrs.has("name"))
        e += fmt::format(" \"{}\"", op.attrs.getString("name"));
    if (op.kind == OpKind::Call) e += fmt::format(" @{}", op.attrs.getString("callee"));
    return e + fmt::format(" (op #{})", op.id);
}

void FunctionVerifier::fail(const Op& op, const std::string& message) const {
    throw CompileError(m_file, op.loc, fmt::format("{}: {}", entity(op), message));
}

void FunctionVerifier::checkArgs() {
    for (ValueId a : m_f.args) {
        if (a >= m_f.valueCount())
            failFunction(fmt::format("argument value id {} does not exist ({} values)", a,
                                     m_f.valueCount()));
        if (m_defined[a])
            failFunction(fmt::format("value id {} is listed twice as an argument", a));
        if (m_f.value(a).def != kNoId)
            failFunction(fmt::format("argument %{} claims to be defined by op #{}",
                                     NameTable(m_f)[a], m_f.value(a).def));
        m_defined[a] = true;
    }
}

void FunctionVerifier::checkStructure(const Op& op, OpId position) {
    if (static_cast<int>(op.kind) >= opKindCount())
        throw CompileError(
            m_file, op.loc,
            fmt::format("op #{}: invalid op kind {}", position, static_cast<int>(op.kind)));
    if (op.id != position)
        fail(op, fmt::format("op id {} is not its position {} (call renumber())", op.id, position));
    uint8_t levels = opInfo(op.kind).levels;
    bool tensor = m_f.level == Level::Tensor;
    if (tensor && !(levels & kLevelTensor))
        fail(op, "is a Tile-level op in a Tensor-level function");
    if (!tensor && !(levels & kLevelTile))
        fail(op, "is a Tensor-level op in a Tile-level function (decompose or expand it first)");
    auto [lo, hi] = operandCountRange(op.kind);
    int n = int(op.operands.size());
    if (n < lo || n > hi)
        fail(op, lo == hi ? fmt::format("takes {} operand(s), has {}", lo, n)
                          : fmt::format("takes {} to {} operands, has {}", lo, hi, n));
}

void FunctionVerifier::checkOperands(const Op& op) {
    for (size_t i = 0; i < op.operands.size(); ++i) {
        ValueId v = op.operands[i];
        if (v >= m_f.valueCount())
            fail(op, fmt::format("operand {} is value id {}, which does not exist ({} values)", i,
                                 v, m_f.valueCount()));
        if (!m_defined[v]) {
            OpId def = m_f.value(v).def;
            fail(op, def == kNoId || def >= m_f.ops().size()
                         ? fmt::format("operand {} (value id {}) is never defined", i, v)
                         : fmt::format("operand {} (%{}) is used before its definition by op #{}",
                                       i, NameTable(m_f)[v], def));
        }
    }
}

void FunctionVerifier::checkResult(const Op& op) {
    bool wants = opHasResult(op.kind);
    if (!wants && op.result != kNoId) fail(op, "has a result, but this kind of op defines none");
    if (wants && op.result == kNoId) fail(op, "has no result value");
    if (!wants) return;
    if (op.result >= m_f.valueCount())
        fail(op, fmt::format("result value id {} does not exist ({} values)", op.result,
                             m_f.valueCount()));
    if (m_defined[op.result]) fail(op, "redefines a value defined earlier (SSA: one definition)");
    if (m_f.value(op.result).def != op.id)
        fail(op, fmt::format("its result's def is op #{}, not this op", m_f.value(op.result).def));
    m_defined[op.result] = true;
}

void FunctionVerifier::checkMultiResults(const Op& op) {
    if (!isControl(op.kind)) {
        if (!op.results.empty()) fail(op, "lists several results, but only for and call may");
        if (!op.body.empty()) fail(op, "has a body, but only for may");
        return;
    }
    for (ValueId r : op.results) {
        if (r >= m_f.valueCount())
            fail(op,
                 fmt::format("result value id {} does not exist ({} values)", r, m_f.valueCount()));
        if (m_defined[r]) fail(op, "redefines a value defined earlier (SSA: one definition)");
        if (m_f.value(r).def != op.id)
            fail(op, fmt::format("its result's def is op #{}, not this op", m_f.value(r).def));
        m_defined[r] = true;
    }
}

// The induction variable is an index, not data: it may appear only in view offsets (and be
// handed to an inner loop, which captures it).
void FunctionVerifier::checkInductionUses(const Op& op) const {
    for (size_t i = 0; i < op.operands.size(); ++i) {
        auto it = m_ivs.find(op.operands[i]);
        if (it == m_ivs.end()) continue;
        std::optional<size_t> base = affineOperandBase(op.kind);
        bool allowed =
            (base && i >= *base) || (op.kind == OpKind::For && i >= loopIterArgCount(op));
        if (!allowed)
            fail(op,
                 fmt::format("uses the induction variable %{} as operand {}; it may only appear "
                             "in view offsets (such as {{offsets = [%{} * 256, 0]}})",
                             m_f.value(op.operands[i]).name, i, m_f.value(op.operands[i]).name));
    }
    if (std::optional<size_t> base = affineOperandBase(op.kind))
        for (size_t i = *base; i < op.operands.size(); ++i)
            if (!m_ivs.count(op.operands[i]))
                fail(op, fmt::format("offset operand %{} is not the induction variable of an "
                                     "enclosing loop",
                                     NameTable(m_f)[op.operands[i]]));
}

// One dim of an affine offset as written, with the range of each variable: "64 * %i +
// 9223372036854775807 for %i from 0 to 3".
std::string FunctionVerifier::affineOffsetText(const Op& op, int64_t constant,
                                               const std::vector<int64_t>& strides, size_t dim,
                                               const NameTable& names) const {
    const size_t base = affineOperandBase(op.kind).value_or(1);
    const size_t rank = strides.size() / std::max<size_t>(op.operands.size() - base, 1);
    std::string expr, ranges;
    for (size_t k = 0; base + k < op.operands.size(); ++k) {
        const int64_t c = strides[k * rank + dim];
        if (c == 0) continue;
        std::string_view iv = names[op.operands[base + k]];
        const IvRange& r = m_ivs.at(op.operands[base + k]);
        expr += fmt::format("{}{} * %{}", expr.empty() ? "" : " + ", c, iv);
        ranges += fmt::format("{}%{} from {} to {}", ranges.empty() ? " for " : ", ", iv, r.first,
                              r.last);
    }
    if (constant > 0) expr += fmt::format(" + {}", constant);
    if (constant < 0) expr += fmt::format(" - {}", -uint64_t(constant)); // INT64_MIN too
    return expr + ranges;
}

// Every iteration's view lies inside its tensor: an affine offset takes its extremes at the
// first or the last value of each induction variable.
void FunctionVerifier::checkAffineView(const Op& op) const {
    const size_t base = affineOperandBase(op.kind).value_or(1);
    const bool view = op.kind == OpKind::View;
    std::vector<int64_t> offsets =
        op.attrs.getInts(affineOffsetAttr(op.kind)).value_or(std::vector<int64_t>{});
    std::vector<int64_t> sizes =
        view ? op.attrs.getInts("sizes").value_or(std::vector<int64_t>{}) : offsets;
    std::vector<int64_t> strides = op.attrs.getInts("iv_strides").value_or(std::vector<int64_t>{});
    const Shape& in = m_f.type(op.operands[base - 1]).shape;
    const size_t rank = size_t(in.rank());
    const size_t ivCount = op.operands.size() - base;
    if (strides.size() != ivCount * rank || offsets.size() != rank || sizes.size() != rank)
        fail(op, fmt::format("iv_strides has {} entries, but {} induction variable(s) over rank {} "
                             "need {}",
                             strides.size(), ivCount, rank, ivCount * rank));
    for (size_t k = 0; k < ivCount; ++k)
        if (m_ivs.at(op.operands[base + k]).empty) return; // never runs
    NameTable names(m_f);
    std::vector<int64_t> los, his;
    std::string firstAt, lastAt;
    for (size_t d = 0; d < rank; ++d) {
        int64_t lo = offsets[d], hi = offsets[d];
        std::string loAt, hiAt;
        for (size_t k = 0; k < ivCount; ++k) {
            const IvRange& r = m_ivs.at(op.operands[base + k]);
            int64_t c = strides[k * rank + d];
            if (c == 0) continue;
            int64_t a = 0, b = 0;
            std::string_view iv = names[op.operands[base + k]];
            const bool wraps = __builtin_mul_overflow(c, r.first, &a) ||
                               __builtin_mul_overflow(c, r.last, &b) ||
                               __builtin_add_overflow(lo, std::min(a, b), &lo) ||
                               __builtin_add_overflow(hi, std::max(a, b), &hi);
            if (wraps)
                fail(op, fmt::format("the offset of dim {} ({}) does not fit in 64 bits", d,
                                     affineOffsetText(op, offsets[d], strides, d, names)));
            loAt +=
                fmt::format("{}%{} = {}", loAt.empty() ? "" : ", ", iv, a <= b ? r.first : r.last);
            hiAt +=
                fmt::format("{}%{} = {}", hiAt.empty() ? "" : ", ", iv, a <= b ? r.last : r.first);
        }
        los.push_back(lo);
        his.push_back(hi);
        if (firstAt.empty()) firstAt = loAt;
        if (lastAt.empty()) lastAt = hiAt;
        if (!view) continue;
        if (lo < 0)
            fail(op, fmt::format("the offset of dim {} is {} at {}: a view starts inside its "
                                 "tensor {}",
                                 d, lo, loAt, in.str()));
        if (op.attrs.has("clip") && hi >= in[d])
            fail(op, fmt::format("the clipped view starts past the end of the tensor {} at {} "
                                 "(dim {}: offset {} >= {})",
                                 in.str(), hiAt, d, hi, in[d]));
        if (!op.attrs.has("clip") && hi + sizes[d] > in[d])
            fail(op, fmt::format("the view leaves the tensor {} at {} (dim {}: offset {} + size {} "
                                 "> {})",
                                 in.str(), hiAt, d, hi, sizes[d], in[d]));
    }
    if (!view) {
        checkTileRegionAt(op, los, firstAt);
        checkTileRegionAt(op, his, lastAt);
    }
}

// A tload/tstore with affine offsets: its tile lies inside the tensor at these offsets (the
// first or the last value of its induction variables).
void FunctionVerifier::checkTileRegionAt(const Op& op, const std::vector<int64_t>& offsets,
                                         const std::string& at) const {
    Op plain = op;
    plain.operands.resize(affineOperandBase(op.kind).value_or(1));
    plain.attrs.erase("iv_strides");
    plain.attrs.set("offset", offsets);
    const Type* declared = op.result != kNoId ? &m_f.type(op.result) : nullptr;
    try {
        inferResultType(m_f, plain.kind, plain.operands, plain.attrs, declared);
    } catch (const ShapeError& e) {
        fail(op, fmt::format("at {}: {}", at, e.detail()));
    }
}

void FunctionVerifier::checkLoopTypes(const Op& op, const Function& body) const {
    const size_t n = loopIterArgCount(op);
    if (op.operands.size() < n)
        fail(op, fmt::format("has {} results but only {} operands (one initial value per "
                             "iter_arg)",
                             n, op.operands.size()));
    if (body.args.size() != 1 + op.operands.size())
        fail(op, fmt::format("its body has {} arguments, expected {} (the induction variable, {} "
                             "iter_args, {} captures)",
                             body.args.size(), 1 + op.operands.size(), n, op.operands.size() - n));
    if (body.type(body.args[0]) != Type{DType::I32, Shape{}, MemSpace::None})
        fail(op, "its induction variable must be a rank-0 i32 value");
    if (body.results.size() != n)
        fail(op, fmt::format("yield gives {} value(s), but the loop has {} iter_arg(s)",
                             body.results.size(), n));
    for (size_t i = 0; i < op.operands.size(); ++i) {
        const Type& outer = m_f.type(op.operands[i]);
        const Type& inner = body.type(body.args[1 + i]);
        if (outer != inner)
            fail(op, fmt::format("operand {} has type {}, but the body's argument %{} has {}", i,
                                 formatType(outer, m_f.level), body.value(body.args[1 + i]).name,
                                 formatType(inner, m_f.level)));
    }
    for (size_t k = 0; k < n; ++k) {
        const Type& iter = body.type(body.args[1 + k]);
        const Type& yielded = body.type(body.results[k]);
        const Type& result = m_f.type(op.results[k]);
        if (yielded != iter)
            fail(op, fmt::format("yield value {} has type {}, but iter_arg %{} has type {}", k,
                                 formatType(yielded, m_f.level), body.value(body.args[1 + k]).name,
                                 formatType(iter, m_f.level)));
        if (result != iter)
            fail(op, fmt::format("result {} has type {}, but iter_arg %{} has type {}", k,
                                 formatType(result, m_f.level), body.value(body.args[1 + k]).name,
                                 formatType(iter, m_f.level)));
    }
}

void FunctionVerifier::checkLoop(const Op& op) const {
    if (op.body.size() != 1) fail(op, "needs exactly one body");
    if (op.attrs.has("name"))
        if (const std::string name = op.attrs.getString("name"); !loopNameProblem(name).empty())
            fail(op, fmt::format("loop name \"{}\" {}", name, loopNameProblem(name)));
    // A trip count bound when the program runs (upper_arg) is checked once bound.
    const bool bound = !op.attrs.has("upper_arg");
    for (std::string_view a : {"lower", "upper", "step"}) {
        const AttrValue* v = op.attrs.find(a);
        if ((!v && (bound || a != "upper")) || (v && !std::holds_alternative<int64_t>(*v)))
            fail(op, fmt::format("needs an integer attribute '{}'", a));
    }
    const int64_t lower = op.attrs.getInt("lower");
    const int64_t upper = bound ? op.attrs.getInt("upper") : lower;
    const int64_t step = op.attrs.getInt("step");
    if (step <= 0) fail(op, fmt::format("step {} must be positive", step));
    if (lower < INT32_MIN || upper > INT32_MAX)
        fail(op, fmt::format("the bounds {} to {} do not fit in 32 bits (the induction variable is "
                             "an i32)",
                             lower, upper));
    if (upper < lower)
        fail(op, fmt::format("the trip count is negative: {} to {} (the upper bound must be at "
                             "least the lower bound)",
                             lower, upper));
    const Function& body = op.body.front();
    checkLoopTypes(op, body);
    const int64_t trips = tripCount(lower, upper, step);
    IvRanges inner;
    const int64_t last = trips == 0 ? lower : lower + (trips - 1) * step; // below upper
    inner[body.args[0]] = IvRange{lower, last, trips == 0 || !bound};
    for (size_t i = loopIterArgCount(op); i < op.operands.size(); ++i)
        if (auto it = m_ivs.find(op.operands[i]); it != m_ivs.end())
            inner[body.args[1 + i]] = it->second;
    FunctionVerifier(body, m_file, std::move(inner)).run();
}

void FunctionVerifier::checkType(const Op& op) const {
    if (op.kind == OpKind::For) return checkLoop(op);
    if (op.kind == OpKind::Call) return; // against the callee: verifyModule
    if (hasAffineOffsets(op)) checkAffineView(op);
    const Type* declared = op.result != kNoId ? &m_f.type(op.result) : nullptr;
    try {
        inferResultType(m_f, op.kind, op.operands, op.attrs, declared);
    } catch (const ShapeError& e) {
        fail(op, e.detail());
    }
}

// The rank a vec_tile applies to for `op`, or nullopt when vec_tile does not tile this op.
std::optional<int> vecTileRank(const Function& f, const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Reduce:
        return f.type(op.operands[0]).shape.rank();
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Composite:
    case OpClass::Select:
        return f.type(op.result).shape.rank();
    default:
        return std::nullopt;
    }
}

void FunctionVerifier::checkVecTileScope(const Op& op) {
    if (op.kind == OpKind::VecTile) {
        m_vecTile = &op;
        return;
    }
    if (!m_vecTile || op.attrs.has("vec_tile")) return;
    std::optional<int> rank = vecTileRank(m_f, op);
    std::vector<int64_t> sizes = m_vecTile->attrs.getInts("sizes").value_or(std::vector<int64_t>{});
    if (!rank || int(sizes.size()) == *rank) return;
    fail(op, fmt::format("vec_tile [{}] (at {}:{}) has {} sizes, but this op works on rank-{} "
                         "tensors (give one size per dim, or a new vec_tile)",
                         fmt::join(sizes, ", "), m_vecTile->loc.line, m_vecTile->loc.col,
                         sizes.size(), *rank));
}

void FunctionVerifier::checkResults() const {
    for (size_t i = 0; i < m_f.results.size(); ++i) {
        ValueId r = m_f.results[i];
        if (r >= m_f.valueCount() || !m_defined[r])
            failFunction(fmt::format("result {} (value id {}) is not defined", i, r));
    }
}

void FunctionVerifier::run() {
    m_defined.assign(m_f.valueCount(), false);
    checkArgs();
    const std::vector<Op>& ops = m_f.ops();
    for (OpId i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        checkStructure(op, i);
        checkOperands(op);
        checkInductionUses(op);
        checkResult(op);
        checkMultiResults(op);
        checkType(op);
        checkVecTileScope(op);
    }
    checkResults();
}

// --- PTO level -----------------------------------------------------------------------------

class PtoVerifier {
public:
    PtoVerifier(const PtoProgram& p, const std::string& file, const TargetInfo& target,
                const ListingLocs* listing)
        : m_p(p), m_file(file), m_target(target), m_listing(listing) {}
    void run();

private:
    [[noreturn]] void failProgram(const std::string& message) const {
        throw CompileError(m_file, {}, fmt::format("pto @{}: {}", m_p.name, message));
    }
    [[noreturn]] void failInstr(const Kernel& k, size_t index, const Instr& in,
                                const std::string& message) const {
        throw CompileError(m_file, instrLoc(k, index, in),
                           fmt::format("kernel @{} instr {} ({}){}: {}", k.name, index,
                                       opcodeName(in.opcode), roundText(), message));
    }
    SourceLoc instrLoc(const Kernel& k, size_t index, const Instr& in) const;
    std::string roundText() const;
    void checkGmTensors();
    void checkKernel(const Kernel& k);
    void checkInstr(const Kernel& k, size_t index, const Instr& in) const;
    void checkOperand(const Kernel& k, size_t index, const Instr& in, size_t i) const;
    void checkGmRegion(const Kernel& k, size_t index, const Instr& in, size_t i, int64_t begin,
                       int64_t end, const Task* task = nullptr) const;
    void checkTasks() const;
    void checkRebases(const Task& t) const;
    void checkRebasedOperand(const Task& t, const Kernel& k, size_t index, const Instr& in,
                             size_t i) const;
    void checkAcyclic() const;
    void checkClusters() const;
    void checkClusterMembers(uint32_t cluster, const std::array<int64_t, kClusterRoles>& members,
                             const std::vector<std::vector<uint32_t>>& succ) const;
    void checkCrossFlag(uint32_t cluster, const std::array<int64_t, kClusterRoles>& members,
                        const Task& t, size_t index, const Instr& in) const;

    const PtoProgram& m_p;
    const std::string& m_file;
    const TargetInfo& m_target;
    const ListingLocs* m_listing;   // a listing's instruction positions, or null
    std::vector<size_t> m_gmByAddr; // GM tensor indices sorted by address
    // The loop whose last round is being checked (its addresses enclose the other rounds').
    mutable const InstrLoop* m_lastRoundOf = nullptr;
};

// A listing's instruction at its line in the listing; a compiled one at its .pto position.
SourceLoc PtoVerifier::instrLoc(const Kernel& k, size_t index, const Instr& in) const {
    const size_t kernel = size_t(&k - m_p.kernels.data());
    if (m_listing && kernel < m_listing->size() && index < (*m_listing)[kernel].size())
        return (*m_listing)[kernel][index];
    return in.loc;
}

// ", loop "cols" at i = 4 (its last round)" while a loop's last round is checked, else "".
std::string PtoVerifier::roundText() const {
    if (!m_lastRoundOf) return {};
    return fmt::format(", loop \"{}\" at i = {} (its last round)", m_lastRoundOf->name,
                       m_lastRoundOf->count - 1);
}

// Checks an instruction of `loop` as its last round runs it (failInstr names the round).
class LastRound {
public:
    LastRound(const InstrLoop*& slot, const InstrLoop& loop) : m_slot(slot) { m_slot = &loop; }
    ~LastRound() { m_slot = nullptr; }
    LastRound(const LastRound&) = delete;
    LastRound& operator=(const LastRound&) = delete;

private:
    const InstrLoop*& m_slot;
};

void PtoVerifier::checkGmTensors() {
    for (size_t i = 0; i < m_p.gm.size(); ++i) {
        const GmTensor& t = m_p.gm[i];
        if (t.addr < 0 || t.shape.numel() <= 0 || t.addr > INT64_MAX - t.bytes())
            failProgram(fmt::format("GM tensor %{} has address {} and {} elements", t.name, t.addr,
                                    t.shape.numel()));
        m_gmByAddr.push_back(i);
    }
    std::sort(m_gmByAddr.begin(), m_gmByAddr.end(),
              [&](size_t a, size_t b) { return m_p.gm[a].addr < m_p.gm[b].addr; });
}

std::pair<int, int> opcodeOperands(Opcode op) {
    switch (op) {
    case Opcode::TMatmul:
        return {3, 3};
    case Opcode::TMatmulAcc:
        return {3, 4};
    case Opcode::TAdd:
    case Opcode::TSub:
    case Opcode::TMul:
    case Opcode::TDiv:
    case Opcode::TMax:
    case Opcode::TMin:
    case Opcode::TCmp:
    case Opcode::TRowExpandAdd:
    case Opcode::TRowExpandSub:
    case Opcode::TRowExpandMul:
    case Opcode::TRowExpandDiv:
    case Opcode::TRowExpandMax:
        return {3, 3};
    case Opcode::TSel:
        return {3, 4};
    case Opcode::TExpandS:
        return {1, 1};
    case Opcode::TRowSum:
    case Opcode::TRowMax:
    case Opcode::TRowMin:
    case Opcode::TColSum:
    case Opcode::TColMax:
    case Opcode::TColMin:
    case Opcode::TTrans:
        return {2, 3};
    case Opcode::MGather:  // destination, GM strip, index tile
    case Opcode::MScatter: // GM strip, source rows, index tile
        return {3, 3};
    case Opcode::SetFlag:
    case Opcode::WaitFlag:
    case Opcode::Barrier:
    case Opcode::CrossSetFlag:
    case Opcode::CrossWaitFlag:
        return {0, 0};
    default: // moves, unary and tile-scalar ops: destination and source
        return {2, 2};
    }
}

void PtoVerifier::checkGmRegion(const Kernel& k, size_t index, const Instr& in, size_t i,
                                int64_t begin, int64_t end, const Task* task) const {
    auto it = std::upper_bound(m_gmByAddr.begin(), m_gmByAddr.end(), begin,
                               [&](int64_t a, size_t t) { return a < m_p.gm[t].addr; });
    // Tensors may overlap (workspace reuse): try every tensor starting at or before `begin`.
    while (it != m_gmByAddr.begin()) {
        const GmTensor& t = m_p.gm[*--it];
        if (end <= t.addr + t.bytes()) return;
    }
    failInstr(k, index, in,
              fmt::format("{}operand {} covers GM [0x{:x}, 0x{:x}), which is not inside a "
                          "declared GM tensor",
                          task ? fmt::format("as task {} runs it, ", task->id) : "", i, begin,
                          end));
}

// A task's rebases: sorted, disjoint and non-empty (docs/PTO_LANGUAGE.md, "Tasks").
void PtoVerifier::checkRebases(const Task& t) const {
    for (size_t r = 0; r < t.rebases.size(); ++r) {
        const GmRebase& b = t.rebases[r];
        if (b.begin >= b.end)
            failProgram(
                fmt::format("task {}: rebase [0x{:x}, 0x{:x}) is empty", t.id, b.begin, b.end));
        if (r > 0 && b.begin < t.rebases[r - 1].end)
            failProgram(fmt::format("task {}: rebase [0x{:x}, 0x{:x}) does not start after "
                                    "[0x{:x}, 0x{:x}) (rebases are sorted by address and "
                                    "disjoint)",
                                    t.id, b.begin, b.end, t.rebases[r - 1].begin,
                                    t.rebases[r - 1].end));
    }
    if (t.rebases.empty() || t.block >= m_p.kernels.size()) return;
    const Kernel& k = m_p.kernels[t.block];
    for (size_t index = 0; index < k.instrs.size(); ++index)
        for (size_t i = 0; i < k.instrs[index].operandCount; ++i)
            if (k.instrs[index].operands[i].space == MemSpace::GM)
                checkRebasedOperand(t, k, index, k.instrs[index], i);
    // Addresses are affine in the round: the first and the last round enclose the others.
    for (const InstrLoop& loop : k.loops)
        if (loop.count > 1) {
            const LastRound lastRound(m_lastRoundOf, loop);
            for (uint32_t index = loop.begin; index < loop.end; ++index) {
                const Instr last =
                    loopRoundInstr(k.instrs[index], loop, index - loop.begin, loop.count - 1);
                for (size_t i = 0; i < last.operandCount; ++i)
                    if (last.operands[i].space == MemSpace::GM) {
                        checkRebasedOperand(t, k, index, last, i);
                        const GmRebase* first =
                            rebaseHolding(t.rebases, k.instrs[index].operands[i].addr);
                        if (first != rebaseHolding(t.rebases, last.operands[i].addr))
                            failInstr(k, index, last,
                                      fmt::format("task {} moves the rounds of operand {} by "
                                                  "different rebases (a loop's rounds stay in "
                                                  "one)",
                                                  t.id, i));
                    }
            }
        }
}

// One GM operand as task `t` runs it: inside one rebase or none, and, moved, inside a GM tensor.
void PtoVerifier::checkRebasedOperand(const Task& t, const Kernel& k, size_t index, const Instr& in,
                                      size_t i) const {
    const ByteRange r = *operandBytes(in.operands[i]);
    const GmRebase* holder = rebaseHolding(t.rebases, r.begin);
    const GmRebase* lastHolder = rebaseHolding(t.rebases, r.end - 1);
    auto next = std::upper_bound(t.rebases.begin(), t.rebases.end(), r.begin,
                                 [](int64_t a, const GmRebase& b) { return a < b.begin; });
    if (holder != lastHolder || (!holder && next != t.rebases.end() && next->begin < r.end)) {
        const GmRebase& b = holder ? *holder : *next;
        failInstr(k, index, in,
                  fmt::format("operand {} covers GM [0x{:x}, 0x{:x}), which straddles the "
                              "boundary of task {}'s rebase [0x{:x}, 0x{:x})",
                              i, r.begin, r.end, t.id, b.begin, b.end));
    }
    if (!holder) return;
    int64_t begin = 0, end = 0;
    if (__builtin_add_overflow(r.begin, holder->delta, &begin) ||
        __builtin_add_overflow(r.end, holder->delta, &end) || begin < 0)
        failInstr(k, index, in,
                  fmt::format("as task {} runs it, operand {} moves by {:+#x} outside the GM "
                              "address range",
                              t.id, i, holder->delta));
    checkGmRegion(k, index, in, i, begin, end, &t);
}

void PtoVerifier::checkOperand(const Kernel& k, size_t index, const Instr& in, size_t i) const {
    const Operand& o = in.operands[i];
    // GM's limit is the tensor table (checkGmRegion); capacity(GM) is unbounded.
    for (const std::string& problem : {operandSpaceProblem(o, k.core), operandShapeProblem(in, i),
                                       operandBoundsProblem(o, m_target.capacity(o.space))})
        if (!problem.empty()) failInstr(k, index, in, fmt::format("operand {} {}", i, problem));
    if (o.space == MemSpace::GM) {
        const ByteRange r = *operandBytes(o);
        checkGmRegion(k, index, in, i, r.begin, r.end);
    }
}

void PtoVerifier::checkInstr(const Kernel& k, size_t index, const Instr& in) const {
    if (static_cast<size_t>(in.opcode) > static_cast<size_t>(kLastOpcode))
        failInstr(k, index, in, "invalid opcode");
    if (!coreHasPipe(k.core, in.pipe))
        failInstr(k, index, in,
                  fmt::format("pipe {} does not exist on an {} core", pipeName(in.pipe),
                              coreTypeName(k.core)));
    auto [lo, hi] = opcodeOperands(in.opcode);
    if (in.operandCount < lo || in.operandCount > hi)
        failInstr(k, index, in,
                  lo == hi
                      ? fmt::format("takes {} operands, has {}", lo, in.operandCount)
                      : fmt::format("takes {} to {} operands, has {}", lo, hi, in.operandCount));
    if (const std::optional<Pipe> pipe = movePipe(in); pipe && *pipe != in.pipe)
        failInstr(
            k, index, in,
            fmt::format("a {}->{} move runs on pipe {}, not {}", memSpaceName(in.operands[1].space),
                        memSpaceName(in.operands[0].space), pipeName(*pipe), pipeName(in.pipe)));
    bool isFlag = in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag;
    if (isFlag || in.opcode == Opcode::Barrier) {
        for (Pipe p : {in.flagSrc, in.flagDst})
            if (!coreHasPipe(k.core, p))
                failInstr(k, index, in,
                          fmt::format("flag pipe {} does not exist on an {} core", pipeName(p),
                                      coreTypeName(k.core)));
        if (in.event > 7)
            failInstr(k, index, in, fmt::format("event id {} is out of range 0..7", in.event));
    }
    if (isCrossFlag(in.opcode)) {
        if (in.event >= kCrossFlagIds)
            failInstr(k, index, in,
                      fmt::format("cross-core flag id {} is out of range 0..{}", in.event,
                                  kCrossFlagIds - 1));
        if (static_cast<int>(in.peer) >= kClusterRoles)
            failInstr(k, index, in, "invalid peer core");
        if (k.core == CoreType::AIC && in.peer == ClusterRole::Aic)
            failInstr(k, index, in, "an AIC's cross-core peer is aiv0 or aiv1, not itself");
    }
    for (size_t i = 0; i < in.operandCount; ++i) checkOperand(k, index, in, i);
}

void PtoVerifier::checkKernel(const Kernel& k) {
    if (k.core != CoreType::AIC && k.core != CoreType::AIV)
        failProgram(
            fmt::format("kernel @{} has core type {} (aic or aiv)", k.name, coreTypeName(k.core)));
    for (size_t i = 0; i < k.instrs.size(); ++i) checkInstr(k, i, k.instrs[i]);
    if (std::string problem = instrLoopProblem(k); !problem.empty())
        failProgram(fmt::format("kernel @{}: {}", k.name, problem));
    // Addresses are affine in the round: the first and the last round enclose the others.
    for (const InstrLoop& loop : k.loops)
        if (loop.count > 1) {
            const LastRound last(m_lastRoundOf, loop);
            for (uint32_t i = loop.begin; i < loop.end; ++i)
                checkInstr(k, i, loopRoundInstr(k.instrs[i], loop, i - loop.begin, loop.count - 1));
        }
}

void PtoVerifier::checkTasks() const {
    for (size_t i = 0; i < m_p.exec.tasks.size(); ++i) {
        const Task& t = m_p.exec.tasks[i];
        if (t.id != i) failProgram(fmt::format("task {} has id {} (ids are positions)", i, t.id));
        if (t.block >= m_p.kernels.size())
            failProgram(fmt::format("task {} runs kernel {}, but there are {} kernels", i, t.block,
                                    m_p.kernels.size()));
        const Kernel& k = m_p.kernels[t.block];
        if (t.core != k.core)
            failProgram(fmt::format("task {} is on an {} core, but kernel @{} is {}", i,
                                    coreTypeName(t.core), k.name, coreTypeName(k.core)));
        checkRebases(t);
    }
    size_t n = m_p.exec.tasks.size();
    for (const TaskDep& d : m_p.exec.deps) {
        if (d.from >= n || d.to >= n || d.from == d.to)
            failProgram(fmt::format("dependency {} -> {} does not link two tasks ({} tasks)",
                                    d.from, d.to, n));
        if (d.tensor != UINT32_MAX && d.tensor >= m_p.gm.size())
            failProgram(fmt::format("dependency {} -> {} names GM tensor {}, but there are {}",
                                    d.from, d.to, d.tensor, m_p.gm.size()));
    }
}

void PtoVerifier::checkAcyclic() const {
    size_t n = m_p.exec.tasks.size();
    std::vector<std::vector<uint32_t>> succ(n);
    std::vector<uint32_t> indegree(n, 0);
    for (const TaskDep& d : m_p.exec.deps) {
        succ[d.from].push_back(d.to);
        ++indegree[d.to];
    }
    std::queue<uint32_t> ready;
    for (uint32_t t = 0; t < n; ++t)
        if (indegree[t] == 0) ready.push(t);
    size_t done = 0;
    while (!ready.empty()) {
        uint32_t t = ready.front();
        ready.pop();
        ++done;
        for (uint32_t s : succ[t])
            if (--indegree[s] == 0) ready.push(s);
    }
    if (done == n) return;
    for (uint32_t t = 0; t < n; ++t)
        if (indegree[t] != 0)
            failProgram(fmt::format("the task graph has a cycle through task {}", t));
}

// Fused clusters: one task per role; a kernel with cross-core flags runs only in clusters;
// every flag names a peer the cluster has; every wait has a set of its flag on the peer's
// kernel that signals it; members do not depend on each other (they start together).
void PtoVerifier::checkClusters() const {
    std::map<uint32_t, std::array<int64_t, kClusterRoles>> clusters;
    const auto& tasks = m_p.exec.tasks;
    for (const Task& t : tasks) {
        const bool cross = std::ranges::any_of(
            m_p.kernels[t.block].instrs, [](const Instr& in) { return isCrossFlag(in.opcode); });
        if (t.cluster == kNoCluster) {
            if (cross)
                failProgram(fmt::format("task {} runs kernel @{}, which uses cross-core flags, "
                                        "outside a cluster (give it 'cluster <id>')",
                                        t.id, m_p.kernels[t.block].name));
            continue;
        }
        if (t.sub > 1 || (t.core == CoreType::AIC && t.sub != 0))
            failProgram(fmt::format("task {} is AIV {} of cluster {}; a cluster has an AIC and "
                                    "AIVs 0 and 1",
                                    t.id, t.sub, t.cluster));
        auto [it, fresh] = clusters.try_emplace(t.cluster);
        if (fresh) it->second.fill(-1);
        int64_t& slot = it->second[static_cast<int>(t.role())];
        if (slot >= 0)
            failProgram(fmt::format("tasks {} and {} are both {} of cluster {}", slot, t.id,
                                    clusterRoleName(t.role()), t.cluster));
        slot = t.id;
    }
    if (clusters.empty()) return;
    std::vector<std::vector<uint32_t>> succ(tasks.size());
    for (const TaskDep& d : m_p.exec.deps) succ[d.from].push_back(d.to);
    for (const auto& [cluster, members] : clusters) checkClusterMembers(cluster, members, succ);
}

void PtoVerifier::checkClusterMembers(uint32_t cluster,
                                      const std::array<int64_t, kClusterRoles>& members,
                                      const std::vector<std::vector<uint32_t>>& succ) const {
    for (int64_t from : members) {
        if (from < 0) continue;
        std::vector<char> seen(succ.size(), 0);
        std::vector<uint32_t> stack(succ[size_t(from)]);
        while (!stack.empty()) {
            uint32_t t = stack.back();
            stack.pop_back();
            if (seen[t]) continue;
            seen[t] = 1;
            if (std::ranges::find(members, int64_t(t)) != members.end())
                failProgram(fmt::format("task {} of cluster {} depends on task {} of the same "
                                        "cluster (its tasks start together)",
                                        t, cluster, from));
            stack.insert(stack.end(), succ[t].begin(), succ[t].end());
        }
        const Task& t = m_p.exec.tasks[size_t(from)];
        const Kernel& k = m_p.kernels[t.block];
        for (size_t i = 0; i < k.instrs.size(); ++i)
            if (isCrossFlag(k.instrs[i].opcode))
                checkCrossFlag(cluster, members, t, i, k.instrs[i]);
    }
}

void PtoVerifier::checkCrossFlag(uint32_t cluster,
                                 const std::array<int64_t, kClusterRoles>& members, const Task& t,
                                 size_t index, const Instr& in) const {
    const Kernel& k = m_p.kernels[t.block];
    const std::string_view self = clusterRoleName(t.role());
    const std::string_view peer = clusterRoleName(in.peer);
    if (in.peer == t.role())
        failInstr(k, index, in,
                  fmt::format("task {} is {} of cluster {}: a core cannot signal itself", t.id,
                              self, cluster));
    const int64_t other = members[static_cast<int>(in.peer)];
    if (other < 0)
        failInstr(k, index, in,
                  fmt::format("names {}, but cluster {} (task {}) has no {} task", peer, cluster,
                              t.id, peer));
    if (in.opcode != Opcode::CrossWaitFlag) return;
    const Kernel& pk = m_p.kernels[m_p.exec.tasks[size_t(other)].block];
    for (const Instr& p : pk.instrs)
        if (p.opcode == Opcode::CrossSetFlag && p.peer == t.role() && p.event == in.event) return;
    failInstr(k, index, in,
              fmt::format("task {} ({} of cluster {}) waits for cross-core flag {} of {}, but "
                          "kernel @{} (task {}, {}) never sets it for {}",
                          t.id, self, cluster, in.event, peer, pk.name, other, peer, self));
}

void PtoVerifier::run() {
    for (size_t i = 0; i < m_p.kernels.size(); ++i)
        if (m_p.kernels[i].id != i)
            failProgram(fmt::format("kernel @{} has id {}, but ids are positions ({})",
                                    m_p.kernels[i].name, m_p.kernels[i].id, i));
    checkGmTensors();
    for (const Kernel& k : m_p.kernels) checkKernel(k);
    checkTasks();
    checkAcyclic();
    checkClusters();
}

} // namespace

void verifyFunction(const Function& f, const std::string& file) {
    FunctionVerifier(f, file).run();
}

namespace {

// Every `call` names a function of the module with matching arguments; no function reaches
// itself through calls (inline-calls could not finish).
class CallVerifier {
public:
    explicit CallVerifier(const Module& m) : m_m(m) {
        for (size_t i = 0; i < m.functions.size(); ++i) m_index[m.functions[i].name] = i;
    }
    void run() {
        for (const Function& f : m_m.functions) walk(f, f);
        std::vector<int> state(m_m.functions.size(), 0);
        std::vector<std::string> path;
        for (size_t i = 0; i < m_m.functions.size(); ++i) findCycle(i, state, path);
    }

private:
    [[noreturn]] void fail(const Op& op, const std::string& message) const {
        throw CompileError(m_m.file, op.loc,
                           fmt::format("call @{}: {}", op.attrs.getString("callee"), message));
    }
    void walk(const Function& top, const Function& f) {
        for (const Op& op : f.ops()) {
            for (const Function& body : op.body) walk(top, body);
            if (op.kind == OpKind::Call) checkCall(top, f, op);
        }
    }
    void checkCall(const Function& top, const Function& f, const Op& op) {
        std::string callee = op.attrs.getString("callee");
        auto it = m_index.find(callee);
        if (it == m_index.end()) fail(op, "unknown function");
        const Function& g = m_m.functions[it->second];
        m_calls[m_index.at(top.name)].push_back({it->second, &op});
        if (op.operands.size() != g.args.size())
            fail(op, fmt::format("passes {} argument(s), but @{} takes {}", op.operands.size(),
                                 callee, g.args.size()));
        for (size_t i = 0; i < g.args.size(); ++i)
            if (f.type(op.operands[i]) != g.type(g.args[i]))
                fail(op, fmt::format("argument {} has type {}, but @{} takes {}", i,
                                     formatType(f.type(op.operands[i]), f.level), callee,
                                     formatType(g.type(g.args[i]), g.level)));
        if (op.results.size() != g.results.size())
            fail(op, fmt::format("has {} result(s), but @{} returns {}", op.results.size(), callee,
                                 g.results.size()));
        for (size_t i = 0; i < g.results.size(); ++i)
            if (f.type(op.results[i]) != g.type(g.results[i]))
                fail(op, fmt::format("result {} has type {}, but @{} returns {}", i,
                                     formatType(f.type(op.results[i]), f.level), callee,
                                     formatType(g.type(g.results[i]), g.level)));
    }
    void findCycle(size_t i, std::vector<int>& state, std::vector<std::string>& path) {
        if (state[i] == 2) return;
        path.push_back("@" + m_m.functions[i].name);
        state[i] = 1;
        for (auto [callee, op] : m_calls[i]) {
            if (state[callee] == 1) {
                const std::string back = "@" + m_m.functions[callee].name;
                path.erase(path.begin(), std::find(path.begin(), path.end(), back));
                path.push_back(back);
                fail(*op, fmt::format("recursion: {} (calls are inlined, so a function may not "
                                      "reach itself)",
                                      fmt::join(path, " calls ")));
            }
            findCycle(callee, state, path);
        }
        state[i] = 2;
        path.pop_back();
    }

    const Module& m_m;
    std::unordered_map<std::string, size_t> m_index;
    std::map<size_t, std::vector<std::pair<size_t, const Op*>>> m_calls;
};

} // namespace

void verifyModule(const Module& m) {
    for (const Function& f : m.functions) verifyFunction(f, m.file);
    CallVerifier(m).run();
}

void verifyPtoProgram(const PtoProgram& program, const std::string& file, const TargetInfo& target,
                      const ListingLocs* listing) {
    PtoVerifier(program, file, target, listing).run();
}

std::string loopNameProblem(std::string_view name) {
    if (name == "tiles")
        return "is the compiler's name for the loop over the tiles a vector kernel streams; "
               "choose another";
    if (name.starts_with("matmul@"))
        return "looks like the compiler's name for a matmul's K-step or block loop; choose "
               "another";
    if (name.find_first_of("/,") != std::string_view::npos)
        return "has a '/' or ',' (traces label nested loops 'outer/inner' and iterations "
               "'kv, iter 7'); choose another";
    return {};
}

std::pair<int, int> ptoOperandCountRange(Opcode opcode) {
    return opcodeOperands(opcode);
}

} // namespace pto
