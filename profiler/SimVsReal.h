// Simulation next to measurement (`pto compare SIM REAL --match`): pairs the Tensor ops of a
// simulated run with the device kernels of a measured trace (`pto import`) and puts their times
// and per-pipe busy ratios side by side (docs/PROFILER.md, "Simulation vs measurement").
#pragma once

#include "profiler/Profile.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace pto::prof {

/// How kernels are paired. `kernel` empty: every simulated Tensor op with the measured kernels
/// of the same op type (MatMulV2 ~ matmul, ReduceSum ~ reduce_sum, …). `kernel` set: the whole
/// simulated run with the measured kernels whose name or type is `kernel` (case-insensitive).
/// `outputShape` set ("32,4096"): only measured kernels whose first output has that shape.
struct MatchSpec {
    std::string kernel;
    std::string outputShape;
};

/// A --shape argument in the profiler files' spelling: "32,4096" from "32,4096", "32x4096",
/// "32, 4096" or "[32, 4096]"; nullopt unless it is one or more non-negative integers.
std::optional<std::string> parseShapeFilter(std::string_view text);

/// Busy fraction of each pipe over the kernel's time, averaged over the cores that ran it
/// (for measured kernels: the profiler's aic_*/aiv_* ratios, duration-weighted).
using PipeFractions = std::array<std::optional<double>, kPipeCount>;

struct KernelPair {
    std::string simOp;         ///< "matmul %c", or "run @main" when matching the whole run
    std::int64_t line = 0;     ///< source line of the simulated op (0 for the run)
    std::int64_t simOpId = -1; ///< its root-stage node id (-1 when matching the whole run)
    std::string realName;      ///< the most frequent name among the measured kernels
    std::string realType;      ///< their op type
    std::string outputShape;   ///< their first output's shape when all agree, else ""
    std::string matchedOn;     ///< "type, input shapes", "type, output shape", "type" or "name"
    int realCount = 0;         ///< measured kernels paired (0: none found)
    double realUs = 0;         ///< median duration of the measured kernels
    double simUs = 0;          ///< simulated span of the op (or the run)
    PipeFractions realPipes{}, simPipes{};
    bool simOnAic = false, simOnAiv = false; ///< the core types the simulated tasks ran on
    double ratio() const { return realUs > 0 ? simUs / realUs : 0; } ///< simulated ÷ measured
};

struct SimRealComparison {
    std::string mode;        ///< "type" or "kernel NAME"
    int measuredKernels = 0; ///< device kernels in the measured trace
    std::vector<KernelPair> pairs;
};

/// `sim` must be a simulated run and `real` a measured one; the op shapes and the measured
/// kernels' op types and shapes are read from the files. In type mode an op is paired with the
/// kernels of its type whose input shapes equal its operands' (as the measured input shapes
/// list them), else whose first output shape equals its result's, else all of its type.
/// Throws tracedb::TraceError for unreadable files.
SimRealComparison compareSimToReal(const Profile& sim, const std::string& simPath,
                                   const Profile& real, const std::string& realPath,
                                   const MatchSpec& spec);

/// The op-type key both sides are matched on: lower case, no '_', no trailing version
/// ("MatMulV2" → "matmul", "reduce_sum" → "reducesum"), plus a few aliases (RealDiv → div).
std::string opTypeKey(std::string_view type);

nlohmann::json simRealJson(const SimRealComparison& c, const std::string& simPath,
                           const std::string& realPath);
std::string simRealText(const SimRealComparison& c, const std::string& simPath,
                        const std::string& realPath);

} // namespace pto::prof
