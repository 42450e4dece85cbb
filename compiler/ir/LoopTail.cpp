// The tail iteration of a loop over clipped views: retyping a body (see LoopTail.h).
#include "compiler/ir/LoopTail.h"

#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto {
namespace {

bool isClippedView(const Op& op) {
    return op.kind == OpKind::View && op.operands.size() > 1 && op.attrs.has("clip");
}

// The values of the induction variables a view uses, or nullopt when one is unknown.
std::optional<std::vector<int64_t>> viewIvs(const Op& op,
                                            const std::vector<std::optional<int64_t>>& iv) {
    std::vector<int64_t> out;
    for (size_t k = 1; k < op.operands.size(); ++k) {
        if (!iv[op.operands[k]]) return std::nullopt;
        out.push_back(*iv[op.operands[k]]);
    }
    return out;
}

class TailRetyper {
public:
    TailRetyper(Function f, const std::string& file, const std::string& iteration)
        : m_f(std::move(f)), m_file(file), m_iteration(iteration),
          m_changed(m_f.valueCount(), false) {}

    // Retypes every op after a cut view; returns whether any view was cut.
    bool run(const std::vector<std::optional<int64_t>>& iv) {
        bool cut = false;
        for (Op& op : m_f.ops()) {
            if (isClippedView(op)) {
                cut = cutView(op, iv) || cut;
                continue;
            }
            if (op.result == kNoId && op.results.empty()) continue;
            bool reached = false;
            for (ValueId v : op.operands) reached = reached || m_changed[v];
            if (reached) retype(op);
        }
        if (!cut) return false;
        for (size_t k = 0; k < m_f.results.size(); ++k)
            if (m_changed[m_f.results[k]])
                throw CompileError(
                    m_file, m_f.loc,
                    fmt::format(
                        "loop '{}', {}: a view cut at the tensor's end makes yield value {} "
                        "{}, but the iter_arg is {}: reduce over the partial dimension "
                        "before yielding",
                        m_f.name, m_iteration, k, formatType(m_f.type(m_f.results[k]), m_f.level),
                        formatType(m_original[k], m_f.level)));
        return true;
    }

    void rememberYieldTypes(const Function& body) {
        for (ValueId r : body.results) m_original.push_back(body.type(r));
    }

    Function take() { return std::move(m_f); }

private:
    bool cutView(Op& op, const std::vector<std::optional<int64_t>>& iv) {
        std::optional<std::vector<int64_t>> ivs = viewIvs(op, iv);
        if (!ivs) return false;
        std::vector<int64_t> sizes = clippedViewSizes(m_f, op, *ivs);
        if (sizes == op.attrs.getInts("sizes").value_or(std::vector<int64_t>{})) return false;
        op.attrs.set("sizes", sizes);
        m_f.value(op.result).type.shape = Shape(std::span<const int64_t>(sizes));
        m_changed[op.result] = true;
        return true;
    }

    [[noreturn]] void cannotFollow(const Op& op, std::string_view why) const {
        throw CompileError(m_file, op.loc,
                           fmt::format("loop '{}', {}: {} takes a view cut at the tensor's end, "
                                       "but {}",
                                       m_f.name, m_iteration, opName(op.kind), why));
    }

    void retype(Op& op) {
        if (op.kind == OpKind::For || op.kind == OpKind::Call)
            cannotFollow(op, "a partial tile may not flow into a nested loop or call");
        const Type old = m_f.type(op.result);
        Type declared = old;
        try {
            Type t;
            if (needsDeclaredType(op.kind)) {
                if (op.kind != OpKind::Cast)
                    cannotFollow(op, "its declared type cannot follow the shorter shape");
                declared.shape = m_f.type(op.operands[0]).shape;
                t = inferResultType(m_f, op.kind, op.operands, op.attrs, &declared);
            } else {
                t = inferResultType(m_f, op.kind, op.operands, op.attrs, nullptr);
                if (t.dtype != old.dtype || t.space != old.space) {
                    declared.shape = t.shape;
                    t = inferResultType(m_f, op.kind, op.operands, op.attrs, &declared);
                }
            }
            if (t == old) return;
            m_f.value(op.result).type = t;
            m_changed[op.result] = true;
        } catch (const ShapeError& e) {
            cannotFollow(op, e.what());
        }
    }

    Function m_f;
    const std::string& m_file;
    const std::string& m_iteration;
    std::vector<bool> m_changed;
    std::vector<Type> m_original;
};

} // namespace

std::vector<int64_t> clippedViewSizes(const Function& f, const Op& view,
                                      std::span<const int64_t> ivs) {
    std::vector<int64_t> sizes = view.attrs.getInts("sizes").value_or(std::vector<int64_t>{});
    const std::vector<int64_t> offsets = affineViewOffsets(view, ivs);
    const Shape& in = f.type(view.operands[0]).shape;
    for (size_t d = 0; d < sizes.size() && d < offsets.size() && int(d) < in.rank(); ++d)
        sizes[d] = std::max<int64_t>(1, std::min(sizes[d], in[int(d)] - offsets[d]));
    return sizes;
}

std::optional<Function> tailIteration(const Function& body,
                                      std::span<const std::optional<int64_t>> argIvs,
                                      const std::string& file, const std::string& iteration) {
    bool anyClip = false;
    for (const Op& op : body.ops()) anyClip = anyClip || isClippedView(op);
    if (!anyClip) return std::nullopt;
    std::vector<std::optional<int64_t>> iv(body.valueCount());
    for (size_t i = 0; i < body.args.size() && i < argIvs.size(); ++i) iv[body.args[i]] = argIvs[i];
    TailRetyper r(body, file, iteration);
    r.rememberYieldTypes(body);
    if (!r.run(iv)) return std::nullopt;
    return r.take();
}

size_t indexArgCount(const Function& f) {
    return size_t(
        std::count_if(f.args.begin(), f.args.end(), [&](ValueId a) { return f.type(a).index; }));
}

} // namespace pto
