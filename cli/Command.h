// How `pto` subcommands plug into the CLI: each registers itself on the app and, when chosen,
// runs and returns an exit code (0 ok, 1 findings or mismatch, 2 usage or input error).
#pragma once

#include "compiler/CompileState.h"
#include "compiler/FaultInjection.h"
#include "compiler/ResourceBudget.h"
#include "compiler/ir/BindScalars.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace pto::cli {

enum ExitCode : int { kExitOk = 0, kExitFindings = 1, kExitUsage = 2 };

// The action of the subcommand the user picked; set by its registration's callback.
using Action = std::function<int()>;

void registerCompile(CLI::App& app, Action& action);
void registerInfo(CLI::App& app, Action& action);
void registerRun(CLI::App& app, Action& action);
void registerArch(CLI::App& app, Action& action);
void registerDiff(CLI::App& app, Action& action);

// --fault KIND[:N] (compiler/FaultInjection.h) for compile, run and diff --bisect, parsed into
// `fault`; a bad value is a CLI::ValidationError (exit 2). cli/FaultOption.cpp.
// `help` is followed by the fault kinds' names (compiler/FaultInjection.h faultKindNames).
void addFaultOption(CLI::App* cmd, FaultSpec& fault, const std::string& help);
inline constexpr const char* kFaultHelp = "debug: plant a defect, KIND[:N] of";
// --bind NAME=N (compiler/ir/BindScalars.h), repeatable, for compile, run and diff: the entry's
// index arguments; a bad value is a CLI::ValidationError (exit 2). cli/BindOption.cpp.
void addBindOption(CLI::App* cmd, std::vector<ScalarBind>& binds);
// --set KEY=VALUE or KEY=Nx (an arch parameter change), repeatable, for arch, run, tune and
// whatif; a key given twice is a CLI::ValidationError (exit 2). cli/ArchSetOption.cpp.
CLI::Option* addArchSetOption(CLI::App* cmd, std::vector<std::string>& overrides,
                              const std::string& help);
// --max-tile-ops, --max-instrs, --max-gm and --max-memory (compiler/ResourceBudget.h) for
// every command that compiles or simulates; a bad value is a CLI::ValidationError (exit 2).
void addBudgetOptions(CLI::App* cmd, ResourceBudget& budget);

// --no-cluster-probe and --share-kernels auto|on|off for compile and run (how a program of many
// isomorphic fused clusters or kernels is compiled, compiler/passes/ClusterProbe.h and
// compiler/ir/PtoShare.h); applyReplicationOptions puts them into the CompileOptions and throws
// std::invalid_argument for an unknown --share-kernels value. cli/ReplicationOptions.cpp.
struct ReplicationArgs {
    bool noClusterProbe = false;
    std::string shareKernels = "auto";
};
void addReplicationOptions(CLI::App* cmd, ReplicationArgs& args);
void applyReplicationOptions(const ReplicationArgs& args, CompileOptions& options);

// Integer flags: a ValidationError (exit 2) saying what was expected and what was given.
// cli/CountValidators.cpp.
CLI::Validator positiveInteger();
CLI::Validator nonNegativeInteger();
CLI::Validator nonNegativeNumber(); // seconds and other real values

// Hands a command's big result (a compiled program, a run) to the process's exit instead of
// freeing its millions of small objects one by one: the command returns right after, and the
// system takes the memory back in one piece (`pto compile` of the 4096³ GEMM: 20-40 ms less from
// the trace's rename to exit). Call it last, once everything is written and printed. What is kept
// stays reachable from a static (a chain, if called more than once), so leak checkers do not
// report it.
template <typename T> void keepUntilExit(T&& value) {
    struct Kept {
        std::remove_cvref_t<T> value;
        const void* previous;
    };
    static const void* last = nullptr;
    last = new Kept{std::forward<T>(value), last};
}

// What the running command is doing ("compiling x.pto"), for the message when the host runs
// out of memory anyway (main.cpp).
void setActivity(std::string what);
const std::string& activity();

void registerReport(CLI::App& app, Action& action);
void registerQuery(CLI::App& app, Action& action);
void registerExport(CLI::App& app, Action& action);
void registerWhatif(CLI::App& app, Action& action);
void registerCompare(CLI::App& app, Action& action);
void registerImport(CLI::App& app, Action& action);
void registerCalibrate(CLI::App& app, Action& action);
void registerTune(CLI::App& app, Action& action);

} // namespace pto::cli
