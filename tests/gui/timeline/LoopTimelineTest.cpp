// Loop names downstream (issue 15): a slice executed for iteration 7 of a loop shows the loop
// and "iter 7" in the timeline's details and links to its source line; the graph view's node
// labels of the Tile stage name the loop and iteration. The trace is made by the real `pto run`
// with the trip count bound on the command line.
#include "gui/model/GraphStage.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"
#include "trace_db/TraceReader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto::gui {
namespace {

// Eight blocks of 128 columns (the trip count bound at run time, --bind t=8); line 9 is the
// exp of the block.
constexpr const char* kProgram = R"(// online row sums over %t blocks
func @main(%x: tensor<16x1024xf32>, %t: index) -> tensor<16x1xf32> {
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %r = for "kv" %i = 0 to %t step 1 iter_args(%l = %l0) {
    %b = view %x {offsets = [0, %i * 128], sizes = [16, 128], clip}
    %m = reduce_max %b {axis = 1, keepdim}
    %d = sub %b, %m
    %ln = add %l, (reduce_sum (exp %d) {axis = 1, keepdim})
    yield %ln
  }
  return %r
}
)";

TEST(LoopTimeline, ASliceOfIteration7ShowsItsLoopAndLinksToItsSourceLine) {
    const auto trace = test::programTrace("loop_iter7", kProgram, "--trace full --bind t=8");
    ShownTimeline shown(trace, {1400, 760});
    StudioContext& context = shown.context;
    TimelineView& view = shown.view;
    const tracedb::TraceReader& reader = context.document()->reader();
    // A slice of the exp of iteration 7 of loop "kv": its instruction was emitted for a tile op
    // of iteration 7, or it ran in round "kv, iter 7" of a counted loop (its `loop` arg).
    const auto rows = reader
                          .query("SELECT s.id, s.track_id, s.ts, s.dur, s.depth, s.instr_id, "
                                 "n.src_line FROM slice s JOIN instr i ON i.id = s.instr_id "
                                 "JOIN node n ON n.stage_id = i.tile_stage_id AND n.id = "
                                 "i.tile_op_id LEFT JOIN args a ON a.arg_set_id = "
                                 "s.arg_set_id AND a.key = 'loop' WHERE s.category = 'instr' "
                                 "AND n.kind = 'exp' AND (a.string_value = 'kv, iter 7' OR "
                                 "(a.string_value IS NULL AND n.attrs LIKE "
                                 "'%\"loop\":\"kv\"%' AND n.attrs LIKE '%\"iter\":[7]%')) "
                                 "ORDER BY s.ts LIMIT 1")
                          .rows;
    ASSERT_EQ(rows.size(), 1u) << "no slice of iteration 7 in the trace";
    auto v = [&](int i) { return std::get<std::int64_t>(rows[0][std::size_t(i)]); };
    EXPECT_EQ(v(6), 8); // the exp of the body, where it was written
    TimelineCanvas& canvas = view.canvas();
    canvas.viewport().reveal(v(2), v(2) + v(3));
    canvas.scrollToTrack(view.tracks().indexOfTrackId(v(1)));
    const auto point = canvas.pointOf(v(1), v(2), v(3), int(v(4)));
    ASSERT_TRUE(point);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    EXPECT_EQ(context.selection().current(), EntityRef::slice(v(0)));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.detailsLoading(); }, 30000));
    const QString loop = view.details().value(QStringLiteral("Loop"));
    EXPECT_EQ(loop, QStringLiteral("kv, iter 7")) << loop.toStdString();
    const QString line = view.details().value(QStringLiteral("Source line"));
    EXPECT_TRUE(line.startsWith(QStringLiteral("8: %ln = add %l, (reduce_sum (exp %d)")))
        << line.toStdString();
    // The slice leads to the Tensor op the user wrote (the one in the loop body, line 8).
    LinkResolver links(reader);
    EXPECT_GE(links.tensorOpOfInstr(v(5)), 0);
    test::saveScreenshot(view, "timeline_loop_iter7");

    // The graph view's labels of the Tile stage name the loop and the iteration (the exp of
    // iteration 7 in the stage the slice's instruction came from).
    const auto stage = reader
                           .query("SELECT n.stage_id, n.id FROM instr i JOIN node n ON "
                                  "n.stage_id = i.tile_stage_id WHERE n.kind = 'exp' AND "
                                  "n.attrs LIKE '%\"iter\":[7]%' AND i.id = " +
                                  std::to_string(v(5)) + " LIMIT 1")
                           .rows.at(0);
    GraphStage g = loadGraphStage(reader, std::get<std::int64_t>(stage[0]));
    const int index = g.indexOf(std::get<std::int64_t>(stage[1]));
    ASSERT_GE(index, 0);
    const std::string label = nodeLabel(g, g.nodes[std::size_t(index)]);
    EXPECT_NE(label.find("kv, iter 7"), std::string::npos) << label;
}

// A slice that ran in round "kv, iter 10" of a counted loop (emit-pto folded the vector
// kernels' iterations 2..17 of loop_attention_24.pto): one instruction serves every round, so the
// details take the iteration from the slice and the source line from the instruction's op.
TEST(LoopTimeline, ASliceOfACountedLoopNamesItsRoundsIteration) {
    std::ifstream in(PTO_SOURCE_DIR "/tests/integration/run/programs/loop_attention_24.pto");
    std::ostringstream text;
    text << in.rdbuf();
    const auto trace = test::programTrace("loop_counted", text.str(), "--trace instructions");
    ShownTimeline shown(trace, {1400, 760});
    StudioContext& context = shown.context;
    TimelineView& view = shown.view;
    const tracedb::TraceReader& reader = context.document()->reader();
    const auto rows = reader
                          .query("SELECT s.id, s.track_id, s.ts, s.dur, s.depth FROM slice s "
                                 "JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key = 'loop' "
                                 "JOIN instr i ON i.id = s.instr_id WHERE a.string_value = "
                                 "'kv, iter 10' AND i.opcode = 'TEXP' ORDER BY s.ts LIMIT 1")
                          .rows;
    ASSERT_EQ(rows.size(), 1u) << "no slice of round 'kv, iter 10'";
    auto v = [&](int i) { return std::get<std::int64_t>(rows[0][std::size_t(i)]); };
    TimelineCanvas& canvas = view.canvas();
    canvas.viewport().reveal(v(2), v(2) + v(3));
    canvas.scrollToTrack(view.tracks().indexOfTrackId(v(1)));
    const auto point = canvas.pointOf(v(1), v(2), v(3), int(v(4)));
    ASSERT_TRUE(point);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    EXPECT_EQ(context.selection().current(), EntityRef::slice(v(0)));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.detailsLoading(); }, 30000));
    EXPECT_EQ(view.details().value(QStringLiteral("Loop")), QStringLiteral("kv, iter 10"));
    const QString line = view.details().value(QStringLiteral("Source line"));
    EXPECT_TRUE(line.contains(QStringLiteral("%p = exp (sub %s, %mj)"))) << line.toStdString();
}

// The details of `slice`: (field, value) rows in order.
std::vector<DetailRow> detailsOf(const tracedb::TraceReader& reader, std::int64_t slice) {
    LinkResolver links(reader);
    return TimelineDetailsModel::read(reader, links, slice, 0).rows;
}

std::ptrdiff_t rowIndex(const std::vector<DetailRow>& rows, const QString& field) {
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].field == field) return std::ptrdiff_t(i);
    return -1;
}

// A matmul's K steps inside the program's loop "kv" become a counted loop the compiler made,
// "kv/matmul@7:10.k": a slice of K step s in iteration 3 shows the user's loop first ("kv, iter
// 3", as a program without the K-step loop would), then the compiler's round, explained.
TEST(LoopTimeline, AKStepRoundInIteration3ShowsTheSourceLoopFirst) {
    const auto trace = test::programTrace(
        "loop_ksteps",
        R"(func @heads(%a: tensor<4x128x4096xf16>, %b: tensor<4096x256xf16>) -> tensor<128x256xf32> {
  cube_tile [128, 128], [64, 256], [256, 256]
  %z = fill {value = 0.0} : tensor<128x256xf32>
  %r:1 = for "kv" %h = 0 to 4 step 1 iter_args(%acc = %z) {
    %ah = view %a {offsets = [%h, 0, 0], sizes = [1, 128, 4096]}
    %a2 = reshape %ah : tensor<128x4096xf16>
    %p = matmul %a2, %b
    %acc1 = add %acc, %p
    yield %acc1
  }
  return %r#0
}
)",
        "--trace instructions");
    const auto reader = tracedb::TraceReader::open(trace);
    const auto rows = reader
                          .query("SELECT s.id, a.string_value FROM slice s JOIN args a ON "
                                 "a.arg_set_id = s.arg_set_id AND a.key = 'loop' WHERE "
                                 "a.string_value LIKE 'kv/matmul@7:10.k, iter 3/%' ORDER BY s.ts "
                                 "LIMIT 1")
                          .rows;
    ASSERT_EQ(rows.size(), 1u) << "no K-step round of iteration 3";
    const std::vector<DetailRow> details = detailsOf(reader, std::get<std::int64_t>(rows[0][0]));
    const auto loop = rowIndex(details, QStringLiteral("Loop"));
    const auto counted = rowIndex(details, QStringLiteral("Counted loop"));
    ASSERT_GE(loop, 0);
    ASSERT_GT(counted, loop); // the user's loop first
    EXPECT_EQ(details[std::size_t(loop)].value, QStringLiteral("kv, iter 3"));
    const QString round = details[std::size_t(counted)].value;
    const QString label = QString::fromStdString(std::get<std::string>(rows[0][1]));
    EXPECT_TRUE(round.startsWith(label)) << round.toStdString();
    EXPECT_TRUE(round.contains(QStringLiteral("of the matmul at 7:10"))) << round.toStdString();
    EXPECT_TRUE(
        details[std::size_t(rowIndex(details, QStringLiteral("Source line")))].value.startsWith(
            QStringLiteral("7: ")));
}

// flash_attention_loop: the tiles a vector kernel streams outside the user's ops' own tiling
// (the loads of %m for the first block) are a loop the compiler made, whose rounds are named
// "tiles, round R of N"; the details name the user's loop iteration of the op first.
TEST(LoopTimeline, ATilesRoundShowsTheSourceLoopFirstAndItsRound) {
    const auto trace = test::sampleTrace("flash_attention_loop");
    const auto reader = tracedb::TraceReader::open(trace);
    const auto rows = reader
                          .query("SELECT s.id, a.string_value FROM slice s JOIN args a ON "
                                 "a.arg_set_id = s.arg_set_id AND a.key = 'loop' WHERE "
                                 "a.string_value LIKE 'tiles, %' ORDER BY s.ts LIMIT 1")
                          .rows;
    ASSERT_EQ(rows.size(), 1u) << "no round of a tiles loop";
    const QString label = QString::fromStdString(std::get<std::string>(rows[0][1]));
    EXPECT_TRUE(QRegularExpression(QStringLiteral("^tiles, round [0-9]+ of [0-9]+$"))
                    .match(label)
                    .hasMatch())
        << label.toStdString();
    const std::vector<DetailRow> details = detailsOf(reader, std::get<std::int64_t>(rows[0][0]));
    const auto loop = rowIndex(details, QStringLiteral("Loop"));
    const auto counted = rowIndex(details, QStringLiteral("Counted loop"));
    ASSERT_GE(loop, 0);
    ASSERT_GT(counted, loop);
    EXPECT_TRUE(details[std::size_t(loop)].value.startsWith(QStringLiteral("kv, iter ")))
        << details[std::size_t(loop)].value.toStdString();
    EXPECT_TRUE(details[std::size_t(counted)].value.startsWith(label));
    EXPECT_TRUE(
        details[std::size_t(counted)].value.contains(QStringLiteral("not one of the program")));
}

} // namespace
} // namespace pto::gui
