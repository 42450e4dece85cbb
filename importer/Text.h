// Number and time parsing shared by the readers: Ascend writes microseconds as decimal text
// ("1736408883704643.212", sometimes with a trailing tab) and "N/A" for absent values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::importer {

std::string_view trim(std::string_view text);
/// Microseconds as written ("123.456", "1.5e3", "12") to whole nanoseconds, rounded; nullopt
/// for N/A, empty or anything that is not a finite number.
std::optional<std::int64_t> microsToNanos(std::string_view text);
std::optional<double> parseReal(std::string_view text);
/// Times are kept within ±kMaxNanos (year 2065) so that differences and ends of any two of them
/// fit in 64 bits; a profiler .db's raw integers are checked with validNanos.
inline constexpr std::int64_t kMaxNanos = 3'000'000'000'000'000'000;
inline bool validNanos(std::int64_t ns) {
    return ns >= -kMaxNanos && ns <= kMaxNanos;
}
std::optional<std::int64_t> parseInt(std::string_view text);
/// What is wrong with a time cell, for a skipped row's message: "Duration(us) = '53,741' (a
/// decimal comma? pto import reads '.' as the decimal point)", "Start Time(us) = 'N/A'".
std::string badValue(std::string_view column, std::string_view text);
bool isUtf8(std::string_view text);
/// The offset of the first byte of `text` that starts no well-formed UTF-8 sequence, or npos.
std::size_t firstInvalidUtf8(std::string_view text);
/// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD; `replaced` counts them.
std::string validUtf8(std::string_view text, std::int64_t& replaced);
/// "aic_mac_time(us)" → "aic_mac_time_us", "Input Shapes" → "input_shapes".
std::string argKey(std::string_view header);
/// An arg (by its argKey) whose column the profiler writes as an integer: ids and counts
/// (step_id, model_id, task_id, block_dim, mix_block_dim, context_id) and cycle counts
/// (*_cycles). Its values are stored as integers, not reals ("11051", not 11051.0).
bool isIntegerArg(std::string_view key);

} // namespace pto::importer
