// Applies a `pto tune` candidate to the program text and the compile/arch options.
#include "driver/TuneApply.h"

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "driver/TuneSpace.h"

#include <fmt/format.h>

#include <sstream>

namespace pto {
namespace {

using nlohmann::json;

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

Function* findEntry(Module& m, const std::string& entry) {
    if (entry.empty()) return m.entry();
    for (Function& f : m.functions)
        if (f.name == entry) return &f;
    throw CompileError(m.file, {}, fmt::format("no function named @{}", entry));
}

// The op whose result is named `name` (without '%'), in `f` or a loop body inside it.
Op* findOpByResult(Function& f, const std::string& name) {
    for (Op& op : f.ops()) {
        if (op.result != kNoId && f.value(op.result).name == name) return &op;
        for (Function& body : op.body)
            if (Op* found = findOpByResult(body, name)) return found;
    }
    return nullptr;
}

std::vector<int64_t> flatSizes(const json& tile) {
    std::vector<int64_t> out;
    for (const json& v : tile) {
        if (v.is_array())
            for (const json& s : v) out.push_back(s.get<int64_t>());
        else
            out.push_back(v.get<int64_t>());
    }
    return out;
}

// "cube_tile [64, 64], [64, 256], [128, 128]" / "vec_tile [16, 1024]".
std::string directiveLine(const std::string& kind, const json& tile) {
    if (kind == "vec_tile") return fmt::format("vec_tile [{}]", fmt::join(flatSizes(tile), ", "));
    std::vector<std::string> pairs;
    for (const json& p : tile)
        pairs.push_back(fmt::format("[{}, {}]", p[0].get<int64_t>(), p[1].get<int64_t>()));
    return fmt::format("cube_tile {}", fmt::join(pairs, ", "));
}

// The printed entry with the directives of `kind` replaced by `tile` at the top.
std::string replaceDirectives(const std::string& printed, const std::string& kind,
                              const json& tile) {
    std::istringstream in(printed);
    std::string line, out;
    bool headerDone = false;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(' ');
        const std::string_view body =
            first == std::string::npos ? std::string_view() : std::string_view(line).substr(first);
        if (headerDone && (startsWith(body, kind + " ") || startsWith(body, kind + "["))) continue;
        out += line + "\n";
        if (!headerDone && !line.empty() && line.back() == '{') {
            headerDone = true;
            if (tile.is_array()) out += "  " + directiveLine(kind, tile) + "\n";
        }
    }
    return out;
}

} // namespace

std::string applyTileSettings(const std::string& source, const std::string& file,
                              const std::string& entry, const json& config) {
    bool touchesTiles = false;
    for (const auto& [key, value] : config.items())
        touchesTiles |= startsWith(key, "cube_tile") || startsWith(key, "vec_tile");
    if (!touchesTiles) return source;

    Module module = parseModule(source, file);
    Function* fn = findEntry(module, entry);
    for (const auto& [key, value] : config.items()) {
        const auto dot = key.find('.');
        if (dot == std::string::npos ||
            !(startsWith(key, "cube_tile") || startsWith(key, "vec_tile")))
            continue;
        const std::string attr = key.substr(0, dot);
        Op* op = findOpByResult(*fn, key.substr(dot + 2));
        if (!op)
            throw TuneSpaceError(fmt::format("'{}': @{} has no op whose result is {}", key,
                                             fn->name, key.substr(dot + 1)));
        if (value == "default")
            op->attrs.erase(attr);
        else
            op->attrs.set(attr, flatSizes(value));
    }
    std::string text;
    for (const Function& f : module.functions) {
        std::string printed = printFunction(f);
        if (&f == fn)
            for (const char* kind : {"cube_tile", "vec_tile"})
                if (config.contains(kind)) printed = replaceDirectives(printed, kind, config[kind]);
        text += (text.empty() ? "" : "\n") + printed;
    }
    return text;
}

void applyRunSettings(const json& config, CompileOptions& compile,
                      std::vector<std::string>& archOverrides) {
    if (config.contains("tiles_per_task"))
        compile.tilesPerTask = config["tiles_per_task"].get<int>();
    if (config.contains("double_buffer"))
        compile.doubleBuffer = config["double_buffer"].get<bool>();
    if (config.contains("arch"))
        for (const auto& [key, value] : config["arch"].items())
            archOverrides.push_back(key + "=" + value.get<std::string>());
}

void checkOpSettings(const std::string& source, const std::string& file, const std::string& entry,
                     const std::vector<std::string>& settings) {
    bool any = false;
    for (const std::string& s : settings) any |= s.find(".%") != std::string::npos;
    if (!any) return;
    Module module = parseModule(source, file);
    Function* fn = findEntry(module, entry);
    for (const std::string& s : settings) {
        const auto dot = s.find(".%");
        if (dot == std::string::npos || startsWith(s, "arch.")) continue;
        if (!findOpByResult(*fn, s.substr(dot + 2)))
            throw TuneSpaceError(fmt::format("'{}': @{} has no op whose result is {}", s, fn->name,
                                             s.substr(dot + 1)));
    }
}

} // namespace pto
