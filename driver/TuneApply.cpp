// Applies a `pto tune` candidate to the program text and the compile/arch options.
#include "driver/TuneApply.h"

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"
#include "driver/ProgramTextEdit.h"
#include "driver/TuneSpace.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
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

bool isOpSetting(const std::string& setting) {
    return !startsWith(setting, "arch.") && setting.find(".%") != std::string::npos;
}

bool takesCubeTile(OpKind kind) {
    const auto names = knownAttrNames(kind);
    return std::find(names.begin(), names.end(), "cube_tile") != names.end();
}

// Whether `f` (loop bodies included) has a matmul, or a call (whose callee may have one).
bool hasCubeOp(const Function& f) {
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Call || takesCubeTile(op.kind)) return true;
        for (const Function& body : op.body)
            if (hasCubeOp(body)) return true;
    }
    return false;
}

// The entry's directives of `kind`, loop bodies included, in program order.
void collectDirectives(const Function& f, OpKind kind, std::vector<const Op*>& out) {
    for (const Op& op : f.ops()) {
        if (op.kind == kind) out.push_back(&op);
        for (const Function& body : op.body) collectDirectives(body, kind, out);
    }
}

// Whether `op` comes before every op of `f` that is no directive (then a directive there
// applies to the whole entry, as one at its top does).
bool leadsFunction(const Function& f, const Op* op) {
    for (const Op& o : f.ops()) {
        if (&o == op) return true;
        if (!isDirective(o.kind)) return false;
    }
    return false;
}

bool isDirectiveLine(const std::string& line, const std::string& kind) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) return false;
    const std::string_view body = std::string_view(line).substr(first);
    return startsWith(body, kind + " ") || startsWith(body, kind + "[");
}

// The printed entry with the directives of `kind` replaced by `tile`, as the source edits do:
// in place of the first one (`inPlace`), else after the header and the `inserted` directive
// lines put there before; `default` (no array) removes them.
std::string placeDirectives(const std::string& printed, const std::string& kind, const json& tile,
                            bool inPlace, int inserted) {
    std::istringstream in(printed);
    std::string line, out;
    bool headerDone = false, placed = !tile.is_array();
    int pending = -1; // lines to copy before inserting after the header
    while (std::getline(in, line)) {
        if (headerDone && isDirectiveLine(line, kind)) {
            if (inPlace && !placed) out += "  " + directiveLine(kind, tile) + "\n";
            placed = true;
            continue;
        }
        if (pending == 0 && !placed) {
            out += "  " + directiveLine(kind, tile) + "\n";
            placed = true;
        }
        if (pending > 0) --pending;
        out += line + "\n";
        if (!headerDone && !line.empty() && line.back() == '{') {
            headerDone = true;
            if (!inPlace) pending = inserted;
        }
    }
    if (!placed && headerDone) out += "  " + directiveLine(kind, tile) + "\n";
    return out;
}

bool touchesTiles(const json& config) {
    for (const auto& [key, value] : config.items())
        if (startsWith(key, "cube_tile") || startsWith(key, "vec_tile")) return true;
    return false;
}

// The program `module` prints as (functions separated by a blank line), `kind`'s directives
// of the entry placed by `place`.
std::string printProgram(const Module& module, const Function* entry,
                         const std::function<std::string(std::string)>& place) {
    std::string text;
    for (const Function& f : module.functions) {
        std::string printed = printFunction(f);
        if (&f == entry) printed = place(std::move(printed));
        text += (text.empty() ? "" : "\n") + printed;
    }
    return text;
}

// A program text as the parser sees it: the module printed canonically, or the parse error
// without its location (a candidate may not compile: its edited text fails as the module
// edited in memory does, only at the user's line).
std::string parsedForm(const std::string& text, const std::string& file) {
    try {
        return printModule(parseModule(text, file));
    } catch (const CompileError& e) {
        return "error: " + e.message();
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

// Whether two program texts are the same program (comments and layout aside).
bool sameProgram(const std::string& a, const std::string& b, const std::string& file) {
    return parsedForm(a, file) == parsedForm(b, file);
}

// A candidate's tile settings applied twice: to the parsed module (its canonical print is the
// reference, and the fallback) and as edits of the source text (what the user gets).
class TileEditor {
public:
    TileEditor(const std::string& source, const std::string& file, const std::string& entry)
        : m_source(source), m_file(file), m_module(parseModule(source, file)),
          m_entry(findEntry(m_module, entry)), m_lines(source) {}

    void setOpTile(const std::string& key, const json& value);
    void setDirective(const std::string& kind, const json& tile);
    std::string result() const;

private:
    void edit(std::optional<TextEdit> e) {
        if (e)
            m_edits.push_back(std::move(*e));
        else
            m_editable = false;
    }
    const std::string& m_source;
    std::string m_file;
    Module m_module;
    Function* m_entry;
    SourceLines m_lines;
    std::vector<TextEdit> m_edits;
    bool m_editable = true;
    std::vector<std::function<std::string(std::string)>> m_placements;
    int m_inserted = 0; // directives inserted after the entry's '{'
};

void TileEditor::setOpTile(const std::string& key, const json& value) {
    const auto dot = key.find('.');
    const std::string attr = key.substr(0, dot);
    Op* op = findOpByResult(*m_entry, key.substr(dot + 2));
    if (!op)
        throw TuneSpaceError(fmt::format("'{}': @{} has no op whose result is {}", key,
                                         m_entry->name, key.substr(dot + 1)));
    const bool remove = value == "default";
    if (remove)
        op->attrs.erase(attr);
    else
        op->attrs.set(attr, flatSizes(value));
    edit(attributeEdit(m_source, m_lines, *op, attr,
                       remove ? "" : formatAttrValue(AttrValue(flatSizes(value)))));
}

void TileEditor::setDirective(const std::string& kind, const json& tile) {
    std::vector<const Op*> found;
    collectDirectives(*m_entry, kind == "vec_tile" ? OpKind::VecTile : OpKind::CubeTile, found);
    const bool inPlace = tile.is_array() && !found.empty() && leadsFunction(*m_entry, found[0]);
    for (size_t i = 0; i < found.size(); ++i) {
        auto span = directiveSpan(m_source, m_lines, *found[i], !(inPlace && i == 0));
        if (span && inPlace && i == 0) span->text = directiveLine(kind, tile);
        edit(span);
    }
    if (tile.is_array() && !inPlace) {
        auto open = bodyOpenEnd(m_source, m_lines, *m_entry);
        edit(open ? std::optional(TextEdit{*open, *open, " " + directiveLine(kind, tile)})
                  : std::nullopt);
    }
    const int inserted = m_inserted;
    m_inserted += tile.is_array() && !inPlace;
    m_placements.push_back([=](std::string printed) {
        return placeDirectives(printed, kind, tile, inPlace, inserted);
    });
}

std::string TileEditor::result() const {
    const std::string canonical = printProgram(m_module, m_entry, [&](std::string printed) {
        for (const auto& place : m_placements) printed = place(std::move(printed));
        return printed;
    });
    if (m_editable) {
        std::string edited = applyTextEdits(m_source, m_edits);
        if (sameProgram(edited, canonical, m_file)) return edited;
    }
    return canonical; // a form the edits do not understand: the program printed canonically
}

} // namespace

std::string applyTileSettings(const std::string& source, const std::string& file,
                              const std::string& entry, const json& config) {
    if (!touchesTiles(config)) return source;
    TileEditor editor(source, file, entry);
    for (const auto& [key, value] : config.items())
        if ((startsWith(key, "cube_tile.") || startsWith(key, "vec_tile.")))
            editor.setOpTile(key, value);
    for (const char* kind : {"cube_tile", "vec_tile"})
        if (config.contains(kind)) editor.setDirective(kind, config[kind]);
    return editor.result();
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
    for (const std::string& s : settings) any |= startsWith(s, "cube_tile") || isOpSetting(s);
    if (!any) return;
    Module module = parseModule(source, file);
    Function* fn = findEntry(module, entry);
    for (const std::string& s : settings) {
        if (s == "cube_tile" && !hasCubeOp(*fn))
            throw TuneSpaceError(fmt::format("'cube_tile': @{} has no matmul, so a cube_tile "
                                             "directive would change nothing",
                                             fn->name));
        if (!isOpSetting(s)) continue;
        const auto dot = s.find(".%");
        const Op* op = findOpByResult(*fn, s.substr(dot + 2));
        if (!op)
            throw TuneSpaceError(fmt::format("'{}': @{} has no op whose result is {}", s, fn->name,
                                             s.substr(dot + 1)));
        if (startsWith(s, "cube_tile") && !takesCubeTile(op->kind))
            throw TuneSpaceError(fmt::format("'{}': {} is a {}, which takes no cube tile (only "
                                             "matmuls do)",
                                             s, s.substr(dot + 1), opName(op->kind)));
    }
}

} // namespace pto
