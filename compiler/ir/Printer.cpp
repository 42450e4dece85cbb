// The canonical printer of Tensor- and Tile-level functions.
#include "compiler/ir/Printer.h"

#include "compiler/ir/Lexer.h"
#include "compiler/ir/ShapeInference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

namespace pto {
namespace {

// '#' belongs to the names of grouped results (%r#0 of `%r:2 = for ...`).
bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '#';
}

std::string sanitizeName(std::string_view name) {
    std::string s(name);
    for (char& c : s)
        if (!isNameChar(c)) c = '_';
    return s;
}

// Values in the order the printer meets them: arguments, then op results in program order,
// then any value defined by neither (never in valid IR, but printed names must exist).
std::vector<ValueId> valuesInPrintOrder(const Function& f) {
    std::vector<ValueId> order;
    order.reserve(f.valueCount());
    std::vector<bool> seen(f.valueCount(), false);
    auto add = [&](ValueId v) {
        if (v < f.valueCount() && !seen[v]) {
            seen[v] = true;
            order.push_back(v);
        }
    };
    for (ValueId a : f.args) add(a);
    for (const Op& op : f.ops()) {
        add(op.result);
        for (ValueId r : op.results) add(r);
    }
    for (ValueId v = 0; v < f.valueCount(); ++v) add(v);
    return order;
}

void appendLoc(std::string& out, SourceLoc loc) {
    if (loc.known())
        fmt::format_to(std::back_inserter(out), " loc({}:{})", loc.line, loc.col);
    else
        out += " loc(unknown)";
}

void appendIds(std::string& out, const Function& f, const Op& op) {
    fmt::format_to(std::back_inserter(out), " #{}", op.id);
    if (op.parent != kNoId) fmt::format_to(std::back_inserter(out), "<-#{}", op.parent);
    if (op.result == kNoId || op.result >= f.valueCount()) return;
    const Value& v = f.value(op.result);
    if (v.origin == kNoId) return;
    fmt::format_to(std::back_inserter(out), " origin({}, [{}])", v.origin,
                   fmt::join(v.offset.dims(), ", "));
}

void appendDirectiveSizes(std::string& out, const Op& op) {
    std::vector<int64_t> sizes = op.attrs.getInts("sizes").value_or(std::vector<int64_t>{});
    if (op.kind == OpKind::VecTile || sizes.size() % 2 != 0) {
        fmt::format_to(std::back_inserter(out), " [{}]", fmt::join(sizes, ", "));
        return;
    }
    for (size_t i = 0; i < sizes.size(); i += 2)
        fmt::format_to(std::back_inserter(out), "{} [{}, {}]", i ? "," : "", sizes[i],
                       sizes[i + 1]);
}

std::string valueRef(const NameTable& names, const Function& f, ValueId v) {
    if (v >= f.valueCount()) return fmt::format("%<invalid {}>", v);
    return fmt::format("%{}", names[v]);
}

void appendFunctionHeader(std::string& out, const Function& f, const NameTable& names,
                          PrintOptions options) {
    std::string name = sanitizeName(f.name);
    fmt::format_to(std::back_inserter(out), "func @{}(", name.empty() ? "_" : name);
    for (size_t i = 0; i < f.args.size(); ++i)
        fmt::format_to(std::back_inserter(out), "{}%{}: {}", i ? ", " : "", names[f.args[i]],
                       formatType(f.type(f.args[i]), f.level));
    out += ")";
    if (f.results.size() == 1) {
        out += " -> " + formatType(f.type(f.results[0]), f.level);
    } else if (f.results.size() > 1) {
        out += " -> (";
        for (size_t i = 0; i < f.results.size(); ++i)
            out += (i ? ", " : "") + formatType(f.type(f.results[i]), f.level);
        out += ")";
    }
    if (options.locs) appendLoc(out, f.loc);
    out += " {\n";
}

void appendOps(std::string& out, const Function& f, const NameTable& names, PrintOptions options,
               int depth);

} // namespace

// The names inside a loop's body: captures print as the outer values they stand for.
NameTable loopBodyNames(const Function& f, const Op& op, const NameTable& names) {
    const Function& body = op.body.front();
    std::vector<std::pair<ValueId, std::string>> fixed;
    for (size_t c = loopIterArgCount(op); c < op.operands.size() && 1 + c < body.args.size(); ++c)
        if (op.operands[c] < f.valueCount())
            fixed.emplace_back(body.args[1 + c], std::string(names[op.operands[c]]));
    return NameTable(body, fixed, &names);
}

namespace {

// A loop's body: its ops one level deeper, then `yield` (left out when nothing is carried).
void appendLoopBody(std::string& out, const Function& f, const Op& op, const NameTable& names,
                    PrintOptions options, int depth) {
    const Function& body = op.body.front();
    NameTable inner = loopBodyNames(f, op, names);
    appendOps(out, body, inner, options, depth + 1);
    std::string indent(size_t(2 * (depth + 1)), ' ');
    if (!body.results.empty()) {
        out += indent + "yield";
        for (size_t i = 0; i < body.results.size(); ++i)
            out += (i ? ", " : " ") + valueRef(inner, body, body.results[i]);
        out += '\n';
    }
    out += std::string(size_t(2 * depth), ' ') + "}";
}

void appendOps(std::string& out, const Function& f, const NameTable& names, PrintOptions options,
               int depth) {
    for (const Op& op : f.ops()) {
        out += std::string(size_t(2 * depth), ' ');
        out += printOp(f, op, names, options);
        if (op.kind == OpKind::For && op.body.size() == 1) {
            out += " {\n";
            appendLoopBody(out, f, op, names, options, depth);
        }
        out += '\n';
    }
}

void appendFunction(std::string& out, const Function& f, PrintOptions options) {
    NameTable names(f);
    appendFunctionHeader(out, f, names, options);
    appendOps(out, f, names, options, 1);
    out += "  return";
    for (size_t i = 0; i < f.results.size(); ++i)
        out += (i ? ", " : " ") + valueRef(names, f, f.results[i]);
    out += "\n}\n";
}

} // namespace

std::string formatType(const Type& type, Level level) {
    if (type.index) return "index";
    std::string body;
    for (int64_t d : type.shape.dims()) body += fmt::format("{}x", d);
    body += dtypeName(type.dtype);
    bool tensor =
        type.space == MemSpace::GM || (type.space == MemSpace::None && level == Level::Tensor);
    if (tensor) return fmt::format("tensor<{}>", body);
    if (type.space == MemSpace::None) return fmt::format("tile<{}>", body);
    return fmt::format("tile<{}, {}>", body, memSpaceName(type.space));
}

std::string formatDouble(double value) {
    if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    std::string s = fmt::format("{}", value);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string formatAttrValue(const AttrValue& value) {
    struct Visitor {
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return formatDouble(d); }
        std::string operator()(const std::string& s) const {
            std::string q = "\"";
            for (char c : s) {
                if (c == '"' || c == '\\') q += '\\';
                if (c == '\n')
                    q += "\\n";
                else if (c == '\t')
                    q += "\\t";
                else
                    q += c;
            }
            return q + "\"";
        }
        std::string operator()(const std::vector<int64_t>& l) const {
            return fmt::format("[{}]", fmt::join(l, ", "));
        }
    };
    return std::visit(Visitor{}, value);
}

std::string formatAttrs(const Attrs& attrs, std::span<const std::string_view> skip) {
    std::string out;
    for (const Attr& a : attrs.items()) {
        if (std::find(skip.begin(), skip.end(), a.name) != skip.end()) continue;
        out += out.empty() ? " {" : ", ";
        const bool* unit = std::get_if<bool>(&a.value);
        if (unit && *unit)
            out += a.name;
        else
            out += a.name + " = " + formatAttrValue(a.value);
    }
    if (!out.empty()) out += "}";
    return out;
}

NameTable::NameTable(const Function& f) : NameTable(f, {}, nullptr) {}

NameTable::NameTable(const Function& f, const std::vector<std::pair<ValueId, std::string>>& fixed,
                     const NameTable* outer)
    : m_names(f.valueCount()) {
    std::vector<ValueId> order = valuesInPrintOrder(f);
    // Every name as written (sanitised): numbering skips them, and the first value in print
    // order to carry a name keeps it. A loop body also skips every name of the enclosing
    // scopes (they are visible inside it), and its captures print as the outer values.
    std::vector<std::string> sanitized(f.valueCount());
    NameIndex used;
    std::vector<bool> owner(f.valueCount(), false);
    if (outer) {
        m_reserved = outer->m_reserved;
        m_reserved.insert(m_reserved.end(), outer->m_names.begin(), outer->m_names.end());
    }
    for (const std::string& name : m_reserved) used.insert(name, kNoId - 1);
    for (const auto& [v, name] : fixed) {
        if (v >= f.valueCount()) continue;
        m_names[v] = name;
        owner[v] = true;
        used.insert(m_names[v], v);
    }
    for (ValueId v : order) {
        if (owner[v]) continue;
        const std::string& name = f.value(v).name;
        if (name.empty()) continue;
        std::string_view key = name;
        if (!std::all_of(name.begin(), name.end(), isNameChar)) {
            sanitized[v] = sanitizeName(name);
            key = sanitized[v];
        }
        owner[v] = used.insert(key, v).second;
        if (owner[v]) m_names[v] = std::string(key);
    }
    uint64_t nextNumber = 0;
    std::unordered_map<std::string, uint64_t> nextSuffix;
    for (ValueId v : order) {
        if (owner[v]) continue;
        const std::string& written = sanitized[v].empty() ? f.value(v).name : sanitized[v];
        std::string name;
        if (written.empty()) {
            do name = std::to_string(nextNumber++);
            while (used.contains(name));
        } else {
            uint64_t& n = nextSuffix[written];
            do name = fmt::format("{}_{}", written, ++n);
            while (used.contains(name));
        }
        m_names[v] = std::move(name);
        used.insert(m_names[v], v);
    }
}

namespace {

// "%r:2 = " for the grouped results %r#0, %r#1; "%a, %b = " otherwise; "" for none.
std::string resultsPrefix(const Function& f, const Op& op, const NameTable& names) {
    if (op.results.empty()) return {};
    std::vector<std::string> refs;
    for (ValueId r : op.results) refs.push_back(valueRef(names, f, r));
    std::string base = refs[0].substr(0, refs[0].rfind('#'));
    bool grouped = refs[0].find('#') != std::string::npos;
    for (size_t i = 0; grouped && i < refs.size(); ++i)
        grouped = refs[i] == fmt::format("{}#{}", base, i);
    if (grouped) return fmt::format("{}:{} = ", base, refs.size());
    return fmt::format("{} = ", fmt::join(refs, ", "));
}

// One induction-variable offset: "%i * 256 + 64", "%i", "64".
std::string affineOffset(const Function& f, const Op& op, const NameTable& names, size_t base,
                         size_t dim, int64_t constant, const std::vector<int64_t>& strides,
                         size_t rank) {
    std::string out;
    for (size_t k = base; k < op.operands.size(); ++k) {
        size_t at = (k - base) * rank + dim;
        int64_t c = at < strides.size() ? strides[at] : 0;
        if (c == 0) continue;
        if (!out.empty()) out += " + ";
        out += valueRef(names, f, op.operands[k]);
        if (c != 1) out += fmt::format(" * {}", c);
    }
    if (out.empty()) return std::to_string(constant);
    if (constant > 0) out += fmt::format(" + {}", constant);
    if (constant < 0) out += fmt::format(" - {}", -constant);
    return out;
}

// A view whose offsets use induction variables: "view %k {offsets = [%j * 256, 0], …}"; the
// same for tload/tstore and their `offset`.
std::string printAffineView(const Function& f, const Op& op, const NameTable& names) {
    const size_t base = affineOperandBase(op.kind).value_or(1);
    const std::string_view key = affineOffsetAttr(op.kind);
    std::string out;
    for (size_t i = 0; i < base && i < op.operands.size(); ++i)
        out += (i ? ", " : " ") + valueRef(names, f, op.operands[i]);
    std::vector<int64_t> offsets = op.attrs.getInts(key).value_or(std::vector<int64_t>{});
    std::vector<int64_t> strides = op.attrs.getInts("iv_strides").value_or(std::vector<int64_t>{});
    std::string attrs;
    for (const Attr& a : op.attrs.items()) {
        if (a.name == "iv_strides") continue;
        attrs += attrs.empty() ? " {" : ", ";
        if (a.name != key) {
            Attrs one;
            one.set(a.name, a.value);
            std::string text = formatAttrs(one);
            attrs += text.substr(2, text.size() - 3);
            continue;
        }
        std::vector<std::string> parts;
        for (size_t d = 0; d < offsets.size(); ++d)
            parts.push_back(
                affineOffset(f, op, names, base, d, offsets[d], strides, offsets.size()));
        attrs += fmt::format("{} = [{}]", key, fmt::join(parts, ", "));
    }
    if (!attrs.empty()) attrs += "}";
    return out + attrs;
}

// `for "name" %i = 0 to 16 step 1 iter_args(%m = %m0)` (the body follows in appendOps) and
// `call @f(%a, %b)`.
std::string printControl(const Function& f, const Op& op, const NameTable& names) {
    std::string out = resultsPrefix(f, op, names);
    if (op.kind == OpKind::Call) {
        std::vector<std::string> args;
        for (ValueId v : op.operands) args.push_back(valueRef(names, f, v));
        return out + fmt::format("call @{}({})", sanitizeName(op.attrs.getString("callee")),
                                 fmt::join(args, ", "));
    }
    out += "for";
    if (op.attrs.has("name")) out += " " + formatAttrValue(op.attrs.getString("name"));
    const Function* body = op.body.empty() ? nullptr : &op.body.front();
    std::string iv = "%i";
    std::vector<std::string> iterNames;
    if (body && !body->args.empty()) {
        NameTable inner = loopBodyNames(f, op, names);
        iv = "%" + std::string(inner[body->args[0]]);
        for (size_t k = 0; k < loopIterArgCount(op) && 1 + k < body->args.size(); ++k)
            iterNames.push_back("%" + std::string(inner[body->args[1 + k]]));
    }
    std::string upper = op.attrs.has("upper_arg")
                            ? "%" + sanitizeName(op.attrs.getString("upper_arg"))
                            : std::to_string(op.attrs.getInt("upper"));
    out += fmt::format(" {} = {} to {} step {}", iv, op.attrs.getInt("lower"), upper,
                       op.attrs.getInt("step", 1));
    if (loopIterArgCount(op) == 0) return out;
    std::vector<std::string> iters;
    for (size_t k = 0; k < loopIterArgCount(op) && k < op.operands.size(); ++k)
        iters.push_back(fmt::format("{} = {}", k < iterNames.size() ? iterNames[k] : "%?",
                                    valueRef(names, f, op.operands[k])));
    return out + fmt::format(" iter_args({})", fmt::join(iters, ", "));
}

} // namespace

std::string printOp(const Function& f, const Op& op, const NameTable& names, PrintOptions options) {
    std::string out;
    const OpInfo& info = opInfo(op.kind);
    if (info.cls == OpClass::Control) {
        out = printControl(f, op, names);
        if (options.locs) appendLoc(out, op.loc);
        if (options.ids) appendIds(out, f, op);
        return out;
    }
    if (op.result != kNoId) out += valueRef(names, f, op.result) + " = ";
    out += info.mnemonic;
    if (info.cls == OpClass::Directive) {
        appendDirectiveSizes(out, op);
        constexpr std::string_view kSkip[] = {"sizes"};
        out += formatAttrs(op.attrs, kSkip);
    } else if (hasAffineOffsets(op)) {
        out += printAffineView(f, op, names);
    } else {
        for (size_t i = 0; i < op.operands.size(); ++i)
            out += (i ? ", " : " ") + valueRef(names, f, op.operands[i]);
        constexpr std::string_view kSkipScalar[] = {"scalar"};
        bool scalarOperand = info.cls == OpClass::Scalar && op.attrs.has("scalar");
        if (scalarOperand) out += ", " + formatDouble(op.attrs.getFloat("scalar"));
        out += formatAttrs(op.attrs, scalarOperand ? std::span<const std::string_view>(kSkipScalar)
                                                   : std::span<const std::string_view>());
    }
    if (op.result != kNoId && op.result < f.valueCount() && !declaredTypeIsDefault(f, op))
        out += " : " + formatType(f.type(op.result), f.level);
    if (options.locs) appendLoc(out, op.loc);
    if (options.ids) appendIds(out, f, op);
    return out;
}

std::string printFunction(const Function& f, PrintOptions options) {
    std::string out;
    appendFunction(out, f, options);
    return out;
}

std::string printModule(const Module& m, PrintOptions options) {
    std::string out;
    for (size_t i = 0; i < m.functions.size(); ++i) {
        if (i) out += '\n';
        appendFunction(out, m.functions[i], options);
    }
    return out;
}

} // namespace pto
