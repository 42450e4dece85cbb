// The one rule for meta clock_hz, the core clock that turns a trace's cycles into time:
// TraceReader::open refuses a trace that breaks it, and every reader takes the rate from here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pto::tracedb {

/// The slowest clock a trace may state: below it a microsecond figure of a long run is no
/// longer a meaningful number.
inline constexpr double kMinClockHz = 1.0;
/// The fastest, the simulator's own limit on clock.freq (simulator/arch/ArchConfig.cpp).
inline constexpr double kMaxClockHz = 100e9;

/// The rate meta clock_hz `text` states: the whole text one finite number of Hz in
/// [kMinClockHz, kMaxClockHz] ("1800000000", "1.8e9"). Otherwise nullopt, and `problem` (when
/// given) says what is wrong: "is not a number", "is not a finite positive number", "is
/// below 1 Hz", "is above 100 GHz".
std::optional<double> parseClockHz(std::string_view text, std::string* problem = nullptr);

} // namespace pto::tracedb
