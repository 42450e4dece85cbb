// The Exec level: the task graph the device scheduler consumes. A task is one call of a
// block function on one core of its type; dependencies come from GM regions one task writes
// and another reads (or overwrites).
#pragma once

#include "compiler/ir/Hardware.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto {

struct Task {
    uint32_t id = 0;
    uint32_t block = 0; // block function (Block level) / kernel (PTO level) it runs
    CoreType core = CoreType::AIV;
    std::string name;
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
