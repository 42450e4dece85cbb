// Readable text of the Block level (block functions with their buffers and items) and of the
// Exec level (tasks and dependencies). Print only: these levels are not parsed back.
#pragma once

// Example:
//
//   block_program @softmax double_buffer
//   block 0 @softmax.v0 aiv group 0 {
//     buffers
//       buf 0 UB [0x0, 0x8000) 32768 B items 0..3 slot 0 %t
//     items
//       0: %t = tload %x {offset = [0, 0]} : tile<16x1024xf16, UB>
//       1: set_flag MTE2 -> V, 0
//       2: wait_flag MTE2 -> V, 0
//       3: %u = exp %t
//   }
//
//   exec
//     task 0 @softmax.v0 aiv "softmax.0"
//     dep 0 -> 1 raw gm 2

#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"

#include <string>

namespace pto {

std::string printBlockProgram(const BlockProgram& program);

// Tasks name their block function when `program` has it.
std::string printExecGraph(const ExecGraph& graph, const BlockProgram& program);
std::string printExecGraph(const ExecGraph& graph);

} // namespace pto
