// Test helpers: small programs with known performance character, compiled and simulated into
// a trace file by the same session `pto run` uses.
#pragma once

#include "driver/Session.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pto::test {

struct TraceSpec {
    std::string program{}; // .pto text
    bool doubleBuffer = true;
    int tilesPerTask = 0;
    std::vector<std::string> overrides{}; // arch what-ifs
    sim::TraceLevel level = sim::TraceLevel::Full;
    bool timingOnly = false;
    bool shareKernels = false; // one kernel text for isomorphic tasks (--share-kernels on)
};

// Writes `spec.program` to dir/name.pto and runs it into dir/name.db; returns the run.
RunResult makeTrace(const std::filesystem::path& dir, const std::string& name,
                    const TraceSpec& spec);

// Programs used by several tests.
std::string elementwiseAddProgram();       // 1024x4096 f16 add: memory bound
std::string largeMatmulProgram();          // 256x4096x256 f16, 128x128x128 tiles
std::vector<std::string> fastMemoryArch(); // overrides making GM cheap enough to feed the cube
std::string
wideMatmulProgram(); // 768x4096x1024: 24 tasks, one per AIC; no finding with fastMemoryArch
std::string tinyTileMatmulProgram(); // 256^3 with 32x32x32 tiles: latency bound
std::string streamingProgram();      // exp*x over 64x8192, 8 tiles per task, 4 tasks

} // namespace pto::test
