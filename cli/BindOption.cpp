// The --bind flag of `pto compile`, `run` and `diff`: numbers for a program's index arguments
// (`--bind t=37`, repeatable), parsed by parseScalarBind (compiler/ir/BindScalars.h); a bad
// value is a CLI::ValidationError (exit 2).
#include "cli/Command.h"

#include "compiler/ir/BindScalars.h"

namespace pto::cli {

void addBindOption(CLI::App* cmd, std::vector<ScalarBind>& binds) {
    cmd->add_option_function<std::vector<std::string>>(
        "--bind",
        [&binds](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) {
                try {
                    binds.push_back(parseScalarBind(text));
                } catch (const CompileError& e) {
                    throw CLI::ValidationError("--bind", e.message());
                }
            }
        },
        "NAME=N: the number of the entry function's index argument %NAME (a loop's trip count "
        "bound when the program runs; repeat for several)");
}

} // namespace pto::cli
