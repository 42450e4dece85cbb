// The --fault flag of `pto compile`, `run` and `diff --bisect`: a defect to plant for testing
// the debugger, parsed by parseFaultSpec (compiler/FaultInjection.h); a bad value is a
// CLI::ValidationError (exit 2).
#include "cli/Command.h"

#include "compiler/FaultInjection.h"

#include <stdexcept>

namespace pto::cli {

void addFaultOption(CLI::App* cmd, FaultSpec& fault, const std::string& help) {
    cmd->add_option_function<std::string>(
        "--fault",
        [&fault](const std::string& text) {
            try {
                fault = parseFaultSpec(text);
            } catch (const std::invalid_argument& e) {
                throw CLI::ValidationError("--fault", e.what());
            }
        },
        help + " " + faultKindNames());
}

} // namespace pto::cli
