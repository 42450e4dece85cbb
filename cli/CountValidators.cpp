// Checks of `pto`'s integer flags (limits, counts, thread numbers) with a message that says what
// was expected, where CLI11's ranges print the largest double in full.
#include "cli/Command.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace pto::cli {
namespace {

CLI::Validator integerAtLeast(int64_t least, const char* what) {
    return CLI::Validator(
        [least, what](std::string& text) -> std::string {
            int64_t value = 0;
            const char* end = text.data() + text.size();
            auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (ec == std::errc::result_out_of_range) return fmt::format("'{}' is too large", text);
            if (ec != std::errc() || ptr != end || value < least)
                return fmt::format("expected {}, found '{}'", what, text);
            return {};
        },
        least > 0 ? "N>0" : "N>=0");
}

} // namespace

CLI::Validator positiveInteger() {
    return integerAtLeast(1, "a positive integer");
}

CLI::Validator nonNegativeInteger() {
    return integerAtLeast(0, "an integer of 0 or more");
}

CLI::Validator nonNegativeNumber() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) ||
                value < 0)
                return fmt::format("expected a number of 0 or more, found '{}'", text);
            return {};
        },
        "X>=0");
}

} // namespace pto::cli
