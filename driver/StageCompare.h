// The comparisons of bisection, one function per kind of stage: a Tensor stage against the
// reference, a Tile stage against the last Tensor stage, and the simulator's stored regions.
#pragma once

#include "compiler/CompileState.h"
#include "compiler/interp/TensorInterpreter.h"
#include "driver/Bisect.h"
#include "simulator/engine/SimResult.h"

#include <span>
#include <vector>

namespace pto {

// Op ids of `fn` mapped to the op of `previous` they derive from, through previousRoots:
// roots[i] = previousRoots[fn.op(i).parent] (kNoId when the parent is unknown).
std::vector<OpId> chainRoots(const Function& fn, std::span<const OpId> previousRoots);

// A Tensor stage: `fn` evaluated to `got`, its ops' roots in the reference function `ref`
// (evaluated to `refValues`).
void compareTensorStage(const Function& fn, std::span<const OpId> roots, const EvalResult& got,
                        const Function& ref, const EvalResult& refValues,
                        const ComparePolicy& policy, int tileLimit, StageResult& out);

// Each compare function fills the counts, `first` and up to `tileLimit` of the divergences of
// the first one's Tensor op in `tiles` (policy.threads is ignored: values are small).

// A Tile stage: `tile` evaluated to `got`; tiles are compared with regions of `tensorValues`,
// the evaluation of `tensor` (the last Tensor stage, whose values tiles name as origin).
void compareTileStage(const Function& tile, const EvalResult& got, const Function& tensor,
                      const EvalResult& tensorValues, const ComparePolicy& policy, int tileLimit,
                      StageResult& out);

// The simulator: the GM contents after the run (`gm`, by GM value of `state.block.tile`; empty
// TensorData for tensors it did not return) compared region by region with `tensorValues`.
void compareSimulatorStage(const CompileState& state, const std::vector<TensorData>& gm,
                           const sim::SimResult& sim, const EvalResult& tensorValues,
                           const ComparePolicy& policy, int tileLimit, StageResult& out);

} // namespace pto
