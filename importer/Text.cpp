// Number and time parsing shared by the readers.
#include "importer/Text.h"

#include "base/Utf8.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace pto::importer {

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

std::optional<double> parseReal(std::string_view text) {
    text = trim(text);
    if (text.empty() || text == "N/A") return std::nullopt;
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<std::int64_t> parseInt(std::string_view text) {
    text = trim(text);
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

namespace {

// "123.456789" exactly: the digits after the point give nanoseconds without a double's
// rounding (epoch microseconds need 19 significant digits).
std::optional<std::int64_t> plainMicros(std::string_view text) {
    std::size_t dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || whole.size() > 16) return std::nullopt;
    for (char c : whole)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    for (char c : frac)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    auto micros = parseInt(whole);
    if (!micros || *micros > kMaxNanos / 1000 - 1) return std::nullopt;
    std::int64_t ns = *micros * 1000;
    std::int64_t scale = 100;
    for (std::size_t i = 0; i < frac.size() && i < 3; ++i, scale /= 10)
        ns += (frac[i] - '0') * scale;
    if (frac.size() > 3 && frac[3] >= '5') ns += 1;
    return ns;
}

} // namespace

std::optional<std::int64_t> microsToNanos(std::string_view text) {
    text = trim(text);
    if (auto exact = plainMicros(text)) return exact;
    auto value = parseReal(text);
    if (!value || std::fabs(*value) > double(kMaxNanos / 1000 - 1)) return std::nullopt;
    return std::llround(*value * 1000.0);
}

std::string badValue(std::string_view column, std::string_view text) {
    std::string shown(text.substr(0, 40));
    if (shown.size() < text.size()) shown += "…";
    std::string decimal(trim(text));
    for (char& c : decimal)
        if (c == ',') c = '.';
    const bool comma = decimal != trim(text) && parseReal(decimal).has_value();
    return fmt::format("{} = '{}'{}", column, shown,
                       comma ? " (a decimal comma? pto import reads '.' as the decimal point)"
                             : "");
}

bool isUtf8(std::string_view text) {
    return firstInvalidUtf8(text) == std::string_view::npos;
}

std::size_t firstInvalidUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        if (n == 0) return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string validUtf8(std::string_view text, std::int64_t& replaced) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        if (std::size_t n = utf8SequenceLength(text, i)) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++replaced;
            ++i;
        }
    }
    return out;
}

std::string argKey(std::string_view header) {
    std::string key;
    for (char c : trim(header)) {
        if (c == '(' || c == ' ' || c == '/') {
            if (!key.empty() && key.back() != '_') key += '_';
        } else if (c == '%') {
            key += "pct";
        } else if (c != ')') {
            key += char(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    while (!key.empty() && key.back() == '_') key.pop_back();
    return key;
}

bool isIntegerArg(std::string_view key) {
    for (std::string_view id :
         {"step_id", "model_id", "task_id", "block_dim", "mix_block_dim", "context_id"})
        if (key == id) return true;
    return key.ends_with("_cycles");
}

} // namespace pto::importer
