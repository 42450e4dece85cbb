// The Exec level: the task graph the device scheduler consumes. A task is one call of a
// block function on one core of its type; dependencies come from GM regions one task writes
// and another reads (or overwrites).
#pragma once

#include "compiler/ir/Hardware.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

inline constexpr uint32_t kNoCluster = UINT32_MAX;
/// Cross-core flag ids of a cluster: 0..15 (each counts at most 16 pending signals).
inline constexpr int kCrossFlagIds = 16;

/// The three cores of a cluster (an AIC and its two AIVs) as cross-core flags name them.
enum class ClusterRole : uint8_t { Aic, Aiv0, Aiv1 };
inline constexpr int kClusterRoles = 3;

inline constexpr std::string_view clusterRoleName(ClusterRole r) {
    constexpr std::string_view kNames[] = {"aic", "aiv0", "aiv1"};
    return kNames[static_cast<int>(r)];
}

inline constexpr std::optional<ClusterRole> parseClusterRole(std::string_view s) {
    for (int i = 0; i < kClusterRoles; ++i)
        if (clusterRoleName(ClusterRole(i)) == s) return ClusterRole(i);
    return std::nullopt;
}

/// A GM rebase of one task: every GM operand of the task's kernel whose region lies in
/// [begin, end) addresses `delta` bytes further for this task. One kernel text is then launched
/// by many tasks, each on its own rows and workspaces, as a real kernel is launched over blocks
/// with its block index (compiler/ir/PtoShare.h; docs/ARCHITECTURE.md "Kernels shared by
/// isomorphic tasks").
struct GmRebase {
    int64_t begin = 0, end = 0, delta = 0;
    friend bool operator==(const GmRebase&, const GmRebase&) = default;
};

struct Task {
    uint32_t id = 0;
    uint32_t block = 0; // block function (Block level) / kernel (PTO level) it runs
    CoreType core = CoreType::AIV;
    std::string name;
    /// Fused cube-vector kernels: the tasks of one cluster id run together on one AIC and its
    /// two AIVs (AIC c with AIV 2c and 2c+1), dispatched as one; kNoCluster = on its own.
    uint32_t cluster = kNoCluster;
    uint8_t sub = 0; ///< an AIV task of a cluster: which of the two AIVs (0 or 1)
    /// Sorted by begin, disjoint; empty = the kernel's GM addresses as written.
    std::vector<GmRebase> rebases{};

    ClusterRole role() const {
        return core == CoreType::AIC ? ClusterRole::Aic
                                     : (sub == 0 ? ClusterRole::Aiv0 : ClusterRole::Aiv1);
    }
};

enum class DepKind : uint8_t { Raw, War, Waw };

struct TaskDep {
    uint32_t from = 0;
    uint32_t to = 0;
    DepKind kind = DepKind::Raw;
    uint32_t tensor = UINT32_MAX; // GM tensor index that carries the dependency
};

struct ExecGraph {
    std::vector<Task> tasks;
    std::vector<TaskDep> deps;
};

} // namespace pto
