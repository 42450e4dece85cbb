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

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
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
    for (const Op& op : f.ops()) add(op.result);
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

void appendFunction(std::string& out, const Function& f, PrintOptions options) {
    NameTable names(f);
    appendFunctionHeader(out, f, names, options);
    for (const Op& op : f.ops()) {
        out += "  ";
        out += printOp(f, op, names, options);
        out += '\n';
    }
    out += "  return";
    for (size_t i = 0; i < f.results.size(); ++i)
        out += (i ? ", " : " ") + valueRef(names, f, f.results[i]);
    out += "\n}\n";
}

} // namespace

std::string formatType(const Type& type, Level level) {
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

NameTable::NameTable(const Function& f) : m_names(f.valueCount()) {
    std::vector<ValueId> order = valuesInPrintOrder(f);
    // Every name as written (sanitised): numbering skips them, and the first value in print
    // order to carry a name keeps it.
    std::vector<std::string> sanitized(f.valueCount());
    NameIndex used;
    std::vector<bool> owner(f.valueCount(), false);
    for (ValueId v : order) {
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

std::string printOp(const Function& f, const Op& op, const NameTable& names, PrintOptions options) {
    std::string out;
    const OpInfo& info = opInfo(op.kind);
    if (op.result != kNoId) out += valueRef(names, f, op.result) + " = ";
    out += info.mnemonic;
    if (info.cls == OpClass::Directive) {
        appendDirectiveSizes(out, op);
        constexpr std::string_view kSkip[] = {"sizes"};
        out += formatAttrs(op.attrs, kSkip);
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
