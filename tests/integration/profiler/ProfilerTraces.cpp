// Small programs with known performance character, and the helper that traces them.
#include "tests/integration/profiler/ProfilerTraces.h"

#include <fstream>
#include <stdexcept>

namespace pto::test {

RunResult makeTrace(const std::filesystem::path& dir, const std::string& name,
                    const TraceSpec& spec) {
    auto program = dir / (name + ".pto");
    std::ofstream(program) << spec.program;
    RunOptions o;
    o.program = program.string();
    o.tracePath = (dir / (name + ".db")).string();
    o.compile.doubleBuffer = spec.doubleBuffer;
    o.compile.tilesPerTask = spec.tilesPerTask;
    if (spec.shareKernels) o.compile.shareKernels = ShareKernels::On;
    o.archOverrides = spec.overrides;
    o.sim.traceLevel = spec.level;
    o.sim.timingOnly = spec.timingOnly;
    RunResult r = runProgram(o);
    if (!r.faultMessage.empty()) throw std::runtime_error(r.faultMessage);
    return r;
}

std::string elementwiseAddProgram() {
    return R"(func @add(%a: tensor<1024x4096xf16>, %b: tensor<1024x4096xf16>) -> tensor<1024x4096xf16> {
  vec_tile [16, 1024]
  %c = add %a, %b
  return %c
}
)";
}

std::string largeMatmulProgram() {
    return R"(func @mm(%a: tensor<256x4096xf16>, %b: tensor<4096x256xf16>) -> tensor<256x256xf32> {
  cube_tile [128, 128], [128, 256], [128, 128]
  %c = matmul %a, %b
  return %c
}
)";
}

std::vector<std::string> fastMemoryArch() {
    // The default 910B-like model feeds one AIC at most 78.4 B/cycle (GM→L1) with a 500-cycle
    // latency per TLOAD on an in-order MTE2, which no tiling the L1 allocator accepts can hide
    // (intensity ≤ 64 FLOP/B needs 128 B/cycle); a chip with a faster memory system can.
    return {"dma.gm_to_l1.rate=4x", "hbm.bandwidth=4x", "l2.bandwidth=4x", "hbm.latency=50 cycles"};
}

std::string wideMatmulProgram() {
    return R"(func @mm(%a: tensor<768x4096xf16>, %b: tensor<4096x1024xf16>) -> tensor<768x1024xf32> {
  cube_tile [128, 128], [128, 256], [128, 128]
  %c = matmul %a, %b
  return %c
}
)";
}

std::string tinyTileMatmulProgram() {
    return R"(func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
  cube_tile [32, 32], [32, 32], [32, 32]
  %c = matmul %a, %b
  return %c
}
)";
}

std::string streamingProgram() {
    return R"(func @act(%x: tensor<64x8192xf16>) -> tensor<64x8192xf16> {
  vec_tile [16, 1024]
  %e = exp %x
  %y = mul %e, %x
  return %y
}
)";
}

} // namespace pto::test
