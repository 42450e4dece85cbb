// unroll-loops: copies loop bodies once per iteration (see UnrollLoops.h).
#include "compiler/passes/UnrollLoops.h"

#include "compiler/ir/LoopTail.h"

#include <fmt/format.h>

#include <optional>

namespace pto {
namespace {

// Where the ops being copied come from: the top-level op, the loop names and iterations.
struct Origin {
    OpId parent = kNoId;
    std::string loop;
    std::vector<int64_t> iters;
};

// A function being copied: its value -> the value in the output, or the induction variable's
// number in this iteration.
struct Scope {
    const Function& f;
    std::vector<ValueId> map;
    std::vector<std::optional<int64_t>> iv;

    explicit Scope(const Function& fn) : f(fn), map(fn.valueCount(), kNoId), iv(fn.valueCount()) {}
};

std::string loopName(const Op& op) {
    if (op.attrs.has("name")) return op.attrs.getString("name");
    return fmt::format("for@{}:{}", op.loc.line, op.loc.col);
}

class Unroller {
public:
    Unroller(const Function& src, const std::string& file) : m_file(file) {
        m_out.name = src.name;
        m_out.level = src.level;
        m_out.loc = src.loc;
    }

    Function run(const Function& src) {
        Scope top(src);
        for (ValueId a : src.args) {
            top.map[a] = m_out.addArg(src.type(a), src.value(a).name);
            keepRegion(src.value(a), m_out.value(top.map[a]));
        }
        for (const Op& op : src.ops()) emit(top, op, nullptr);
        for (ValueId r : src.results) {
            const ValueId v = top.map[r];
            m_out.results.push_back(v);
            // A returned loop result keeps the name written in `return` (the output's file
            // name), not the name of what its last iteration yielded or, with no iteration,
            // of its initial value.
            const Op* def = src.producer(r);
            if (def && def->kind == OpKind::For && m_out.producer(v) && !src.value(r).name.empty())
                m_out.value(v).name = src.value(r).name;
        }
        return std::move(m_out);
    }

private:
    // Tile level: the region of a Tensor-level value a tile covers stays with its copy.
    static void keepRegion(const Value& from, Value& to) {
        to.origin = from.origin;
        to.offset = from.offset;
    }

    void emit(Scope& sc, const Op& op, const Origin* origin) {
        if (op.kind == OpKind::For) return emitLoop(sc, op, origin);
        Op copy;
        copy.kind = op.kind;
        copy.attrs = op.attrs;
        copy.loc = op.loc;
        copy.parent = origin ? origin->parent : op.parent;
        copy.operands.reserve(op.operands.size());
        for (ValueId v : op.operands) copy.operands.push_back(sc.map[v]);
        if (hasAffineOffsets(op)) { // view, tload, tstore
            const size_t base = *affineOperandBase(op.kind);
            std::vector<int64_t> ivs;
            for (size_t k = base; k < op.operands.size(); ++k)
                ivs.push_back(*sc.iv[op.operands[k]]);
            copy.attrs.set(affineOffsetAttr(op.kind), affineViewOffsets(op, ivs));
            copy.attrs.erase("iv_strides");
            copy.attrs.erase("clip"); // the tail iteration's sizes are cut already
            copy.operands.resize(base);
        }
        if (origin && !isDirective(op.kind)) {
            copy.attrs.set("loop", origin->loop);
            copy.attrs.set("iter", origin->iters);
        }
        const bool hasResult = op.result != kNoId;
        OpId id = m_out.addOp(std::move(copy), hasResult ? &sc.f.type(op.result) : nullptr,
                              hasResult ? sc.f.value(op.result).name : std::string());
        if (hasResult) {
            sc.map[op.result] = m_out.op(id).result;
            keepRegion(sc.f.value(op.result), m_out.value(m_out.op(id).result));
        }
        for (ValueId r : op.results) { // a call left in a body (inline-calls runs first)
            Value v;
            v.type = sc.f.type(r);
            v.name = sc.f.value(r).name;
            v.def = id;
            ValueId nv = m_out.addValue(std::move(v));
            m_out.op(id).results.push_back(nv);
            sc.map[r] = nv;
        }
    }

    void emitLoop(Scope& sc, const Op& op, const Origin* origin) {
        const Function& body = op.body.front();
        const size_t n = loopIterArgCount(op);
        Origin o;
        o.parent = origin ? origin->parent : op.parent;
        o.loop = origin ? origin->loop + "/" + loopName(op) : loopName(op);
        if (origin) o.iters = origin->iters;
        o.iters.push_back(0);
        std::vector<ValueId> carried;
        for (size_t k = 0; k < n; ++k) carried.push_back(sc.map[op.operands[k]]);
        const int64_t lower = op.attrs.getInt("lower"), step = op.attrs.getInt("step", 1);
        for (int64_t t = 0, trips = loopTripCount(op); t < trips; ++t) {
            std::vector<std::optional<int64_t>> argIvs(body.args.size());
            argIvs[0] = lower + t * step;
            for (size_t c = n; c < op.operands.size(); ++c) argIvs[1 + c] = sc.iv[op.operands[c]];
            std::optional<Function> tail =
                tailIteration(body, argIvs, m_file, fmt::format("iteration {}", t));
            const Function& run = tail ? *tail : body;
            Scope inner(run);
            inner.iv[body.args[0]] = lower + t * step;
            for (size_t k = 0; k < n; ++k) inner.map[body.args[1 + k]] = carried[k];
            for (size_t c = n; c < op.operands.size(); ++c) {
                inner.map[body.args[1 + c]] = sc.map[op.operands[c]];
                inner.iv[body.args[1 + c]] = sc.iv[op.operands[c]];
            }
            o.iters.back() = t;
            for (const Op& bop : run.ops()) emit(inner, bop, &o);
            for (size_t k = 0; k < n; ++k) carried[k] = inner.map[run.results[k]];
        }
        for (size_t k = 0; k < n; ++k) sc.map[op.results[k]] = carried[k];
    }

    Function m_out;
    const std::string& m_file;
};

int64_t saturatingMul(int64_t a, int64_t b) {
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
    int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t opsOf(const Function& f) {
    int64_t n = 0;
    for (const Op& op : f.ops()) {
        int64_t k = 1;
        if (op.kind == OpKind::For && op.body.size() == 1)
            k = saturatingMul(loopTripCount(op), opsOf(op.body.front()));
        n = saturatingAdd(n, k);
    }
    return n;
}

} // namespace

UnrolledCount countUnrolledOps(const Function& f) {
    UnrolledCount c;
    int64_t largest = -1;
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::For || op.body.size() != 1) {
            c.ops = saturatingAdd(c.ops, 1);
            continue;
        }
        int64_t k = saturatingMul(loopTripCount(op), opsOf(op.body.front()));
        c.ops = saturatingAdd(c.ops, k);
        if (k > largest) {
            largest = k;
            c.largestLoop = &op;
        }
    }
    return c;
}

void unrollLoops(Function& f, const std::string& file) {
    bool any = false;
    for (const Op& op : f.ops()) any = any || op.kind == OpKind::For;
    if (!any) return;
    f = Unroller(f, file).run(f);
}

} // namespace pto
