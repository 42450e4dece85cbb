// The resource-budget flags (--max-tile-ops, --max-instrs, --max-gm, --max-memory) shared by
// every command that compiles or simulates, and what `pto` says when memory runs out anyway.
#include "cli/Command.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <string_view>

namespace pto::cli {
namespace {

std::string g_activity; // what the command is doing, for the out-of-memory message

// "1073741824", "512MiB", "2 GiB", "4G", "64k": bytes, binary multiples (K/M/G/T).
int64_t parseByteSize(const std::string& option, const std::string& text) {
    std::string_view s = text;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr == s.data() || value <= 0)
        throw CLI::ValidationError(option, fmt::format("expected a positive size such as 2GiB "
                                                       "or 536870912, found '{}'",
                                                       text));
    std::string unit(ptr, s.data() + s.size());
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
    int shift = 0;
    if (unit.empty() || unit == "b")
        shift = 0;
    else if (unit == "k" || unit == "kb" || unit == "kib")
        shift = 10;
    else if (unit == "m" || unit == "mb" || unit == "mib")
        shift = 20;
    else if (unit == "g" || unit == "gb" || unit == "gib")
        shift = 30;
    else if (unit == "t" || unit == "tb" || unit == "tib")
        shift = 40;
    else
        throw CLI::ValidationError(option, fmt::format("unknown size unit '{}' in '{}' (B, KiB, "
                                                       "MiB, GiB or TiB)",
                                                       unit, text));
    if (value > (INT64_MAX >> shift))
        throw CLI::ValidationError(option, fmt::format("size '{}' is too large", text));
    return value << shift;
}

} // namespace

void addBudgetOptions(CLI::App* cmd, ResourceBudget& budget) {
    cmd->add_option("--max-tile-ops", budget.maxTileOps,
                    fmt::format("refuse programs whose tile expansion is estimated above N tile "
                                "ops (default {})",
                                ResourceBudget::kDefaultMaxTileOps))
        ->check(positiveInteger())
        ->group("Resource budget");
    cmd->add_option("--max-instrs", budget.maxInstrs,
                    fmt::format("refuse programs of more than N PTO instructions (default {})",
                                ResourceBudget::kDefaultMaxInstrs))
        ->check(positiveInteger())
        ->group("Resource budget");
    cmd->add_option_function<std::string>(
           "--max-gm",
           [&budget](const std::string& v) { budget.maxGmBytes = parseByteSize("--max-gm", v); },
           fmt::format("refuse runs whose inputs or simulated GM image exceed SIZE (default {})",
                       formatBytes(double(ResourceBudget::kDefaultMaxGmBytes))))
        ->type_name("SIZE")
        ->group("Resource budget");
    cmd->add_option_function<std::string>(
           "--max-memory",
           [&budget](const std::string& v) {
               budget.maxMemoryBytes = parseByteSize("--max-memory", v);
           },
           fmt::format("refuse compiles and runs estimated to need more host memory than SIZE "
                       "(default {})",
                       formatBytes(double(ResourceBudget::kDefaultMaxMemoryBytes))))
        ->type_name("SIZE")
        ->group("Resource budget");
}

void setActivity(std::string what) {
    g_activity = std::move(what);
}

const std::string& activity() {
    return g_activity;
}

} // namespace pto::cli
