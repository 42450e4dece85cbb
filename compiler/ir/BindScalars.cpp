// Binding index arguments: parsing `--bind` and specialising a function (see BindScalars.h).
#include "compiler/ir/BindScalars.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace pto {
namespace {

// The first loop (depth first) whose upper bound is argument `name`, or nullptr.
const Op* loopBoundBy(const Function& f, std::string_view name) {
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::For) continue;
        if (op.attrs.has("upper_arg") && op.attrs.getString("upper_arg") == name) return &op;
        for (const Function& body : op.body)
            if (const Op* inner = loopBoundBy(body, name)) return inner;
    }
    return nullptr;
}

void setBounds(Function& f, std::string_view name, int64_t value) {
    for (Op& op : f.ops()) {
        if (op.kind != OpKind::For) continue;
        if (op.attrs.has("upper_arg") && op.attrs.getString("upper_arg") == name) {
            op.attrs.erase("upper_arg");
            op.attrs.set("upper", value);
        }
        for (Function& body : op.body) setBounds(body, name, value);
    }
}

std::string describeLoop(const Op* loop) {
    if (!loop) return "it bounds no loop";
    std::string name = loop->attrs.has("name")
                           ? fmt::format("\"{}\"", loop->attrs.getString("name"))
                           : std::string("for");
    return fmt::format("the trip count of loop {} at {}:{}", name, loop->loc.line, loop->loc.col);
}

} // namespace

ScalarBind parseScalarBind(std::string_view text) {
    const size_t eq = text.find('=');
    std::string_view name = text.substr(0, eq);
    if (name.starts_with('%')) name.remove_prefix(1);
    if (eq == std::string_view::npos || name.empty())
        throw CompileError(
            "", {}, fmt::format("--bind {}: expected NAME=INTEGER, such as --bind t=37", text));
    std::string_view digits = text.substr(eq + 1);
    ScalarBind b;
    b.name = std::string(name);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), b.value);
    if (ec == std::errc::result_out_of_range && end == digits.data() + digits.size())
        throw CompileError("", {},
                           fmt::format("--bind {}: {} is out of range (a trip count is a 64-bit "
                                       "integer)",
                                       text, digits));
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
        throw CompileError(
            "", {},
            fmt::format("--bind {}: '{}' is not an integer (expected NAME=INTEGER)", text, digits));
    return b;
}

void bindScalars(Function& f, std::span<const ScalarBind> binds, const std::string& file) {
    std::vector<std::string> indexNames;
    for (ValueId a : f.args)
        if (f.type(a).index) indexNames.push_back(f.value(a).name);
    for (size_t i = 0; i < binds.size(); ++i) {
        for (size_t j = 0; j < i; ++j)
            if (binds[j].name == binds[i].name)
                throw CompileError(file, f.loc,
                                   fmt::format("--bind {} is given twice", binds[i].name));
        if (std::find(indexNames.begin(), indexNames.end(), binds[i].name) == indexNames.end())
            throw CompileError(
                file, f.loc,
                indexNames.empty()
                    ? fmt::format("--bind {}={}: @{} has no index argument to bind", binds[i].name,
                                  binds[i].value, f.name)
                    : fmt::format("--bind {}={}: @{} has no index argument %{} (its index "
                                  "arguments: %{})",
                                  binds[i].name, binds[i].value, f.name, binds[i].name,
                                  fmt::join(indexNames, ", %")));
    }
    for (const std::string& name : indexNames) {
        const ScalarBind* b = nullptr;
        for (const ScalarBind& c : binds)
            if (c.name == name) b = &c;
        if (!b)
            throw CompileError(file, f.loc,
                               fmt::format("@{}: index argument %{} is not bound ({}): run with "
                                           "--bind {}=N",
                                           f.name, name, describeLoop(loopBoundBy(f, name)), name));
        setBounds(f, name, b->value);
    }
    if (indexNames.empty()) return;
    std::vector<ValueId> args;
    for (ValueId a : f.args)
        if (!f.type(a).index) args.push_back(a);
    f.args = std::move(args);
    f.renumber();
}

} // namespace pto
