// Loop labels in a trace, read back: node attrs to "kv, iter 7", the user's loops told from the
// compiler's counted loops, and the provenance walk from an unrolled op to its loop body op.
#include "profiler/LoopLabels.h"
#include "profiler/Provenance.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>

namespace pto::prof {
namespace {

TEST(LoopLabels, ReadTheAttrsAsTheRecorderWritesThem) {
    EXPECT_EQ(loopLabelOfAttrs(R"({"loop":"kv","iter":[7]})"), "kv, iter 7");
    EXPECT_EQ(loopLabelOfAttrs(R"({"axis":2,"loop":"outer/inner","iter":[1,3]})"),
              "outer/inner, iter 1/3");
    // A fill of -inf in a loop body: not JSON, and still labelled.
    EXPECT_EQ(loopLabelOfAttrs(R"({"value":-inf,"loop":"kv","iter":[0]})"), "kv, iter 0");
    EXPECT_EQ(loopLabelOfAttrs(R"({"lower":0,"upper":4,"step":1,"name":"kv"})"), "");
    EXPECT_EQ(loopLabelOfAttrs(""), "");
    EXPECT_EQ(loopNameOfAttrs(R"({"loop":"kv","iter":[7]})"), "kv");
    // A name with quotes and backslashes is read whole (it was cut at its first quote: "=k\").
    EXPECT_EQ(loopLabelOfAttrs(R"({"loop":"=k\"v\" <b>\\","iter":[2]})"), "=k\"v\" <b>\\, iter 2");
    EXPECT_EQ(loopNameOfAttrs(R"({"loop":"=k\"v\""})"), "=k\"v\"");
}

TEST(LoopLabels, TellTheCompilersCountedLoopsFromTheUsers) {
    EXPECT_EQ(loopNameOfLabel("kv, iter 7"), "kv");
    EXPECT_EQ(loopNameOfLabel("tiles, round 2 of 3"), "tiles");
    EXPECT_EQ(loopNameOfLabel("kv/matmul@22:11.k, iter 2/5"), "kv/matmul@22:11.k");
    for (const char* name : {"tiles", "matmul@22:11.k", "matmul@3:8.block", "kv/matmul@7:10.k"})
        EXPECT_TRUE(isCompilerLoopName(name)) << name;
    for (const char* name : {"kv", "for@16:3", "cols", "matmul", "matmul@x:1.k", "tiles2"})
        EXPECT_FALSE(isCompilerLoopName(name)) << name;
    // A round of the program's loop names the user's iteration; a compiler-made one does not.
    EXPECT_TRUE(isProgramLoopRound("kv, iter 7", "kv, iter 2"));
    EXPECT_TRUE(isProgramLoopRound("cols, iter 3", "")); // a hand-written listing
    EXPECT_FALSE(isProgramLoopRound("tiles, round 2 of 3", "kv, iter 0"));
    EXPECT_FALSE(isProgramLoopRound("kv/matmul@22:11.k, iter 2/5", "kv, iter 2"));
    EXPECT_FALSE(isProgramLoopRound("inner, iter 1", "outer, iter 0"));
}

TEST(LoopLabels, DescribeACompilerMadeRound) {
    EXPECT_NE(describeCompilerLoopRound("tiles, round 2 of 3").find("not one of the program"),
              std::string::npos);
    // A trace written before rounds were named says what its number is.
    EXPECT_NE(describeCompilerLoopRound("tiles, iter 5").find("rank of the tile's corner"),
              std::string::npos);
    EXPECT_EQ(describeCompilerLoopRound("kv/matmul@22:11.k, iter 2/5"),
              "K step 5 of the matmul at 22:11 (a loop the compiler made over its K blocks), in "
              "kv, iter 2");
    EXPECT_EQ(describeCompilerLoopRound("matmul@3:8.block, iter 7"),
              "output block 7 of the matmul at 3:8 (a loop the compiler made over its output "
              "blocks)");
    EXPECT_EQ(describeCompilerLoopRound("kv, iter 7"), "");
}

// Stage 1 (parsed): a `for` (4) and an op after it (5). Stage 2 (unroll-loops): the body's
// matmul written out twice (10, 20), both made from the loop, and the op after it (30).
// Stage 3 (Tile): a tload and a matmul per iteration, and the tile of the op after the loop.
void writeUnrolledLoop(const std::filesystem::path& path) {
    using tracedb::NodeRow;
    using tracedb::StageLevel;
    using tracedb::StageRow;
    auto writer = tracedb::TraceWriter::create(path);
    writer.add(StageRow{.id = 1, .ord = 1, .name = "tensor.parse", .level = StageLevel::Tensor});
    writer.add(StageRow{.id = 2,
                        .ord = 2,
                        .name = "tensor.unroll-loops",
                        .level = StageLevel::Tensor,
                        .parentStageId = 1});
    writer.add(StageRow{
        .id = 3, .ord = 3, .name = "tile.expand", .level = StageLevel::Tile, .parentStageId = 2});
    writer.add(NodeRow{.stageId = 1, .id = 4, .kind = "for", .attrs = R"({"name":"kv"})"});
    writer.add(NodeRow{.stageId = 1, .id = 5, .kind = "exp"});
    writer.add(NodeRow{.stageId = 2,
                       .id = 10,
                       .kind = "matmul",
                       .attrs = R"({"loop":"kv","iter":[0]})",
                       .parentId = 4});
    writer.add(NodeRow{.stageId = 2,
                       .id = 20,
                       .kind = "matmul",
                       .attrs = R"({"loop":"kv","iter":[1]})",
                       .parentId = 4});
    writer.add(NodeRow{.stageId = 2, .id = 30, .kind = "exp", .parentId = 5});
    writer.add(NodeRow{.stageId = 3, .id = 100, .kind = "tload", .parentId = 10});
    writer.add(NodeRow{.stageId = 3, .id = 101, .kind = "matmul", .parentId = 20});
    writer.add(NodeRow{.stageId = 3, .id = 102, .kind = "exp", .parentId = 30});
    writer.commit();
}

TEST(LoopBody, AnUnrolledOpLeadsToItsBodyOpAndItsLoop) {
    test::TempDir dir;
    const auto path = dir / "unrolled.db";
    writeUnrolledLoop(path);
    auto reader = tracedb::TraceReader::open(path);
    ProvenanceResolver provenance(reader);
    EXPECT_EQ(provenance.rootOf(3, 100), 4); // the root is the loop, as before
    EXPECT_EQ(provenance.loopBodyOf(3, 100), (NodeRef{2, 10}));
    EXPECT_EQ(provenance.loopBodyOf(3, 101), (NodeRef{2, 20}));
    EXPECT_EQ(provenance.loopBodyOf(2, 20), (NodeRef{2, 20}));
    EXPECT_EQ(provenance.loopBodyOf(3, 102), std::nullopt);     // after the loop
    EXPECT_EQ(provenance.loopBodyOf(1, 4), std::nullopt);       // the loop itself
    EXPECT_EQ(provenance.loopBodyOf(3, 100), (NodeRef{2, 10})); // memoized: the same answer
    EXPECT_EQ(provenance.loopBodyOf(3, 999), std::nullopt);     // no such node
}

} // namespace
} // namespace pto::prof
