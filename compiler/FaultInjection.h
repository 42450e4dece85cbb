// Planting a known defect into a compile, to test the numerical debugger (`pto diff --bisect`):
// a debug option of the compiler (CompileOptions::fault) applied by the pass manager right
// after the pass the defect belongs to.
#pragma once

// The kinds (each picks its N-th candidate, in a deterministic order; docs/VALIDATE.md):
//   drop-sync          after insert-sync: remove the N-th wait_flag whose producer pipe is
//                      MTE2 (a GM load) together with the set_flag it pairs with, so the
//                      consumer reads its buffer before the load has landed.
//   shift-tile-offset  after expand-tiles: move the N-th tload down by one row of its GM tensor
//                      (up by one when it sits on the last row); after every such candidate,
//                      the tloads that cover all rows but not all columns move by one column.
//   truncate-cast      after expand-tiles: round = "trunc" on the N-th cast tile whose operand
//                      is f32 and result f16 (instead of the default RNE).
//   reuse-live-buffer  after allocate-buffers: give the N-th buffer that is defined while
//                      another buffer of its block and space is still to be read the address of
//                      that buffer, so it overwrites live data.
//   drop-cross-wait    after emit-pto (or on a loaded PTO listing): remove the N-th
//                      CROSS_WAIT_FLAG (kernels in order), so a core of a fused cluster reads
//                      a hand-off workspace before its peer has filled it, or refills it before
//                      its peer has read it.
//   tail-tile-mask     after expand-tiles: the N-th tload of the last row tile of a tensor
//                      (when there are several) reads the tile before it instead, as a tail
//                      loop with a wrong pointer or mask would: only the tail tile is wrong.
//   wrong-scale        after expand-tiles: the N-th muls/divs tile gets twice its scalar, so
//                      that tile's result is off by a constant factor.
// The Tile interpreter sees the Tile-level faults; the two Block-level ones only change what
// the simulator computes. The enum is not called FaultKind because pto::FaultKind is the
// simulator's (simulator/numerics/SimFault.h) and both headers meet in the CLI.

#include "compiler/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto {

struct CompileState;

enum class InjectedFault : uint8_t {
    None,
    DropSync,
    ShiftTileOffset,
    TruncateCast,
    ReuseLiveBuffer,
    DropCrossWait,
    TailTileMask,
    WrongScale
};

struct FaultSpec {
    InjectedFault kind = InjectedFault::None;
    int index = 0; // which candidate (0 = the first)
    bool active() const { return kind != InjectedFault::None; }
};

// "drop-sync", "shift-tile-offset", "truncate-cast", "reuse-live-buffer", "drop-cross-wait",
// "tail-tile-mask", "wrong-scale" ("none").
std::string_view injectedFaultName(InjectedFault kind);
// Every kind's name, for messages and help: "drop-sync, shift-tile-offset, …, wrong-scale".
std::string faultKindNames();
// The pass after which the fault is planted.
std::string_view faultPass(InjectedFault kind);
// "KIND" or "KIND:N"; throws std::invalid_argument listing the kinds.
FaultSpec parseFaultSpec(std::string_view text);

// What was planted: the pass it follows, the Tile-stage op whose result it corrupts (the
// tload or cast changed; the consumer that lost its wait; the reader of the overwritten
// buffer), and a sentence.
struct PlantedFault {
    FaultSpec spec;
    std::string pass;
    OpId tileOp = kNoId;
    uint32_t block = UINT32_MAX; // block function (Block-level faults)
    std::string description;
};

// Plants `spec` into `state` (which must be at the level right after faultPass(spec.kind)).
// Throws std::invalid_argument naming the kind and the number of candidates when there is no
// N-th candidate.
PlantedFault injectFault(CompileState& state, const FaultSpec& spec);

} // namespace pto
