// Speed of the Tile → PTO chain on a 4096³ f16 matmul (~230k tile ops), each pass timed.
#include "LoweringTestUtil.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/EmitPto.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/OrderInstructions.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

namespace pto::test {
namespace {

class Stopwatch {
public:
    double lap() {
        auto now = std::chrono::steady_clock::now();
        double ms = std::chrono::duration<double, std::milli>(now - m_last).count();
        m_last = now;
        return ms;
    }

private:
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

TEST(LoweringPerf, Matmul4096Cubed) {
    Function f = matmulProgram(4096, 4096, 4096);
    const size_t tileOps = f.ops().size();
    Stopwatch clock;
    BlockProgram p = partitionBlocks(std::move(f), {});
    double partition = clock.lap();
    orderInstructions(p);
    double order = clock.lap();
    allocateBuffers(p, TargetInfo{}, "matmul.pto");
    double alloc = clock.lap();
    insertSync(p);
    double sync = clock.lap();
    ExecGraph exec = buildExecGraph(p);
    double graph = clock.lap();
    PtoProgram pto = emitPto(p, exec);
    double emit = clock.lap();
    size_t instrs = 0;
    for (const Kernel& k : pto.kernels) instrs += k.instrs.size();
    const double total = partition + order + alloc + sync + graph + emit;
    std::printf("4096^3 matmul: %zu tile ops, %zu blocks, %zu instructions\n"
                "  partition %.1f ms, order %.1f ms, allocate %.1f ms, sync %.1f ms, exec %.1f ms, "
                "emit %.1f ms; total %.1f ms\n",
                tileOps, p.blocks.size(), instrs, partition, order, alloc, sync, graph, emit,
                total);
    EXPECT_EQ(p.blocks.size(), 24u);
    EXPECT_TRUE(p.notes.empty());
    RecordProperty("total_ms", std::to_string(total)); // speed lives in bench/
}

} // namespace
} // namespace pto::test
