// The pass trace of a value: follows the value's ops from stage to stage through their parent
// links and compares their printed IR (numbered names renamed in order of appearance, so a
// renumbering elsewhere is not a change).
#include "cli/TraceValue.h"

#include "compiler/CompileState.h"
#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

namespace pto::cli {
namespace {

constexpr size_t kMaxLines = 40; // per side; the rest is counted

/// `text` with every %<digits> renamed %v0, %v1 … in order of first appearance.
std::string canonical(const std::string& text) {
    std::map<std::string, std::string> names;
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '%' && i + 1 < text.size() && std::isdigit((unsigned char)text[i + 1])) {
            size_t j = i + 1;
            while (j < text.size() && std::isdigit((unsigned char)text[j])) ++j;
            const std::string name = text.substr(i, j - i);
            auto [it, fresh] = names.try_emplace(name, fmt::format("%v{}", names.size()));
            out += it->second;
            i = j;
            continue;
        }
        out += text[i++];
    }
    return out;
}

std::string printOps(const Function& fn, const std::vector<OpId>& ops) {
    const NameTable names(fn);
    std::string out;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (i == kMaxLines) {
            out += fmt::format("… {} more op(s)\n", ops.size() - kMaxLines);
            break;
        }
        // With the result type even where the text form leaves it to inference, so a pass that
        // changes only a type or memory space shows.
        const Op& op = fn.op(ops[i]);
        std::string line = printOp(fn, op, names);
        if (op.result != kNoId && line.find(" : ") == std::string::npos)
            line += " : " + formatType(fn.type(op.result), fn.level);
        out += line + "\n";
    }
    return out;
}

std::string indent(const std::string& text) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        out += "    " + text.substr(start, end - start) + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out.empty() ? "    (no ops)\n" : out;
}

} // namespace

ValueTracer::ValueTracer(std::string value)
    : m_value(value.starts_with('%') ? value.substr(1) : std::move(value)) {}

void ValueTracer::onStage(const StageEvent& e) {
    if (m_stopped) return;
    if (e.kind != StageKind::Tensor && e.kind != StageKind::Tile) {
        m_stopped = true; // Block and later levels: no op-level IR of one value
        return;
    }
    const Function& fn = e.kind == StageKind::Tensor ? e.state.tensor : e.state.tile;
    std::vector<OpId> derived;
    if (!m_started) {
        const NameTable names(fn);
        for (const Op& op : fn.ops())
            if (op.result != kNoId && names[op.result] == m_value) {
                derived.push_back(op.id);
                m_origin = fmt::format("{}, line {}:{}", opName(op.kind), op.loc.line, op.loc.col);
            }
        if (derived.empty())
            throw std::invalid_argument(fmt::format(
                "--trace-value %{}: no op of @{} defines this value (arguments have no passes)",
                m_value, fn.name));
        m_started = true;
    } else {
        for (const Op& op : fn.ops())
            if (op.parent != kNoId &&
                std::binary_search(m_derived.begin(), m_derived.end(), op.parent))
                derived.push_back(op.id);
    }
    std::string text = printOps(fn, derived);
    std::string canon = canonical(text);
    if (e.ordinal > 0) {
        if (canon != m_canonical)
            m_changes.push_back(
                {e.ordinal, std::string(e.pass), std::string(stageKindName(e.kind)), m_text, text});
        else
            ++m_unchanged;
    }
    std::sort(derived.begin(), derived.end());
    m_derived = std::move(derived);
    m_text = std::move(text);
    m_canonical = std::move(canon);
}

std::string ValueTracer::report(const std::string& program) const {
    std::string s =
        fmt::format("trace of %{} ({}) through the passes of {}\n", m_value, m_origin, program);
    s += fmt::format("  changed by {} pass(es); {} pass(es) that left it unchanged hidden "
                     "(Tensor and Tile levels; Block and later passes do not rewrite ops)\n",
                     m_changes.size(), m_unchanged);
    for (const PassChange& c : m_changes) {
        s += fmt::format("== {} ({}, stage {})\n", c.pass, c.level, c.ordinal);
        s += "  before:\n" + indent(c.before) + "  after:\n" + indent(c.after);
    }
    return s;
}

} // namespace pto::cli
