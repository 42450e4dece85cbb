// The rule for meta clock_hz: one finite number of Hz within the range a chip can have.
#include "trace_db/ClockRate.h"

#include <charconv>
#include <cmath>

namespace pto::tracedb {
namespace {

// The number the whole of `text` spells, surrounding blanks allowed; nullopt otherwise.
std::optional<double> wholeNumber(std::string_view text) {
    const auto blank = text.find_first_not_of(" \t\r\n");
    if (blank == std::string_view::npos) return std::nullopt;
    text.remove_prefix(blank);
    text = text.substr(0, text.find_last_not_of(" \t\r\n") + 1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) return NAN; // beyond a double: not finite
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<double> refuse(std::string* problem, std::string_view why) {
    if (problem) *problem = why;
    return std::nullopt;
}

} // namespace

std::optional<double> parseClockHz(std::string_view text, std::string* problem) {
    const std::optional<double> hz = wholeNumber(text);
    if (!hz) return refuse(problem, "is not a number");
    if (!std::isfinite(*hz) || *hz <= 0) return refuse(problem, "is not a finite positive number");
    if (*hz < kMinClockHz) return refuse(problem, "is below 1 Hz");
    if (*hz > kMaxClockHz) return refuse(problem, "is above 100 GHz");
    return hz;
}

} // namespace pto::tracedb
