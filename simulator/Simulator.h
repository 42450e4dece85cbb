// The simulator's public entry point: run a PtoProgram on a described chip, functionally and
// with cycle timing, optionally writing the run into a trace file.
#pragma once

// simulate() prepares the program (TimedProgram: static checks, per-instruction costs),
// builds the functional executor over a GM image holding `inputs` (unless
// SimOptions::timingOnly), runs the discrete-event engine (simulator/engine/Engine.h) and
// returns the timing, the placement of every task and the output tensors. The model, every
// timing formula and what is an assumption: docs/SIMULATOR.md.
//
// Errors: SimFault (simulator/numerics/SimFault.h) for faults of the program — bad
// instructions, out-of-bounds operands, uninitialised reads, DeadlockFault for waits that can
// never be satisfied; SimLimitExceeded past SimOptions::maxCycles; ArchError for an invalid
// arch config; std::invalid_argument when `inputs` do not match the program's input tensors.
// A run that faults after tracing started still finishes its trace (meta 'sim_fault' holds the
// message) so the timeline up to the fault can be inspected; the caller decides whether to
// commit it.

#include "compiler/ir/Pto.h"
#include "compiler/ir/TensorData.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/engine/Cycles.h"
#include "simulator/engine/Deadlock.h"
#include "simulator/engine/SimOptions.h"
#include "simulator/engine/SimResult.h"
#include "trace_db/TraceWriter.h"

#include <span>

namespace pto::sim {

/// Simulates `program` on `arch`. `inputs` are the tensors of role Input in GM-table order
/// (ignored when timing only). With `trace` (and a trace level other than None) the run is
/// written into it; the caller commits the writer.
SimResult simulate(const PtoProgram& program, const ArchConfig& arch,
                   std::span<const TensorData> inputs, const SimOptions& options,
                   tracedb::TraceWriter* trace = nullptr);

/// What simulate writes into `trace` for a run without a traced timeline (trace level None):
/// the level, the total cycles (the fault's cycle after a fault) and the clock. For a caller
/// that simulated with no writer because the writer was busy meanwhile.
void recordUntracedRun(tracedb::TraceWriter& trace, const ArchConfig& arch,
                       std::int64_t totalCycles);

} // namespace pto::sim
