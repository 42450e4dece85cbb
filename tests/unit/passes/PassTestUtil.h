// Helpers for the Tensor-level and Tensor → Tile pass tests: parsing, running passes the way
// the pass manager does (link provenance before, renumber after), op counting, random inputs
// and tolerance comparison of interpreter outputs.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"
#include "compiler/ir/TensorData.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pto::test {

inline const std::string kFile = "test.pto";

// Whether the shared Tile verifier (ShapeInference) accepts all of the Tile contract. Today it
// rejects two things the contract allows and the Tile interpreter implements: a 2-D tile of a
// GM tensor of another rank (consecutive rows), and tstore of an f32 L0C accumulator into an
// f16/bf16 GM tensor (FIX rounds). Tests that need them pass this as `verify`; set it to true
// once the verifier follows the contract.
inline constexpr bool kVerifierAcceptsContract = false;

// Parses (and verifies) one Tensor- or Tile-level function.
Function parse(std::string_view text);

// Runs `pass` as the pass manager does: linkToPreviousStage() before, renumber() after.
void runPass(Function& f, const std::function<void(Function&)>& pass);

// decompose-composites, fold-constants, dead-code (each verified afterwards).
Function runTensorPasses(Function f);

enum class TileStage { Expanded, Assigned, Copied };
// Tensor passes, then expand-tiles [→ assign-memory [→ insert-copies → dead-code]]. With
// `verify`, the Tile verifier checks every stage.
Function lowerToTile(const Function& tensor, TileStage stop = TileStage::Copied,
                     const TargetInfo& target = {}, bool verify = true);

int countOps(const Function& f, OpKind kind);
int countTiles(const Function& f, MemSpace space);

// Random inputs for every argument (floats uniform in [lo, hi)).
std::vector<TensorData> randomInputs(const Function& f, uint64_t seed, double lo = -1.0,
                                     double hi = 1.0);

// Empty when |got − want| ≤ atol + rtol·|want| everywhere; else the first mismatches.
std::string compare(const TensorData& got, const TensorData& want, double rtol, double atol);

// The Tensor-stage op an op of a later stage derives from, following `parent` through the
// given chain of stages (the last stage first). kNoId if the chain breaks.
OpId rootOf(OpId op, const std::vector<const Function*>& stagesNewestFirst);

} // namespace pto::test
