// --no-cluster-probe and --share-kernels of pto compile and pto run (cli/Command.h).
#include "cli/Command.h"

#include <fmt/format.h>

#include <stdexcept>

namespace pto::cli {

void addReplicationOptions(CLI::App* cmd, ReplicationArgs& args) {
    cmd->add_flag("--no-cluster-probe", args.noClusterProbe,
                  "compile every fused cluster (not a few, replicated to the others)");
    cmd->add_option("--share-kernels", args.shareKernels,
                    "one kernel text for kernels equal but for GM addresses, launched by each "
                    "task with its GM rebases: auto (the default: programs of at least 1 M "
                    "instructions), on, off");
}

void applyReplicationOptions(const ReplicationArgs& args, CompileOptions& options) {
    options.clusterProbe = !args.noClusterProbe;
    const std::optional<ShareKernels> share = parseShareKernels(args.shareKernels);
    if (!share)
        throw std::invalid_argument(
            fmt::format("unknown --share-kernels value '{}' (auto, on or off)", args.shareKernels));
    options.shareKernels = *share;
}

} // namespace pto::cli
