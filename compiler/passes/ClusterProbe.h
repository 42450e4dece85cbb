// Compiling isomorphic fused clusters once: a row-parallel program with many fused clusters is
// compiled with a few clusters' rows (probes), and the full program is built in the shared form
// (one kernel per cluster role, launched by every cluster's tasks with GM rebases;
// compiler/ir/PtoShare.h). docs/ARCHITECTURE.md "Compiling isomorphic fused clusters once".
#pragma once

#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// Probing applies to programs of at least this many clusters (fewer compile fast in full).
inline constexpr int64_t kMinProbeClusters = 48;
// Clusters of the smallest probe: fuse-cube-vector fuses only with at least half the AICs.
inline constexpr int64_t kProbeClusters = 12;

// How a probed compile runs: the program's `clusters` clusters of `clusterRows` rows each are
// compiled through `probeClusters` of them (the row-parallel dim cut to clusterRows ·
// probeClusters by expand-tiles); `later` holds the PTO programs of the probes with one and two
// clusters more (empty while those are compiled).
struct ClusterProbe {
    int64_t rows = 0; // the row-parallel dim of the full program
    int64_t clusterRows = 0;
    int64_t clusters = 0;
    int64_t probeClusters = kProbeClusters;
    std::vector<PtoProgram> later;
};

// The full program of `n` clusters in the shared form, from the probes `a`, `b`, `c` of `ca`,
// ca + 1 and ca + 2 clusters: the three kernels of a's cluster 0 (GM addresses in the full GM
// table), 3·n tasks whose rebases move them onto the cluster's rows and workspaces, the full GM
// table (the tensors before the first workspace set grown linearly, n workspace sets) and no
// dependencies. nullopt, with `why`, unless every probe is ca.. clusters of three tasks each
// whose kernels equal cluster 0's but for GM addresses (moved per tensor by a multiple of the
// cluster index, a workspace set per cluster) and tile ops, the three probes agree (the same
// kernels in the full table, GM tables and task names linear in the clusters, no
// dependencies), and the clusters' GM footprints are disjoint wherever one writes (so the full
// program needs no task dependency).
std::optional<PtoProgram> replicateClusters(const PtoProgram& a, const PtoProgram& b,
                                            const PtoProgram& c, int64_t ca, int64_t n,
                                            std::string& why);

// replicateClusters' program when it also passes the static sync check and the PTO verifier
// (on one cluster: every cluster runs the same kernels on GM regions the replication checked).
std::optional<PtoProgram> checkedReplicatedClusters(const PtoProgram& a, const PtoProgram& b,
                                                    const PtoProgram& c, int64_t ca, int64_t n,
                                                    std::string& why, const std::string& file = {},
                                                    const TargetInfo& target = {});

} // namespace pto
