// The run model of a measured trace (`pto import`, meta trace_source = measured): each device
// kernel is a task whose pipe busy time is its measured pipe ratio × its duration, so the
// pipe-utilisation and bound analyses read the profiler's own ratios back (docs/PROFILER.md,
// "Measured traces").
#pragma once

#include "profiler/RunModel.h"

namespace pto::prof {

/// True when the trace was imported from a real profiler.
bool isMeasuredTrace(const tracedb::TraceReader& reader);

/// Names each task after its kernel and sets its pipe busy cycles from the kernel's measured
/// ratio args (aic_mac_ratio → M, aic_mte2_ratio / aiv_mte2_ratio → MTE2, aiv_vec_ratio → V,
/// …; a pipe both core types report takes the larger ratio), and sets the run's time
/// (setMeasuredRunTime).
void loadMeasuredKernels(const tracedb::TraceReader& reader, RunModel& model);

/// The run of a measured trace is its kernels: RunModel::startCycle = the first kernel start,
/// totalCycles = from there to the last kernel end (called by loadMeasuredKernels). The file's
/// ts 0 is its earliest event of any kind — host ops and counters long before the first kernel.
void setMeasuredRunTime(RunModel& model);

/// The pipe a measured ratio arg stands for, or nullopt (miss rates, totals, other args).
std::optional<PipeId> pipeOfRatioKey(std::string_view key);

} // namespace pto::prof
