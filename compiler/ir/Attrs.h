// Op attributes: a short ordered list of named values ({axis = 1, keepdim, scalar = 0.5}).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pto {

// A unit attribute ("keepdim") is stored as bool true.
using AttrValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>>;

struct Attr {
    std::string name;
    AttrValue value;
};

class Attrs {
public:
    bool has(std::string_view name) const { return find(name) != nullptr; }
    const AttrValue* find(std::string_view name) const {
        for (const Attr& a : m_items)
            if (a.name == name) return &a.value;
        return nullptr;
    }

    // Typed getters: the fallback when absent or of another type. Ints read as doubles too.
    int64_t getInt(std::string_view name, int64_t fallback = 0) const {
        if (auto* v = find(name))
            if (auto* i = std::get_if<int64_t>(v)) return *i;
        return fallback;
    }
    double getFloat(std::string_view name, double fallback = 0.0) const {
        if (auto* v = find(name)) {
            if (auto* d = std::get_if<double>(v)) return *d;
            if (auto* i = std::get_if<int64_t>(v)) return double(*i);
        }
        return fallback;
    }
    bool getBool(std::string_view name, bool fallback = false) const {
        if (auto* v = find(name))
            if (auto* b = std::get_if<bool>(v)) return *b;
        return fallback;
    }
    std::string getString(std::string_view name, std::string fallback = {}) const {
        if (auto* v = find(name))
            if (auto* s = std::get_if<std::string>(v)) return *s;
        return fallback;
    }
    std::optional<std::vector<int64_t>> getInts(std::string_view name) const {
        if (auto* v = find(name))
            if (auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
        return std::nullopt;
    }

    // Sets (replacing in place, so the printed order stays stable) or appends.
    void set(std::string_view name, AttrValue value) {
        for (Attr& a : m_items)
            if (a.name == name) {
                a.value = std::move(value);
                return;
            }
        m_items.push_back({std::string(name), std::move(value)});
    }
    void erase(std::string_view name) {
        std::erase_if(m_items, [&](const Attr& a) { return a.name == name; });
    }

    bool empty() const { return m_items.empty(); }
    const std::vector<Attr>& items() const { return m_items; }
    friend bool operator==(const Attrs&, const Attrs&) = default;

private:
    std::vector<Attr> m_items;
};

} // namespace pto
