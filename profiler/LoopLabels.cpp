// Loop labels of a trace: parsing them and telling the user's loops from the compiler's.
#include "profiler/LoopLabels.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <vector>

namespace pto::prof {
namespace {

// The string value of `quotedKey` ("\"loop\":\"") in compact JSON; empty when absent. A name
// with escapes (`for "k\"v"`) is decoded whole (it was cut at its first quote).
std::string stringAttr(std::string_view json, std::string_view quotedKey) {
    const std::size_t at = json.find(quotedKey);
    if (at == std::string_view::npos) return {};
    const std::size_t begin = at + quotedKey.size();
    bool escaped = false;
    for (std::size_t i = begin; i < json.size(); ++i) {
        if (!escaped && json[i] == '"') {
            const std::string_view raw = json.substr(begin, i - begin);
            if (raw.find('\\') == std::string_view::npos) return std::string(raw);
            const auto decoded =
                nlohmann::json::parse(json.substr(begin - 1, i - begin + 2), nullptr, false);
            return decoded.is_string() ? decoded.get<std::string>() : std::string(raw);
        }
        escaped = !escaped && json[i] == '\\';
    }
    return {};
}

constexpr std::string_view kLoopKey = "\"loop\":\"";

// The name reroll-loops gives the loop over the tiles a kernel streams (compiler/ir/PtoLoops.h
// kTilesLoopName; the profiler reads traces without the compiler's headers).
constexpr std::string_view kTilesLoop = "tiles";

// The integers of `quotedKey` ("\"iter\":[") in compact JSON.
std::vector<std::string_view> intListAttr(std::string_view json, std::string_view quoted) {
    const std::size_t at = json.find(quoted);
    if (at == std::string_view::npos) return {};
    const std::size_t begin = at + quoted.size(), end = json.find(']', begin);
    if (end == std::string_view::npos) return {};
    std::vector<std::string_view> items;
    std::string_view list = json.substr(begin, end - begin);
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        if (!item.empty()) items.push_back(item);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return items;
}

bool digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// "matmul@22:11" + "k" / "block": the source position "22:11" of a compiler-made matmul
// loop's last name component, or "" when it is none.
std::string_view matmulPosition(std::string_view component, std::string_view suffix) {
    constexpr std::string_view prefix = "matmul@";
    if (!component.starts_with(prefix) || component.size() <= prefix.size() + suffix.size() + 1)
        return {};
    if (!component.ends_with(suffix) || component[component.size() - suffix.size() - 1] != '.')
        return {};
    const std::string_view at =
        component.substr(prefix.size(), component.size() - prefix.size() - suffix.size() - 1);
    const std::size_t colon = at.find(':');
    if (colon == std::string_view::npos || !digits(at.substr(0, colon)) ||
        !digits(at.substr(colon + 1)))
        return {};
    return at;
}

std::string_view lastComponent(std::string_view name) {
    const std::size_t slash = name.rfind('/');
    return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// The text after "NAME, " of a label: "iter 7", "round 2 of 3".
std::string_view labelTail(std::string_view label) {
    const std::string_view name = loopNameOfLabel(label);
    return name.size() + 2 <= label.size() ? label.substr(name.size() + 2) : std::string_view();
}

} // namespace

std::string loopLabelOfAttrs(std::string_view attrsJson) {
    const std::string loop = stringAttr(attrsJson, kLoopKey);
    if (loop.empty()) return {};
    const std::vector<std::string_view> iters = intListAttr(attrsJson, "\"iter\":[");
    if (iters.empty()) return std::string(loop);
    return fmt::format("{}, iter {}", loop, fmt::join(iters, "/"));
}

std::string loopNameOfAttrs(std::string_view attrsJson) {
    return stringAttr(attrsJson, kLoopKey);
}

std::string_view loopNameOfLabel(std::string_view label) {
    for (std::string_view tail : {", iter ", ", round "})
        if (const std::size_t at = label.rfind(tail); at != std::string_view::npos)
            return label.substr(0, at);
    return label;
}

bool isCompilerLoopName(std::string_view name) {
    const std::string_view last = lastComponent(name);
    return name == kTilesLoop || !matmulPosition(last, "k").empty() ||
           !matmulPosition(last, "block").empty();
}

bool isProgramLoopRound(std::string_view roundLabel, std::string_view sourceLabel) {
    const std::string_view name = loopNameOfLabel(roundLabel);
    if (isCompilerLoopName(name)) return false;
    return sourceLabel.empty() || loopNameOfLabel(sourceLabel) == name;
}

std::string describeCompilerLoopRound(std::string_view roundLabel) {
    const std::string_view name = loopNameOfLabel(roundLabel);
    const std::string_view tail = labelTail(roundLabel);
    if (name == kTilesLoop) {
        std::string text = "a loop the compiler made over the tiles this kernel streams "
                           "(reroll-loops), not one of the program";
        // Traces before rounds were named: the iteration is a rank that only orders tiles.
        if (tail.starts_with("iter "))
            text += fmt::format("; {} is the rank of the tile's corner among every value's tile "
                                "corners, not an index into one tensor",
                                tail);
        return text;
    }
    const std::string_view last = lastComponent(name);
    const bool kSteps = !matmulPosition(last, "k").empty();
    const std::string_view at = kSteps ? matmulPosition(last, "k") : matmulPosition(last, "block");
    if (at.empty()) return {};
    // "iter 2/5": the outer program loops' iterations, then the step or block.
    std::string_view iters = tail.starts_with("iter ") ? tail.substr(5) : std::string_view();
    const std::size_t slash = iters.rfind('/');
    const std::string_view own = slash == std::string_view::npos ? iters : iters.substr(slash + 1);
    std::string text = fmt::format(
        "{} {}of the matmul at {} (a loop the compiler made over its {})",
        kSteps ? "K step" : "output block", own.empty() ? std::string() : std::string(own) + " ",
        at, kSteps ? "K blocks" : "output blocks");
    if (slash != std::string_view::npos && last.size() < name.size())
        text += fmt::format(", in {}, iter {}", name.substr(0, name.size() - last.size() - 1),
                            iters.substr(0, slash));
    return text;
}

} // namespace pto::prof
