// Bound class per task and per Tensor op: compute, memory or latency bound, and for latency
// what caused it — msprof / MindStudio Insight's rule (docs/PROFILER.md).
#pragma once

#include "profiler/RunModel.h"
#include "profiler/analyses/PipeUtil.h"
#include "profiler/analyses/Roofline.h"

#include <string>
#include <vector>

namespace pto::prof {

/// Unknown: a simulated run traced at --trace tasks below the roof threshold — without its
/// instructions' pipe busy time the rule cannot tell compute from latency. None: nothing ran
/// (RunModel::executed), so there is nothing to classify.
enum class BoundClass { Compute, Memory, Latency, Unknown, None };
enum class LatencyCause { None, Pipeline, Compute, Memory };
std::string_view boundName(BoundClass c);
std::string_view causeName(LatencyCause c);

struct BoundVerdict {
    BoundClass cls = BoundClass::Latency;
    LatencyCause cause = LatencyCause::None;
    PipeId busiestPipe = PipeId::S;
    double busiestRatio = 0;
    double roofFraction = 0;
    /// Why the class is Unknown: the pipe times the rule needs are not in the trace.
    std::string_view unknownWhy = "no pipe times at --trace tasks";
    std::string label() const; ///< "memory", "latency (pipeline)", …
    /// Why a compute class stands below the roof: "V 82% busy, the unit saturated" (the point
    /// sits under the roofline, the header says compute); "" otherwise.
    std::string reason() const;
};

struct Bound {
    std::vector<BoundVerdict> tasks;     ///< parallel to RunModel::tasks
    std::vector<BoundVerdict> tensorOps; ///< parallel to RunModel::tensorOps
};

/// Achieved ≥ kRoofThreshold of the roof at the entity's intensity → compute or memory bound
/// by the roof's region; else the cube (M) or vector (V) pipe busy ≥ kPipeThreshold → compute
/// bound (the unit is saturated at its instructions' real throughput); otherwise latency
/// bound: "pipeline" if no pipe is ≥ kPipeThreshold busy, else "compute" (S busiest) or
/// "memory" (an MTE or FIX busiest).
inline constexpr double kRoofThreshold = 0.8;
inline constexpr double kPipeThreshold = 0.8;

BoundVerdict classify(const RooflinePoint& point, const std::array<double, kPipeCount>& ratios);
/// A measured kernel (no FLOP or byte counts, so no roof): the same pipe threshold decides —
/// M or V ≥ kPipeThreshold compute, an MTE or FIX pipe ≥ kPipeThreshold memory (the evidence
/// the roof gives a simulated run), S ≥ kPipeThreshold latency (compute), else latency
/// (pipeline).
BoundVerdict classifyMeasured(const std::array<double, kPipeCount>& ratios);
/// `v` as the verdict of a simulated run traced at --trace tasks, whose pipes have no busy
/// times (all read 0): a latency class, which only says no pipe was busy, becomes Unknown;
/// compute or memory by the roof stands.
BoundVerdict withoutPipeTimes(BoundVerdict v);
/// Busy cycles per pipe (PipeId order) and active cycles of one core type's tasks.
struct CoreTypeBusy {
    std::array<std::int64_t, kPipeCount> busy{};
    std::int64_t active = 0;
};
/// A whole run: `point` against the cores it used, and per pipe the busiest core type's ratio
/// (an AIC pipe and the same-named AIV pipe are different hardware, so they are not pooled).
/// `pto report` and `pto tune` both classify runs with it.
BoundVerdict classifyRunTotals(const RooflinePoint& point, const CoreTypeBusy& aic,
                               const CoreTypeBusy& aiv);
Bound analyzeBound(const RunModel& model, const PipeUtil& util, const Roofline& roofline);
void appendMetrics(const Bound& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
