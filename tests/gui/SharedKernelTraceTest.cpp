// A trace of a program whose tasks share one kernel text (`--share-kernels on`) shows what each
// task did, as the same program's trace with every kernel written out (`--share-kernels off`)
// does: the graph overlay's cycles per block function and per task, the instruction details of
// a slice with that task's GM addresses, and the same links; a schema-3 copy of it as well.
#include "gui/model/GraphModel.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/PtoListing.h"
#include "gui/model/StageCompareModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/GraphTestSupport.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "tests/support/Schema3.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace pto::gui {
namespace {

// softmax: four vector tasks, one row tile each, isomorphic but for their GM rows.
std::filesystem::path sharedTrace() {
    return test::sampleTrace("softmax", "--share-kernels on --trace instructions");
}
std::filesystem::path writtenOutTrace() {
    return test::sampleTrace("softmax", "--share-kernels off --trace instructions");
}

// The shared trace as schema 3 wrote it: plain node and instr tables, no dict (the DDL of
// schema 3's schema.sql), in `dir`.
std::filesystem::path schema3Copy(const test::TempDir& dir) {
    const std::filesystem::path path = dir / "shared_v3.db";
    std::filesystem::copy_file(sharedTrace(), path);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* sql = test::kSchema3FromSchema4Sql;
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
    return path;
}

std::int64_t lastStageOf(const tracedb::TraceReader& reader, const char* level) {
    return test::sqlInt(reader, fmt::format("SELECT max(id) FROM stage WHERE level = '{}'", level));
}

// A graph view showing the last stage of `level` with an overlay: its values by node id.
std::map<std::int64_t, double> overlayOf(const std::filesystem::path& trace, const char* level,
                                         OverlayKind kind) {
    StudioContext context;
    context.setDocument(TraceDocument::open(trace));
    GraphView view(context);
    view.resize(900, 600);
    view.show();
    const std::int64_t stage = lastStageOf(context.document()->reader(), level);
    EXPECT_TRUE(view.selectStage(stage));
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            return view.isIdle() && view.currentStageId() == stage && view.canvas().itemCount();
        },
        60000));
    QSignalSpy ready(&view, &GraphView::overlayReady);
    view.setOverlay(kind);
    EXPECT_TRUE(!ready.isEmpty() || ready.wait(60000));
    std::map<std::int64_t, double> byNode;
    const auto& nodes = view.graphModel().stage().nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (!std::isnan(view.overlay().values[i])) byNode[nodes[i].id] = view.overlay().values[i];
    return byNode;
}

// Instruction cycles per block as the written-out trace's rows say (each kernel is its block's
// there): the independent reference.
std::map<std::int64_t, double> cyclesPerKernelRow(const std::filesystem::path& trace) {
    std::map<std::int64_t, double> out;
    const auto reader = tracedb::TraceReader::open(trace);
    for (const auto& row :
         reader
             .query("SELECT i.block_id, sum(s.dur) FROM slice s JOIN instr i ON i.id = "
                    "s.instr_id WHERE s.category = 'instr' GROUP BY 1")
             .rows)
        out[std::get<std::int64_t>(row[0])] = double(std::get<std::int64_t>(row[1]));
    return out;
}

TEST(SharedKernelOverlay, EveryBlockShowsTheCyclesOfItsOwnTasksAsWrittenOut) {
    {
        const auto reader = tracedb::TraceReader::open(sharedTrace());
        ASSERT_EQ(test::sqlInt(reader, "SELECT count(*) FROM node WHERE kind = 'kernel'"), 1);
        ASSERT_EQ(test::sqlInt(reader, "SELECT count(DISTINCT task_id) FROM slice WHERE "
                                       "category = 'instr'"),
                  4);
    }
    const auto want = cyclesPerKernelRow(writtenOutTrace());
    ASSERT_EQ(want.size(), 4u);
    const auto shared = overlayOf(sharedTrace(), "block", OverlayKind::Cycles);
    EXPECT_EQ(shared, want);
    EXPECT_EQ(overlayOf(writtenOutTrace(), "block", OverlayKind::Cycles), want);
    // Per task (the Exec stage): task b runs block b in both.
    EXPECT_EQ(overlayOf(sharedTrace(), "exec", OverlayKind::Cycles), want);
    // The one kernel text of the PTO stage carries every launch.
    double total = 0;
    for (const auto& [block, cycles] : want) total += cycles;
    EXPECT_EQ(overlayOf(sharedTrace(), "pto", OverlayKind::Cycles),
              (std::map<std::int64_t, double>{{0, total}}));
    // Every block has its bound class, as written out.
    EXPECT_EQ(overlayOf(sharedTrace(), "block", OverlayKind::Bound),
              overlayOf(writtenOutTrace(), "block", OverlayKind::Bound));
    EXPECT_EQ(overlayOf(sharedTrace(), "block", OverlayKind::Bound).size(), 4u);
}

// On the Tile stage the shared text's tile ops carry every launch (the trace keeps one text's
// ops), and the status line says so; a written-out trace has no such note.
TEST(SharedKernelOverlay, TheTileStageSaysItsOpsCarryEveryLaunch) {
    for (const auto& [trace, shared] :
         {std::pair{sharedTrace(), true}, {writtenOutTrace(), false}}) {
        StudioContext context;
        context.setDocument(TraceDocument::open(trace));
        GraphView view(context);
        view.resize(900, 600);
        view.show();
        ASSERT_TRUE(
            QTest::qWaitFor([&] { return view.isIdle() && view.canvas().itemCount(); }, 60000));
        QSignalSpy ready(&view, &GraphView::overlayReady);
        view.setOverlay(OverlayKind::Cycles);
        ASSERT_TRUE(!ready.isEmpty() || ready.wait(60000));
        ASSERT_TRUE(view.overlay().hasValues());
        EXPECT_EQ(view.overlay().note.contains(QStringLiteral("shared by several tasks")), shared);
        if (shared) {
            EXPECT_EQ(view.statusText(), view.overlay().note);
        }
    }
}

// A context with `trace` open in a shown timeline whose summary is ready.
struct Timeline {
    explicit Timeline(const std::filesystem::path& trace) {
        context.setDocument(TraceDocument::open(trace));
        view = std::make_unique<TimelineView>(context);
        view->resize(1200, 700);
        view->show();
        EXPECT_TRUE(QTest::qWaitFor([&] { return !view->loader().busy(); }, 20000));
    }
    const tracedb::TraceReader& reader() { return context.document()->reader(); }
    /// Selects slice `id` as another view would and waits for its details.
    const TimelineDetailsModel& details(std::int64_t id) {
        context.selection().select(EntityRef::slice(id), nullptr);
        EXPECT_TRUE(QTest::qWaitFor([&] { return !view->detailsLoading(); }, 30000));
        return view->details();
    }
    StudioContext context;
    std::unique_ptr<TimelineView> view;
};

std::int64_t sliceOf(const tracedb::TraceReader& reader, std::int64_t task, const char* opcode) {
    return test::sqlInt(reader, fmt::format("SELECT min(id) FROM slice_named WHERE category = "
                                            "'instr' AND task_id = {} AND name = '{}'",
                                            task, opcode));
}

// The written-out trace's operands of task `task`'s instruction `opcode` (its own kernel row).
std::string writtenOutOperands(std::int64_t task, const char* opcode) {
    const auto reader = tracedb::TraceReader::open(writtenOutTrace());
    const auto r = reader.query(fmt::format("SELECT i.operands FROM slice s JOIN instr i ON i.id = "
                                            "s.instr_id WHERE s.id = {}",
                                            sliceOf(reader, task, opcode)));
    return std::get<std::string>(r.rows.at(0).at(0));
}

void expectTasksAddresses(const std::filesystem::path& trace) {
    Timeline t(trace);
    for (const char* opcode : {"TLOAD", "TSTORE"}) {
        const TimelineDetailsModel& d = t.details(sliceOf(t.reader(), 2, opcode));
        EXPECT_EQ(d.value(QStringLiteral("Operands")).toStdString(), writtenOutOperands(2, opcode));
        EXPECT_TRUE(
            d.value(QStringLiteral("Launch")).startsWith(QStringLiteral("task #2, one of 4")))
            << d.value(QStringLiteral("Launch")).toStdString();
        EXPECT_TRUE(d.value(QStringLiteral("Operands as written"))
                        .endsWith(QStringLiteral("(task #0's addresses)")))
            << d.value(QStringLiteral("Operands as written")).toStdString();
        EXPECT_EQ(d.value(QStringLiteral("Task")), QStringLiteral("softmax_aiv_2 (#2)"));
        EXPECT_FALSE(d.value(QStringLiteral("Source line")).isEmpty());
    }
    // The task whose addresses the text holds: as written, nothing else to show.
    const TimelineDetailsModel& first = t.details(sliceOf(t.reader(), 0, "TLOAD"));
    EXPECT_EQ(first.value(QStringLiteral("Operands")).toStdString(),
              writtenOutOperands(0, "TLOAD"));
    EXPECT_TRUE(first.value(QStringLiteral("Operands as written")).isEmpty());
}

TEST(SharedKernelTimeline, DetailsOfAnotherTasksSliceShowTheAddressesItRan) {
    expectTasksAddresses(sharedTrace());
}

// The written-out trace is unchanged: no Launch row, its own rows.
TEST(SharedKernelTimeline, AWrittenOutTraceShowsItsRowsAsTheyAre) {
    Timeline t(writtenOutTrace());
    const TimelineDetailsModel& d = t.details(sliceOf(t.reader(), 2, "TLOAD"));
    EXPECT_EQ(d.value(QStringLiteral("Operands")).toStdString(), writtenOutOperands(2, "TLOAD"));
    EXPECT_TRUE(d.value(QStringLiteral("Launch")).isEmpty());
}

// A big run's listing is rebuilt from the rows: it lists the tasks of a shared kernel text
// with their rebases, as the printed listing does.
TEST(SharedKernelLinks, TheRebuiltListingNamesEveryTaskWithItsRebases) {
    const auto reader = tracedb::TraceReader::open(sharedTrace());
    const std::int64_t pto = lastStageOf(reader, "pto");
    const std::string printed = std::get<std::string>(
        reader.query(fmt::format("SELECT ir_text FROM stage WHERE id = {}", pto)).rows.at(0).at(0));
    const std::string rebuilt = rebuildPtoListing(reader, pto).text;
    const std::string line = "task 2 @softmax_aiv_0 aiv rebase [0x0, 0x40000) +0x10000\n";
    EXPECT_NE(rebuilt.find(line), std::string::npos) << rebuilt;
    EXPECT_NE(printed.find("\"softmax_aiv_2\" rebase [0x0, 0x40000) +0x10000\n"), std::string::npos)
        << printed;
    EXPECT_NE(rebuilt.find("task 0 @softmax_aiv_0 aiv\n"), std::string::npos);
}

// Two ops of other widths: blocks 0–3 share one text, blocks 4–7 another, which is kernel 1.
std::filesystem::path twoTextsTrace(const std::string& share) {
    return test::programTrace(
        "shared_two_texts_" + share,
        "func @two(%x: tensor<64x1024xf16>, %y: tensor<64x512xf16>) -> (tensor<64x1024xf16>, "
        "tensor<64x512xf16>) {\n  vec_tile [16, 1024]\n  %a = exp %x\n  %b = exp %y\n"
        "  return %a, %b\n}\n",
        "--share-kernels " + share);
}

std::set<std::int64_t> asSet(const std::vector<std::int64_t>& v) {
    return {v.begin(), v.end()};
}

// Kernel ids are not block ids once texts are shared: the stage comparison maps a block to the
// text compiled from it (or to nothing: its tile ops have no instructions in the trace), and a
// tile op to the block its text came from; the PTO stage's buffer bytes are that block's.
TEST(SharedKernelLinks, AKernelIsTheBlockItWasCompiledFromNotItsIndex) {
    const auto shared = tracedb::TraceReader::open(twoTextsTrace("on"));
    const auto written = tracedb::TraceReader::open(twoTextsTrace("off"));
    ASSERT_EQ(test::sqlInt(shared, "SELECT count(*) FROM node WHERE kind = 'kernel'"), 2);
    ASSERT_EQ(test::sqlInt(written, "SELECT count(*) FROM node WHERE kind = 'kernel'"), 8);
    // The PTO stage's kernel node names the block function its text was written from.
    EXPECT_EQ(test::sqlInts(shared, "SELECT parent_id FROM node WHERE kind = 'kernel'"),
              (std::set<std::int64_t>{0, 4}));
    LinkResolver links(shared);
    StageMapper mapper(shared, links);
    const std::int64_t block = lastStageOf(shared, "block"), exec = lastStageOf(shared, "exec");
    const std::int64_t tile = mapper.tileStage();
    const auto ownOps = test::sqlInts(
        written, "SELECT DISTINCT tile_op_id FROM instr WHERE block_id = 4 AND tile_op_id IS NOT "
                 "NULL");
    ASSERT_FALSE(ownOps.empty());
    EXPECT_EQ(asSet(mapper.map(block, 4, tile)), ownOps);
    EXPECT_TRUE(mapper.map(block, 1, tile).empty()); // launches block 0's text
    EXPECT_EQ(asSet(mapper.map(tile, *ownOps.begin(), block)), std::set<std::int64_t>{4});
    EXPECT_EQ(asSet(mapper.map(tile, *ownOps.begin(), exec)), std::set<std::int64_t>{4});
    const auto on = overlayOf(twoTextsTrace("on"), "pto", OverlayKind::Buffer);
    const auto off = overlayOf(twoTextsTrace("off"), "pto", OverlayKind::Buffer);
    ASSERT_EQ(on.size(), 2u);
    EXPECT_EQ(on.at(0), off.at(0));
    EXPECT_EQ(on.at(1), off.at(4));
    EXPECT_NE(off.at(0), off.at(4));
}

// A schema-3 copy (plain node and instr tables): the same overlay, details and links.
TEST(SharedKernelLinks, ASchema3CopyShowsTheSameAndLinksTheSame) {
    test::TempDir dir;
    const std::filesystem::path v3 = schema3Copy(dir);
    const auto old = tracedb::TraceReader::open(v3);
    const auto now = tracedb::TraceReader::open(sharedTrace());
    ASSERT_EQ(old.schemaVersion(), 3);
    ASSERT_EQ(now.schemaVersion(), 4);
    EXPECT_EQ(overlayOf(v3, "block", OverlayKind::Cycles), cyclesPerKernelRow(writtenOutTrace()));
    expectTasksAddresses(v3);
    LinkResolver a(old), b(now);
    for (const auto& row : now.query("SELECT id FROM slice WHERE instr_id IS NOT NULL").rows) {
        const std::int64_t slice = std::get<std::int64_t>(row[0]);
        EXPECT_EQ(a.tensorOpOf(EntityRef::slice(slice)), b.tensorOpOf(EntityRef::slice(slice)));
    }
    const NodeKey tile = b.tileOpOfInstr(1);
    ASSERT_TRUE(tile.valid());
    EXPECT_EQ(a.tileOpOfInstr(1), tile);
    EXPECT_EQ(a.instrsOfTileOp(tile.stageId, tile.id), b.instrsOfTileOp(tile.stageId, tile.id));
    EXPECT_EQ(a.blocksOfTileOp(tile.stageId, tile.id), b.blocksOfTileOp(tile.stageId, tile.id));
    const std::int64_t op = b.tensorOpOfInstr(1);
    EXPECT_EQ(a.instrsOf(op), b.instrsOf(op));
    EXPECT_FALSE(b.instrsOf(op).empty());
    EXPECT_EQ(a.slicesOf(op), b.slicesOf(op));
}

} // namespace
} // namespace pto::gui
