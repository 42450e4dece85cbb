// inline-calls: copies callee bodies in place of calls (see InlineCalls.h).
#include "compiler/passes/InlineCalls.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace pto {
namespace {

constexpr int kMaxCallDepth = 64;

class Inliner {
public:
    Inliner(std::span<const Function> functions, const std::string& file)
        : m_functions(functions), m_file(file) {}

    // A copy of `src` with its calls (and those of its loop bodies) replaced.
    Function run(const Function& src) {
        Function out;
        out.name = src.name;
        out.level = src.level;
        out.loc = src.loc;
        std::vector<ValueId> map(src.valueCount(), kNoId);
        for (ValueId a : src.args) map[a] = out.addArg(src.type(a), src.value(a).name);
        emitOps(out, src, map, std::nullopt, 0);
        for (ValueId r : src.results) out.results.push_back(map[r]);
        return out;
    }

private:
    const Function& callee(const Op& call, int depth) const {
        std::string name = call.attrs.getString("callee");
        if (depth >= kMaxCallDepth)
            throw CompileError(m_file, call.loc,
                               fmt::format("call @{}: calls nest deeper than {} (recursion?)", name,
                                           kMaxCallDepth));
        for (const Function& g : m_functions)
            if (g.name == name) return g;
        throw CompileError(m_file, call.loc, fmt::format("call of unknown function @{}", name));
    }

    void emitOps(Function& out, const Function& src, std::vector<ValueId>& map,
                 std::optional<OpId> parent, int depth) {
        for (const Op& op : src.ops()) {
            if (op.kind == OpKind::Call) {
                const Function& g = callee(op, depth);
                std::vector<ValueId> inner(g.valueCount(), kNoId);
                for (size_t i = 0; i < g.args.size() && i < op.operands.size(); ++i)
                    inner[g.args[i]] = map[op.operands[i]];
                const size_t firstCopied = out.valueCount();
                emitOps(out, g, inner, parent.value_or(op.parent), depth + 1);
                for (size_t k = 0; k < op.results.size() && k < g.results.size(); ++k) {
                    const ValueId v = inner[g.results[k]];
                    map[op.results[k]] = v;
                    // Outputs are named after the returned values: a value the callee computed
                    // takes the name the caller gives its result (the callee's own name could
                    // be one the caller uses for another value). One the caller passed in
                    // keeps its name.
                    const std::string& name = src.value(op.results[k]).name;
                    if (v != kNoId && v >= firstCopied && !name.empty()) out.value(v).name = name;
                }
                continue;
            }
            Op copy;
            copy.kind = op.kind;
            copy.attrs = op.attrs;
            copy.loc = op.loc;
            copy.parent = parent.value_or(op.parent);
            for (ValueId v : op.operands) copy.operands.push_back(map[v]);
            for (const Function& body : op.body) copy.body.push_back(run(body));
            const bool hasResult = op.result != kNoId;
            OpId id = out.addOp(std::move(copy), hasResult ? &src.type(op.result) : nullptr,
                                hasResult ? src.value(op.result).name : std::string());
            if (hasResult) map[op.result] = out.op(id).result;
            for (ValueId r : op.results) {
                Value v;
                v.type = src.type(r);
                v.name = src.value(r).name;
                v.def = id;
                ValueId nv = out.addValue(std::move(v));
                out.op(id).results.push_back(nv);
                map[r] = nv;
            }
        }
    }

    std::span<const Function> m_functions;
    const std::string& m_file;
};

bool hasCalls(const Function& f) {
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Call) return true;
        for (const Function& body : op.body)
            if (hasCalls(body)) return true;
    }
    return false;
}

// Outputs are named as `return` names them: a returned value that came through a call
// returning a value of the caller (an identity helper, `%p = call @id(%y)`) takes the name
// `return` gives it, unless it is an argument (inputs keep theirs: out<i>) or returned twice.
void nameReturnedValues(Function& out, const Function& src) {
    for (size_t i = 0; i < out.results.size() && i < src.results.size(); ++i) {
        const ValueId v = out.results[i];
        const std::string& name = src.value(src.results[i]).name;
        if (name.empty() || out.value(v).name == name ||
            std::find(out.args.begin(), out.args.end(), v) != out.args.end() ||
            std::count(out.results.begin(), out.results.end(), v) > 1)
            continue;
        out.value(v).name = name;
    }
}

} // namespace

void inlineCalls(Function& f, std::span<const Function> functions, const std::string& file) {
    if (!hasCalls(f)) return;
    Function inlined = Inliner(functions, file).run(f);
    nameReturnedValues(inlined, f);
    f = std::move(inlined);
}

} // namespace pto
