// Running a few independent compiles at once: the probes of a loop window or of fused clusters.
#pragma once

#include <cstdint>
#include <functional>

namespace pto {

// Calls fn(i) for every i in [0, n), at most `threads` at a time (the calling thread is one of
// them), and returns when all have returned. If some threw, the exception of the lowest i is
// rethrown, so the outcome does not depend on the order the threads ran in.
void forEachConcurrently(int64_t n, unsigned threads, const std::function<void(int64_t)>& fn);

// How many probe compiles run at once: the machine's cores, at most `wanted`.
unsigned probeThreads(unsigned wanted);

} // namespace pto
