// Parses, checks and enumerates the search space of `pto tune` (driver/TuneSpace.h).
#include "driver/TuneSpace.h"

#include "simulator/arch/ArchConfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace pto {
namespace {

using nlohmann::json;

constexpr const char* kSettingsHelp =
    "cube_tile, cube_tile.%NAME, vec_tile, vec_tile.%NAME, tiles_per_task, double_buffer, "
    "arch.KEY";

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw TuneSpaceError(fmt::format("{}: {}", where, what));
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// An integer, also when written as an integral float (2.0); nullopt for anything else.
std::optional<int64_t> integerOf(const json& v) {
    if (v.is_number_unsigned())
        return v.get<uint64_t>() <= uint64_t(INT64_MAX) ? std::optional(v.get<int64_t>())
                                                        : std::nullopt;
    if (v.is_number_integer()) return v.get<int64_t>();
    if (!v.is_number_float()) return std::nullopt;
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) >= 9.0e18) return std::nullopt;
    return int64_t(d);
}

int64_t positiveInt(const json& v, const std::string& where) {
    const std::optional<int64_t> n = integerOf(v);
    if (!n || *n <= 0) fail(where, fmt::format("{} is not a positive integer", v.dump()));
    return *n;
}

// "[json.exception.parse_error.101] parse error at …" → "parse error at …".
std::string jsonMessage(const std::exception& e) {
    const std::string what = e.what();
    const auto close = what.find("] ");
    return what.starts_with("[json.exception.") && close != std::string::npos
               ? what.substr(close + 2)
               : what;
}

bool isTileKeyword(const json& v) {
    return v.is_string() && (v == "as_written" || v == "default");
}

json checkVecTile(const json& v, const std::string& where) {
    if (isTileKeyword(v)) return v;
    if (!v.is_array())
        fail(where, fmt::format("{} is not a tile (a list of sizes, \"default\" or "
                                "\"as_written\")",
                                v.dump()));
    json sizes = json::array();
    for (const json& size : v) sizes.push_back(positiveInt(size, where));
    return sizes;
}

json checkCubeTile(const json& v, const std::string& where) {
    if (isTileKeyword(v)) return v;
    std::vector<int64_t> flat;
    if (v.is_array() && v.size() == 6) {
        for (const json& s : v) flat.push_back(positiveInt(s, where));
    } else if (v.is_array() && v.size() == 3) {
        for (const json& pair : v) {
            if (!pair.is_array() || pair.size() != 2)
                fail(where, fmt::format("{} is not a cube tile: give [[mL0, mL1], [kL0, kL1], "
                                        "[nL0, nL1]] or the six sizes flat",
                                        v.dump()));
            for (const json& s : pair) flat.push_back(positiveInt(s, where));
        }
    } else {
        fail(where, fmt::format("{} is not a cube tile: give [[mL0, mL1], [kL0, kL1], [nL0, "
                                "nL1]], the six sizes flat, \"default\" or \"as_written\"",
                                v.dump()));
    }
    return json::array({json::array({flat[0], flat[1]}), json::array({flat[2], flat[3]}),
                        json::array({flat[4], flat[5]})});
}

// {"m": [..], "k": [..], "n": [..], "m_l1"?, "k_l1"?, "n_l1"?} → the cube tiles of the product.
std::vector<json> expandCubeGenerator(const json& g, const std::string& where) {
    static const std::set<std::string> keys = {"m", "k", "n", "m_l1", "k_l1", "n_l1"};
    for (const auto& [key, value] : g.items()) {
        if (!keys.count(key))
            fail(where, fmt::format("unknown cube_tile generator key '{}' (m, k, n, m_l1, k_l1, "
                                    "n_l1)",
                                    key));
        if (!value.is_array() || value.empty())
            fail(where, fmt::format("generator key '{}' needs a non-empty list", key));
        std::set<int64_t> seen;
        for (const json& s : value)
            if (!seen.insert(positiveInt(s, where + " " + key)).second)
                fail(where, fmt::format("generator key '{}' lists {} twice", key, s.dump()));
    }
    for (const char* key : {"m", "k", "n"})
        if (!g.contains(key)) fail(where, fmt::format("cube_tile generator lacks '{}'", key));
    auto sizes = [&](const char* key) {
        std::vector<int64_t> out;
        for (const json& s : g[key]) out.push_back(*integerOf(s));
        return out;
    };
    auto l1 = [&](const char* key, int64_t l0) {
        return g.contains(key) ? sizes(key) : std::vector<int64_t>{l0};
    };
    std::vector<json> out;
    for (int64_t m : sizes("m"))
        for (int64_t mL1 : l1("m_l1", m))
            for (int64_t k : sizes("k"))
                for (int64_t kL1 : l1("k_l1", k))
                    for (int64_t n : sizes("n"))
                        for (int64_t nL1 : l1("n_l1", n))
                            out.push_back(json::array({json::array({m, mL1}), json::array({k, kL1}),
                                                       json::array({n, nL1})}));
    return out;
}

std::string checkOpName(const std::string& setting, const std::string& where) {
    const std::string name = setting.substr(setting.find('.') + 1);
    if (name.size() < 2 || name[0] != '%')
        fail(where, fmt::format("'{}': name the op by its result, as in vec_tile.%e", setting));
    return name;
}

// A value given twice would be simulated twice: refused, as a setting given twice is.
void checkDistinct(const std::vector<json>& values, const std::string& at) {
    for (size_t i = 0; i < values.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (values[i] == values[j])
                fail(at, fmt::format("the value {} is given twice (each value is one candidate)",
                                     values[i].is_string() ? values[i].get<std::string>()
                                                           : values[i].dump()));
}

// The values of one setting, checked and normalised.
std::vector<json> checkValues(const std::string& setting, const json& values,
                              const std::string& where) {
    const std::string at = fmt::format("{}: '{}'", where, setting);
    if (!values.is_array() || values.empty()) fail(at, "needs a non-empty list of values");
    std::vector<json> out;
    for (size_t i = 0; i < values.size(); ++i) {
        const json& v = values[i];
        const std::string vat = fmt::format("{} value {}", at, i + 1);
        if (startsWith(setting, "cube_tile")) {
            if (v.is_object()) {
                for (json& t : expandCubeGenerator(v, vat)) out.push_back(std::move(t));
                continue;
            }
            out.push_back(checkCubeTile(v, vat));
        } else if (startsWith(setting, "vec_tile")) {
            out.push_back(checkVecTile(v, vat));
        } else if (setting == "tiles_per_task") {
            const std::optional<int64_t> n = integerOf(v);
            if (!n || *n < 0 || *n > 1000000)
                fail(vat, fmt::format("{} is not a tile-chain count (an integer, 0 … 1000000)",
                                      v.dump()));
            out.push_back(*n);
        } else if (setting == "double_buffer") {
            if (!v.is_boolean()) fail(vat, fmt::format("{} is not true or false", v.dump()));
            out.push_back(v);
        } else { // arch.KEY: checked by applying it to the default chip
            if (!v.is_string() && !v.is_number())
                fail(vat, fmt::format("{} is not an arch value", v.dump()));
            const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
            sim::ArchConfig arch;
            try {
                sim::applyOverride(arch, setting.substr(5) + "=" + text);
            } catch (const std::exception& e) {
                fail(vat, e.what());
            }
            out.push_back(text);
        }
    }
    checkDistinct(out, at);
    return out;
}

void checkSettingName(const std::string& setting, const std::string& where) {
    if (setting == "cube_tile" || setting == "vec_tile" || setting == "tiles_per_task" ||
        setting == "double_buffer")
        return;
    if (startsWith(setting, "cube_tile.") || startsWith(setting, "vec_tile.")) {
        checkOpName(setting, where);
        return;
    }
    if (startsWith(setting, "arch.") && setting.size() > 5) return;
    fail(where, fmt::format("unknown setting '{}' (settings: {})", setting, kSettingsHelp));
}

void addDimension(TuneSpace& space, const std::string& setting, const json& values,
                  const std::string& where) {
    checkSettingName(setting, where);
    for (const TuneDimension& d : space.dimensions)
        if (d.setting == setting) fail(where, fmt::format("'{}' is given twice", setting));
    space.dimensions.push_back({setting, checkValues(setting, values, where)});
}

// The first key given twice in one object of `text`, or "" (json::parse keeps the last).
std::string duplicateKey(const std::string& text) {
    std::vector<std::set<std::string>> open;
    std::string duplicate;
    [[maybe_unused]] const json all =
        json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
            if (event == json::parse_event_t::object_start) open.emplace_back();
            if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
            if (event == json::parse_event_t::key && !open.empty() &&
                !open.back().insert(parsed.get<std::string>()).second && duplicate.empty())
                duplicate = parsed.get<std::string>();
            return true;
        });
    return duplicate;
}

void parseJsonSpec(TuneSpace& space, const std::string& text, const std::string& where) {
    json spec;
    try {
        spec = json::parse(text);
        if (const std::string key = duplicateKey(text); !key.empty())
            fail(where, fmt::format("'{}' is given twice", key));
    } catch (const json::parse_error& e) {
        fail(where, fmt::format("not valid JSON (byte {}): {}", e.byte, jsonMessage(e)));
    } catch (const json::exception& e) { // a number out of range: 1e400
        fail(where, fmt::format("not valid JSON: {}", jsonMessage(e)));
    }
    if (!spec.is_object()) fail(where, "the space must be a JSON object of settings");
    for (const auto& [key, value] : spec.items()) {
        if (key == "arch") {
            if (!value.is_object())
                fail(where, "'arch' must be an object of arch keys to lists of values");
            for (const auto& [archKey, archValues] : value.items())
                addDimension(space, "arch." + archKey, archValues, where);
            continue;
        }
        addDimension(space, key, value.is_array() ? value : json::array({value}), where);
    }
}

// "a | [1,2] | {..}" → the pieces at bracket depth 0, outside strings.
std::vector<std::string> splitAlternatives(const std::string& text) {
    std::vector<std::string> out;
    std::string current;
    int depth = 0;
    bool quoted = false;
    for (char c : text) {
        if (c == '"') quoted = !quoted;
        if (!quoted && (c == '[' || c == '{')) ++depth;
        if (!quoted && (c == ']' || c == '}')) --depth;
        if (c == '|' && depth == 0 && !quoted) {
            out.push_back(trim(current));
            current.clear();
            continue;
        }
        current += c;
    }
    out.push_back(trim(current));
    return out;
}

json parseTextValue(const std::string& piece, const std::string& where) {
    if (piece.empty()) fail(where, "an empty value (two '|' in a row?)");
    try {
        return json::parse(piece);
    } catch (const json::parse_error&) {
        if (piece.front() == '[' || piece.front() == '{' || piece.front() == '"')
            fail(where, fmt::format("'{}' is not a valid value", piece));
        return piece;                    // a bare word: default, as_written, 2x, 1.6 TB/s
    } catch (const json::exception& e) { // a number out of range: 1e400
        fail(where, fmt::format("'{}' is not a valid value: {}", piece, jsonMessage(e)));
    }
}

void parseTextSpec(TuneSpace& space, const std::string& text, const std::string& where) {
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        line = line.substr(0, line.find('#'));
        std::istringstream statements(line);
        std::string statement;
        while (std::getline(statements, statement, ';')) {
            statement = trim(statement);
            if (statement.empty()) continue;
            const std::string at = fmt::format("{}:{}", where, lineNo);
            const auto eq = statement.find('=');
            if (eq == std::string::npos)
                fail(at, fmt::format("'{}' is not 'setting = value | value …'", statement));
            const std::string setting = trim(statement.substr(0, eq));
            json values = json::array();
            for (const std::string& piece : splitAlternatives(statement.substr(eq + 1)))
                values.push_back(parseTextValue(piece, at));
            addDimension(space, setting, values, at);
        }
    }
}

} // namespace

std::optional<size_t> TuneSpace::asWrittenCombination() const {
    size_t index = 0;
    for (const TuneDimension& d : dimensions) {
        auto at = std::find(d.values.begin(), d.values.end(), json("as_written"));
        if (at == d.values.end()) return std::nullopt;
        index = index * d.values.size() + size_t(at - d.values.begin());
    }
    return index;
}

size_t TuneSpace::candidateCount() const {
    size_t n = 1;
    for (const TuneDimension& d : dimensions) n *= d.values.size();
    return n + 1 - (asWrittenCombination() ? 1 : 0);
}

json TuneSpace::candidate(size_t id) const {
    json config = json::object();
    if (id == 0) return config;
    size_t k = id - 1;
    // The combination of every dimension's as_written is candidate 0: skipped, not run twice.
    if (std::optional<size_t> skip = asWrittenCombination(); skip && k >= *skip) ++k;
    for (size_t i = dimensions.size(); i-- > 0;) {
        const TuneDimension& d = dimensions[i];
        const json& v = d.values[k % d.values.size()];
        k /= d.values.size();
        if (v == "as_written") continue;
        if (startsWith(d.setting, "arch."))
            config["arch"][d.setting.substr(5)] = v;
        else
            config[d.setting] = v;
    }
    return config;
}

TuneSpace parseTuneSpace(const std::string& text, const std::string& where) {
    TuneSpace space;
    space.text = text;
    const std::string body = trim(text);
    if (body.empty()) fail(where, "the space is empty (give at least one setting)");
    if (body.front() == '{' || body.front() == '[')
        parseJsonSpec(space, body, where);
    else
        parseTextSpec(space, body, where);
    if (space.dimensions.empty()) fail(where, "the space is empty (give at least one setting)");
    size_t n = 1;
    for (const TuneDimension& d : space.dimensions) {
        n *= d.values.size();
        if (n > kMaxTuneCandidates)
            fail(where, fmt::format("the space has more than {} candidates; split it or give "
                                    "fewer values",
                                    kMaxTuneCandidates));
    }
    return space;
}

TuneSpace loadTuneSpace(const std::string& spec) {
    std::error_code error;
    if (std::filesystem::is_directory(spec, error))
        fail(spec, "is a directory, not a space file (give a file, or inline text such as "
                   "'tiles_per_task = 1 | 2')");
    if (std::filesystem::is_regular_file(spec, error)) {
        std::ifstream in(spec);
        std::stringstream text;
        text << in.rdbuf();
        if (!in) fail(spec, "cannot read the space file");
        return parseTuneSpace(text.str(), spec);
    }
    const std::string body = trim(spec);
    if (spec.find('=') != std::string::npos || spec.find('{') != std::string::npos ||
        body.starts_with('['))
        return parseTuneSpace(spec, "--space");
    fail(spec, "no such space file (give a file, or inline text such as 'tiles_per_task = 1 | "
               "2')");
}

std::string candidateLabel(const json& config) {
    if (config.empty()) return "as written";
    std::string out;
    auto add = [&](const std::string& key, const json& v) {
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        if (startsWith(key, "cube_tile") && v.is_array()) // [[a,b],[c,d],[e,f]] → [a,b],[c,d],..
            text = text.substr(1, text.size() - 2);
        out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, text);
    };
    for (const auto& [key, value] : config.items()) {
        if (key == "arch") {
            for (const auto& [archKey, archValue] : value.items())
                add("arch." + archKey, archValue);
            continue;
        }
        add(key, value);
    }
    return out;
}

} // namespace pto
