// Block level: set_flag / wait_flag between the pipes of each block function.
#pragma once

#include "compiler/ir/Block.h"

namespace pto {

// For every pair of items of a block on different pipes that touch the same bytes — on-chip
// buffers by address (RAW, WAR from buffer reuse, WAW) and GM regions of tensors the block
// writes — inserts set_flag(src→dst, event) right after the producer and wait_flag(src→dst,
// event) right before the consumer. Pipes: tload MTE2, tmove MTE1, matmul/matmul_acc M,
// tstore MTE3 (from UB) or FIX (from L0C), vector ops V. Same-pipe pairs need nothing (pipes
// run in order). Redundant flags are left out: each pipe keeps a vector clock of what it
// already waited for, transitively through other pipes. Event ids run round-robin 0..7 per
// (src, dst) pair (flags are counters: set increments, wait blocks until > 0 and decrements).
// No barriers are needed. Existing sync items are replaced; Buffer::firstUse/lastUse are
// renumbered to the new item positions. Needs allocate-buffers to have run.
void insertSync(BlockProgram& program);

} // namespace pto
