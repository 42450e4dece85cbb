// Bisection of a Tile-level program (a hand-written kernel): it returns nothing, so what it is
// judged by is what it stores into its arguments, compared stage by stage and after the
// simulator with the parsed program's interpretation.
#pragma once

#include "compiler/interp/TensorInterpreter.h"
#include "driver/Bisect.h"
#include "simulator/engine/SimResult.h"

#include <vector>

namespace pto {

// The arguments of `fn` that a tstore or tscatter_add writes, by argument index.
std::vector<size_t> writtenArgs(const Function& fn);

// A Tile stage `fn` (evaluated to `got`, GM values kept) against the reference `ref` (the
// parsed program, evaluated to `reference`): the final contents of each written argument.
void compareKernelStage(const Function& fn, const EvalResult& got, const Function& ref,
                        const EvalResult& reference, const ComparePolicy& policy, StageResult& out);

// The simulator: the run's outputs named as the written arguments of `ref` (role inout) against
// their contents in `reference`; each goes into report.outputs and is counted in `out`.
void compareKernelOutputs(const Function& ref, const EvalResult& reference,
                          const sim::SimResult& sim, const ComparePolicy& policy, StageResult& out,
                          BisectReport& report);

} // namespace pto
