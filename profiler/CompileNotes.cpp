// The compiler's remarks grouped by what they say (see CompileNotes.h).
#include "profiler/CompileNotes.h"

#include "base/JsonText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string_view>

namespace pto::prof {

std::vector<std::string> groupedNotes(const std::vector<std::string>& notes) {
    constexpr size_t kNamed = 3; // blocks named in a grouped line
    struct Group {
        std::string text;
        std::vector<std::string> blocks; // empty: a note about no block
    };
    std::vector<Group> groups;
    std::map<std::string, size_t> byText;
    for (const std::string& note : notes) {
        const std::string_view n = note;
        const size_t close = n.find("': ");
        if (!n.starts_with("block '") || close == std::string_view::npos) {
            groups.push_back({note, {}});
            continue;
        }
        std::string block(n.substr(7, close - 7)), text(n.substr(close + 3));
        auto [it, fresh] = byText.try_emplace(text, groups.size());
        if (fresh) groups.push_back({text, {}});
        groups[it->second].blocks.push_back(std::move(block));
    }
    std::vector<std::string> out;
    for (const Group& g : groups) {
        if (g.blocks.empty()) {
            out.push_back(g.text);
        } else if (g.blocks.size() == 1) {
            out.push_back(fmt::format("block '{}': {}", g.blocks.front(), g.text));
        } else {
            std::string named;
            for (size_t i = 0; i < g.blocks.size() && i < kNamed; ++i)
                named += (i ? ", " : "") + g.blocks[i];
            out.push_back(fmt::format("{} ({} blocks: {}{})", g.text, g.blocks.size(), named,
                                      g.blocks.size() > kNamed ? ", …" : ""));
        }
    }
    return out;
}

std::string notesJson(const std::vector<std::string>& notes) {
    return jsonText(nlohmann::json(notes));
}

std::vector<std::string> notesFromJson(const std::string& json) {
    const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    std::vector<std::string> out;
    if (!j.is_array()) return out;
    for (const auto& e : j)
        if (e.is_string()) out.push_back(e.get<std::string>());
    return out;
}

} // namespace pto::prof
