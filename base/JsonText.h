// JSON text for output: strings from traces may hold bytes that are not UTF-8 (a corrupt or
// foreign file); they are written as U+FFFD instead of aborting the output half-way.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

inline std::string jsonText(const nlohmann::json& j, int indent = -1) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The same for JSON whose object keys keep their insertion order (a query's columns).
inline std::string jsonText(const nlohmann::ordered_json& j, int indent = -1) {
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace pto
