// Loop windows: a long loop lowered through a few iterations only, its PTO kernels' counted
// loops then stretched to the full trip count (issue 15 item 2, compile time independent of
// the trip count for loops whose lowering repeats).
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// The only top-level loop of `f` worth windowing: at least kMinWindowTrips iterations, a
// static trip count, no nested loop, no `call`, no matmul in its body (cube work of a loop
// lowers to tasks spread over the AICs, which do not repeat per iteration; docs/ARCHITECTURE.md
// "Loop windows" says what packing by iteration ranges would still need) and no clipped view
// (a partial last tile). nullptr when there is none or more than one loop.
inline constexpr int64_t kMinWindowTrips = 64;
const Op* windowableLoop(const Function& f);

// The name unroll-loops labels the loop's ops with ("kv", or "for@7:3" when unnamed).
std::string loopLabel(const Op& loop);

// How a windowed compile runs: `trips` is the loop's trip count as written, `windowTrips` the
// number of iterations unroll-loops copies (trips - windowTrips is a multiple of `period`), and
// `later` the PTO programs of the same compile at windowTrips + period and + 2·period (empty
// while those probes themselves are compiled).
struct LoopWindow {
    int64_t trips = 0;
    int64_t windowTrips = 0;
    int64_t period = 8;
    std::string loopName; // as unroll-loops labels its ops ("kv", or "for@7:3" unnamed)
    std::vector<PtoProgram> later;
};

// x + k·(y − x) when three probes one step apart agree linearly (z − y == y − x), without
// overflow; nullopt otherwise. Loop windows and cluster probes extend their probes with it.
std::optional<int64_t> linear(int64_t x, int64_t y, int64_t z, int64_t k);

// The window for `loop`: 24 to 31 iterations, congruent to trips modulo
// the period (8: double-buffer slots and round-robin event ids repeat within it).
LoopWindow loopWindowFor(const Op& loop);

// Sets the loop's upper bound so that it runs `trips` iterations.
void truncateLoop(Op& loop, int64_t trips);

// The program at `a`'s trip count plus `k` periods, from the compiles at three trip counts one
// period apart (a, b, c): every field must be equal in the three except operand addresses,
// loop round counts and loop first iterations, which must change by the same amount from a to
// b as from b to c (and are extended linearly); `a`'s provenance (tile ops, lines) is kept.
// The GM table may grow by the same number d of tensors from a to b and from b to c (one GM
// workspace per iteration of the loop): the tensors a, b and c share stay, k · d more follow
// them, each one period after the tensor d places before it (address and the name's number
// moved linearly: `ws40` → `ws42`…; no Tensor value), and a's remaining tensors (declared after
// the loop) move linearly; a dependency's carrying tensor index moves linearly too.
// nullopt when the three differ in any other way (then the loop is compiled in full).
std::optional<PtoProgram> extrapolateLoopWindow(const PtoProgram& a, const PtoProgram& b,
                                                const PtoProgram& c, int64_t k);

// The stretched program a windowed compile may use: extrapolateLoopWindow's, when it also passes
// the static sync check (compiler/ir/PtoSyncCheck.h). Three probes that agree linearly are
// evidence that the full lowering repeats, not proof: beyond the window it may need a wait the
// windows never did. nullopt otherwise, with `why` saying which step refused (`file` names the
// source in the sync check's message). It must also pass the PTO verifier against `target`:
// buffers that grow with the window (a value every iteration keeps live) can be stretched past
// the on-chip capacity although each window fits.
std::optional<PtoProgram> stretchCheckedLoopWindow(const PtoProgram& a, const PtoProgram& b,
                                                   const PtoProgram& c, int64_t k, std::string& why,
                                                   const std::string& file = {},
                                                   const TargetInfo& target = {});

// After extrapolation: the written-out iterations after a kernel's last counted loop of
// `loopName` are iterations `shift` later than their tile ops say; they become a one-round
// counted loop naming the right iterations (so every executed instruction names its own).
void relabelLoopEpilogue(PtoProgram& p, const Function& tile, const std::string& loopName,
                         int64_t shift);

} // namespace pto
