// The --set flag of `pto arch`, `run`, `tune` and `whatif`: arch parameter changes
// (`--set clock.freq=2GHz`, `--set dma.gm_to_l1.rate=2x`, repeatable), each key once, as in
// an arch file; a key given twice is a CLI::ValidationError (exit 2).
#include "cli/Command.h"

#include <fmt/format.h>

#include <map>

namespace pto::cli {
namespace {

std::string keyOf(const std::string& assignment) {
    const std::size_t eq = assignment.find('=');
    std::string key = assignment.substr(0, eq);
    const std::size_t first = key.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return key.substr(first, key.find_last_not_of(" \t") - first + 1);
}

} // namespace

CLI::Option* addArchSetOption(CLI::App* cmd, std::vector<std::string>& overrides,
                              const std::string& help) {
    return cmd->add_option_function<std::vector<std::string>>(
        "--set",
        [&overrides](const std::vector<std::string>& texts) {
            std::map<std::string, std::string> seen;
            for (const std::string& text : texts) {
                const std::string key = keyOf(text);
                if (auto [it, fresh] = seen.emplace(key, text); !fresh && !key.empty())
                    throw CLI::ValidationError(
                        "--set", fmt::format("'{}' is set twice ('{}', then '{}'): give it once",
                                             key, it->second, text));
            }
            overrides = texts;
        },
        help);
}

} // namespace pto::cli
