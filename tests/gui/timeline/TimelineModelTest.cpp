// Timeline models without a window: viewport math row by row, the level-of-detail pyramid
// against a brute-force count, the summary of real traces against SQL, and the Qt models
// (tracks, search, area aggregate, details) under QAbstractItemModelTester.
#include "gui/model/CancelToken.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/TimelineAggregateModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLod.h"
#include "gui/model/TimelineSearchModel.h"
#include "gui/model/TimelineSliceCache.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/model/TimelineViewport.h"
#include "gui/model/TraceDocument.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TraceWriter.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <random>

namespace pto::gui {
namespace {

std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    const auto result = reader.query(sql);
    return std::get<std::int64_t>(result.rows.at(0).at(0));
}

TEST(TimelineViewport, MapsPixelsToCyclesAndBack) {
    TimelineViewport vp;
    vp.setWidth(1000);
    vp.setBounds(0, 10000);
    EXPECT_DOUBLE_EQ(vp.begin(), 0);
    EXPECT_DOUBLE_EQ(vp.end(), 10000);
    EXPECT_DOUBLE_EQ(vp.cyclesPerPixel(), 10);
    EXPECT_DOUBLE_EQ(vp.xOf(2500), 250);
    EXPECT_DOUBLE_EQ(vp.cycleAt(250), 2500);
}

TEST(TimelineViewport, ZoomKeepsTheCycleUnderTheCursor) {
    TimelineViewport vp;
    vp.setWidth(1000);
    vp.setBounds(0, 10000);
    struct Case {
        double factor, anchorX, begin, end;
    };
    // factor, anchor pixel → expected range (rows computed by hand: span/factor around anchor)
    for (const Case& c : {Case{2, 500, 2500, 7500}, Case{2, 0, 0, 5000}, Case{4, 1000, 7500, 10000},
                          Case{0.5, 500, -500, 10500}}) {
        vp.showAll();
        vp.zoom(c.factor, c.anchorX);
        EXPECT_NEAR(vp.begin(), c.begin, 1e-6) << c.factor << " at " << c.anchorX;
        EXPECT_NEAR(vp.end(), c.end, 1e-6) << c.factor << " at " << c.anchorX;
    }
}

TEST(TimelineViewport, ClampsToBoundsMarginAndFinestZoom) {
    TimelineViewport vp;
    vp.setWidth(800);
    vp.setBounds(1000, 2000);
    vp.panPixels(-100000); // far left: stops at 5 % before the data
    EXPECT_NEAR(vp.begin(), 950, 1e-9);
    EXPECT_NEAR(vp.end(), 1950, 1e-9);
    for (int i = 0; i < 100; ++i) vp.zoom(10, 400);
    EXPECT_NEAR(vp.span(), TimelineViewport::kMinSpan, 1e-9);
    vp.zoom(1e-9, 0);
    EXPECT_NEAR(vp.span(), 1100, 1e-9); // bounds + margins
    vp.reveal(1500, 1600);
    EXPECT_NEAR(vp.begin(), 1490, 1e-9);
    EXPECT_NEAR(vp.end(), 1610, 1e-9);
}

TEST(TimelineViewport, RulerTicksUseOneTwoFiveStepsInCyclesAndMicros) {
    EXPECT_DOUBLE_EQ(TimelineViewport::niceStep(0.7), 1);
    EXPECT_DOUBLE_EQ(TimelineViewport::niceStep(1.5), 2);
    EXPECT_DOUBLE_EQ(TimelineViewport::niceStep(3), 5);
    EXPECT_DOUBLE_EQ(TimelineViewport::niceStep(7), 10);
    EXPECT_DOUBLE_EQ(TimelineViewport::niceStep(120), 200);
    TimelineViewport vp;
    vp.setWidth(1000);
    vp.setBounds(0, 18000);
    vp.setRange(0, 18000);
    // 80 px at 18 cycles/px = 1440 cycles → step 2000: 0, 2000, … 16000.
    const auto ticks = vp.cycleTicks(80);
    ASSERT_EQ(ticks.size(), 9u);
    EXPECT_EQ(ticks[1].label, QStringLiteral("2000"));
    EXPECT_EQ(ticks[5].label, QStringLiteral("10k"));
    EXPECT_NEAR(ticks[1].x, 2000 / 18.0, 1e-9);
    // 1.8 GHz: 18000 cycles = 10 µs; 80 px = 0.8 µs → step 1 µs = 1800 cycles.
    const auto micros = vp.microTicks(1.8e9, 80);
    ASSERT_EQ(micros.size(), 10u);
    EXPECT_NEAR(micros[3].cycle, 5400, 1e-6);
    EXPECT_EQ(micros[3].label, QStringLiteral("3 µs"));
    EXPECT_TRUE(vp.microTicks(0).empty());
    vp.setRange(0, 1800); // 1 µs over 1000 px: step 0.1 µs, still in µs
    EXPECT_EQ(vp.microTicks(1.8e9, 80)[5].label, QStringLiteral("0.5 µs"));
    vp.setRange(0, 90); // 0.05 µs: nanosecond labels
    EXPECT_TRUE(vp.microTicks(1.8e9, 80).front().label.endsWith(QStringLiteral(" ns")));
}

// The time row labels every tick in one unit fit for the times in view: zoomed into a simulated
// run at 2.34 µs it read "2340 ns, 2360 ns", a measured trace at 140 ms "140000 µs".
TEST(TimelineViewport, TimeLabelsUseOneReadableUnitForTheView) {
    TimelineViewport vp;
    vp.setWidth(1000);
    vp.setBounds(0, 100000);
    vp.setRange(4140, 4320); // 2.30–2.40 µs at 1.8 GHz: step 0.01 µs
    const auto near = vp.microTicks(1.8e9, 80);
    ASSERT_FALSE(near.empty());
    QStringList labels;
    for (const RulerTick& tick : near) labels << tick.label;
    EXPECT_TRUE(labels.contains(QStringLiteral("2.34 µs"))) << labels.join(", ").toStdString();
    for (const QString& label : labels) EXPECT_TRUE(label.endsWith(QStringLiteral(" µs")));

    vp.setBounds(0, 300000000); // a measured trace: ns, clock 1 GHz
    vp.setRange(140000000, 150000000);
    labels.clear();
    for (const RulerTick& tick : vp.microTicks(1e9, 80)) labels << tick.label;
    EXPECT_EQ(labels.front(), QStringLiteral("140 ms")) << labels.join(", ").toStdString();
    for (const QString& label : labels) EXPECT_TRUE(label.endsWith(QStringLiteral(" ms")));
    vp.setRange(140000000, 140000100); // 100 ns at 140 ms: still ms, with the decimals it needs
    const auto fine = vp.microTicks(1e9, 80);
    ASSERT_GE(fine.size(), 2u);
    EXPECT_EQ(fine[1].label, QStringLiteral("140.00001 ms"));
}

// A run traced at --trace tasks records no instruction: its pipe tracks drew as empty lanes
// under every core, with no note. They are left out of the tree (and counted for the note);
// a run at the default level keeps its pipe lanes.
TEST(TimelineTracks, EmptyPipeLanesOfATasksTraceAreHidden) {
    const auto countPipes = [](const TimelineTrackTree& tree) {
        int pipes = 0;
        std::vector<int> pending = tree.roots;
        while (!pending.empty()) {
            const TimelineTrack& t = tree.tracks[std::size_t(pending.back())];
            pending.pop_back();
            pipes += t.kind == TimelineTrackKind::Pipe;
            pending.insert(pending.end(), t.children.begin(), t.children.end());
        }
        return pipes;
    };
    const auto tasks = TraceDocument::open(test::sampleTrace("softmax", "--trace tasks"));
    const TimelineTrackTree tasksTree = TimelineTrackModel::read(tasks->reader());
    EXPECT_EQ(countPipes(tasksTree), 0);
    EXPECT_GT(tasksTree.hiddenPipes, 0);
    const auto full = TraceDocument::open(test::sampleTrace("softmax"));
    const TimelineTrackTree fullTree = TimelineTrackModel::read(full->reader());
    EXPECT_GT(countPipes(fullTree), 0);
    EXPECT_EQ(fullTree.hiddenPipes, 0);
}

struct TestSlice {
    std::int64_t ts, dur;
    std::int32_t name;
};

TEST(LodPyramid, CountsAndBusyMatchABruteForceAtEveryLevel) {
    std::mt19937_64 rng(7);
    std::vector<TestSlice> slices;
    std::int64_t t = 100;
    for (int i = 0; i < 5000; ++i) {
        const std::int64_t dur = 1 + std::int64_t(rng() % 300);
        slices.push_back({t, dur, std::int32_t(1 + rng() % 5)});
        t += dur + std::int64_t(rng() % 50);
    }
    LodPyramid pyramid(100, t, std::int64_t(slices.size()));
    std::shuffle(slices.begin(), slices.end(), rng); // order must not matter
    for (const TestSlice& s : slices) pyramid.add(s.ts, s.dur, s.name, -1);
    pyramid.finish();
    EXPECT_EQ(pyramid.sliceCount(), 5000);
    EXPECT_EQ(pyramid.level(pyramid.levelCount() - 1).size(), 1u);
    for (int level = 0; level < pyramid.levelCount(); ++level) {
        const auto buckets = pyramid.level(level);
        const std::int64_t width = pyramid.bucketWidth(level);
        std::vector<std::int64_t> count(buckets.size(), 0), busy(buckets.size(), 0);
        for (const TestSlice& s : slices) {
            ++count[std::size_t((s.ts - 100) / width)];
            for (std::int64_t c = s.ts; c < s.ts + s.dur; ++c)
                ++busy[std::size_t((c - 100) / width)];
        }
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            ASSERT_EQ(buckets[b].count, count[b]) << "level " << level << " bucket " << b;
            // Coarser levels average the halves; the last bucket may be partly outside.
            ASSERT_NEAR(buckets[b].fill, double(busy[b]) / double(width), 1e-3)
                << "level " << level << " bucket " << b;
        }
    }
    EXPECT_EQ(pyramid.countIn(100, t), 5000);
    EXPECT_EQ(pyramid.countIn(0, 50), 0);
}

TEST(LodPyramid, DominantNameIsTheSliceCoveringMostOfTheBucket) {
    LodPyramid pyramid(0, 1024, 4); // 4 slices → 1 base bucket of 1024 cycles
    ASSERT_EQ(pyramid.bucketWidth(0), 1024);
    pyramid.add(0, 100, 1, 10);
    pyramid.add(100, 600, 2, 20);
    pyramid.add(700, 200, 3, -1);
    pyramid.finish();
    EXPECT_EQ(pyramid.level(0)[0].nameId, 2);
    EXPECT_EQ(pyramid.level(0)[0].opId, 20);
    EXPECT_NEAR(pyramid.level(0)[0].fill, 900.0 / 1024, 1e-6);
}

// A wait covers its buckets as wait time: never busy fill, never the dominant name (the
// zoomed-out lane painted waits in the busy colour of the bucket's dominant slice).
TEST(LodPyramid, WaitTimeIsKeptApartFromBusyTime) {
    LodPyramid pyramid(0, 2048, 8); // 8 slices → 2 base buckets of 1024 cycles
    ASSERT_EQ(pyramid.bucketWidth(0), 1024);
    pyramid.add(0, 200, 1, 10);
    pyramid.add(200, 1400, 2, -1, LodCover::Wait); // 824 cycles in bucket 0, 576 in bucket 1
    pyramid.add(1600, 100, 3, 30);
    pyramid.add(1650, 10, 4, -1, LodCover::None); // nested: counts only
    pyramid.finish();
    const auto base = pyramid.level(0);
    EXPECT_NEAR(base[0].fill, 200.0 / 1024, 1e-6);
    EXPECT_NEAR(base[0].waitFill, 824.0 / 1024, 1e-6);
    EXPECT_EQ(base[0].nameId, 1); // the wait covers more, the busy slice names the bucket
    EXPECT_NEAR(base[1].fill, 100.0 / 1024, 1e-6);
    EXPECT_NEAR(base[1].waitFill, 576.0 / 1024, 1e-6);
    EXPECT_EQ(base[1].nameId, 3);
    EXPECT_EQ(base[0].count + base[1].count, 4u);
    EXPECT_NEAR(pyramid.level(1)[0].waitFill, 1400.0 / 2048, 1e-6);
    EXPECT_NEAR(pyramid.level(1)[0].fill, 300.0 / 2048, 1e-6);
}

TEST(TimelineLod, SummarisesEverySliceOfARealTraceAndLinksInstructionsToOps) {
    const auto doc = TraceDocument::open(test::sampleTrace("matmul", "--trace full"));
    const auto& reader = doc->reader();
    CancelToken cancel;
    const auto lod = buildTimelineLod(doc->path(), cancel, 2);
    ASSERT_TRUE(lod);
    EXPECT_EQ(lod->slicesScanned, sqlInt(reader, "SELECT count(*) FROM slice"));
    reader.query("SELECT track_id, count(*) FROM slice GROUP BY track_id", [&](auto, auto row) {
        const auto track = std::get<std::int64_t>(row[0]);
        const LodPyramid* pyramid = lod->pyramid(track);
        EXPECT_TRUE(pyramid) << "track " << track;
        if (pyramid) {
            EXPECT_EQ(pyramid->sliceCount(), std::get<std::int64_t>(row[1]));
        }
        return true;
    });
    // Busy and wait cycles of each track add up to SQL's, apart (--trace full holds waits).
    std::int64_t waits = 0;
    reader.query("SELECT track_id, sum(CASE WHEN category = 'wait' THEN dur END), "
                 "sum(CASE WHEN category <> 'wait' THEN dur END) FROM slice WHERE depth = 0 "
                 "GROUP BY track_id",
                 [&](auto, auto row) {
                     const LodPyramid* pyramid = lod->pyramid(std::get<std::int64_t>(row[0]));
                     if (!pyramid) return true;
                     auto cycles = [](const auto& cell) {
                         return std::holds_alternative<std::int64_t>(cell)
                                    ? double(std::get<std::int64_t>(cell))
                                    : 0.0;
                     };
                     double wait = 0, busy = 0;
                     for (const LodBucket& b : pyramid->level(0)) {
                         wait += double(b.waitFill) * double(pyramid->bucketWidth(0));
                         busy += double(b.fill) * double(pyramid->bucketWidth(0));
                     }
                     EXPECT_NEAR(wait, cycles(row[1]), 1 + 1e-4 * cycles(row[1]));
                     EXPECT_NEAR(busy, cycles(row[2]), 1 + 1e-4 * cycles(row[2]));
                     waits += cycles(row[1]) > 0;
                     return true;
                 });
    EXPECT_GT(waits, 0);
    EXPECT_EQ(std::int64_t(lod->counters.size()),
              sqlInt(reader, "SELECT count(DISTINCT track_id) FROM counter"));
    LinkResolver links(reader);
    int linked = 0;
    reader.query("SELECT id FROM instr", [&](auto, auto row) {
        const auto instr = std::get<std::int64_t>(row[0]);
        EXPECT_EQ(lod->opOf(instr), links.tensorOpOfInstr(instr)) << "instr " << instr;
        linked += lod->opOf(instr) >= 0;
        return true;
    });
    EXPECT_GT(linked, 0);
    cancel.cancel();
    EXPECT_EQ(buildTimelineLod(doc->path(), cancel, 1), nullptr);
}

TEST(TimelineTrackModel, BuildsChipCorePipeTreeWithCollapseAndPin) {
    const auto doc = TraceDocument::open(test::sampleTrace("softmax", "--trace full"));
    TimelineTrackModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.load(&doc->reader());
    const auto& reader = doc->reader();
    ASSERT_EQ(std::int64_t(model.tracks().size()), sqlInt(reader, "SELECT count(*) FROM track"));
    ASSERT_EQ(model.rowCount(), 1); // the chip
    const QModelIndex chip = model.index(0, 0);
    EXPECT_EQ(model.rowCount(chip), sqlInt(reader, "SELECT count(*) FROM track WHERE parent_id = "
                                                   "(SELECT id FROM track WHERE kind = 'chip')"));
    // Cores with slices or counter samples under them are expanded, idle ones collapsed:
    // rows = the chip, its children, and the children of busy cores.
    const std::int64_t expected = sqlInt(
        reader,
        "SELECT 1 + (SELECT count(*) FROM track WHERE parent_id = (SELECT id FROM track WHERE "
        "kind = 'chip')) + (SELECT count(*) FROM track WHERE parent_id IN (SELECT DISTINCT c.id "
        "FROM track c JOIN track q ON q.parent_id = c.id OR q.id = c.id WHERE c.kind = 'core' "
        "AND (q.id IN (SELECT track_id FROM track_summary) OR q.id IN (SELECT track_id FROM "
        "counter))))");
    EXPECT_EQ(std::int64_t(model.rows().size()), expected);
    EXPECT_EQ(model.minTs(), sqlInt(reader, "SELECT min(t) FROM (SELECT min_ts AS t FROM "
                                            "track_summary UNION ALL SELECT ts FROM counter)"));
    EXPECT_EQ(model.maxEnd(), sqlInt(reader, "SELECT max(t) FROM (SELECT max_end AS t FROM "
                                             "track_summary UNION ALL SELECT ts FROM counter)"));

    const int core = model.indexOfTrackId(
        sqlInt(reader, "SELECT track_id FROM track_summary s JOIN track t ON t.id = s.track_id "
                       "WHERE t.kind = 'core' ORDER BY track_id LIMIT 1"));
    ASSERT_GE(core, 0);
    const std::size_t before = model.rows().size();
    const auto pipes = model.track(core).children.size();
    ASSERT_TRUE(model.setData(model.indexOf(core), false, TimelineTrackModel::ExpandedRole));
    EXPECT_EQ(model.rows().size(), before - pipes);
    model.setPinned(core, true);
    ASSERT_EQ(model.pinnedRows().size(), 1u);
    EXPECT_EQ(model.pinnedRows()[0].track, core);
    EXPECT_EQ(model.rows().size(), before - pipes - 1);
    EXPECT_TRUE(model.data(model.indexOf(core), TimelineTrackModel::PinnedRole).toBool());

    auto query = std::make_shared<QueryTrack>();
    query->title = QStringLiteral("my query");
    query->items = {{10, 5, QStringLiteral("a")}, {30, 0, QStringLiteral("b")}};
    const int added = model.addQueryTrack(query);
    EXPECT_EQ(model.track(added).kind, TimelineTrackKind::Query);
    EXPECT_EQ(model.rowCount(), 2); // chip + the Queries group
    EXPECT_EQ(model.rows().back().track, added);
    model.load(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_TRUE(model.rows().empty());
}

TEST(TimelineSearchModel, FindsSlicesByNameInTimeOrderAndSteps) {
    const auto doc = TraceDocument::open(test::sampleTrace("softmax", "--trace full"));
    TimelineSearchModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReader(&doc->reader());
    const int count = model.search(QStringLiteral("texp"));
    const auto expected =
        doc->reader().query("SELECT id FROM slice_named WHERE name LIKE '%texp%' ORDER BY ts, id");
    ASSERT_GT(count, 0);
    ASSERT_EQ(std::size_t(count), expected.rows.size());
    for (int i = 0; i < count; ++i)
        EXPECT_EQ(model.matches()[std::size_t(i)].sliceId,
                  std::get<std::int64_t>(expected.rows[std::size_t(i)][0]));
    EXPECT_EQ(model.next(), 0);
    EXPECT_EQ(model.next(), count > 1 ? 1 : 0);
    EXPECT_EQ(model.previous(), 0);
    EXPECT_EQ(model.previous(), count - 1); // wraps
    EXPECT_EQ(model.next(model.matches().front().ts - 1), 0);
    EXPECT_EQ(model.next(model.matches().back().ts), 0); // nothing later: wraps to the first
    EXPECT_EQ(model.previous(model.matches().front().ts), count - 1);
    EXPECT_EQ(model.search(QStringLiteral("no such slice name")), 0);
    EXPECT_EQ(model.next(), -1);

    // The same on a worker thread, twice in a row: the first is cancelled, the second lands.
    QSignalSpy finished(&model, &TimelineSearchModel::searchFinished);
    model.searchInBackground(doc->path(), QStringLiteral("wait"));
    model.searchInBackground(doc->path(), QStringLiteral("texp"));
    EXPECT_TRUE(model.searching());
    EXPECT_TRUE(finished.wait(10000));
    EXPECT_FALSE(model.searching());
    ASSERT_EQ(finished.size(), 1);
    EXPECT_EQ(finished.front().front().toInt(), count);
    EXPECT_EQ(model.text(), QStringLiteral("texp"));
    EXPECT_EQ(model.matches().front().sliceId, std::get<std::int64_t>(expected.rows[0][0]));
}

TEST(TimelineAggregateModel, AggregatesAnAreaLikeSql) {
    const auto doc = TraceDocument::open(test::sampleTrace("matmul", "--trace full"));
    const auto& reader = doc->reader();
    TimelineSliceCache cache;
    cache.open(doc->path());
    std::unordered_map<std::int64_t, QString> names;
    for (const auto& [id, s] : reader.strings()) names.emplace(id, QString::fromStdString(s));
    TimelineAggregateModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    TimelineArea area;
    const std::int64_t end = sqlInt(reader, "SELECT max(max_end) FROM track_summary");
    area.begin = end / 4;
    area.end = end / 2;
    reader.query("SELECT id FROM track WHERE kind IN ('core', 'pipe') AND core_id < 3",
                 [&](auto, auto row) {
                     area.trackIds.push_back(std::get<std::int64_t>(row[0]));
                     return true;
                 });
    model.compute(area, cache, names);
    std::string tracks;
    for (auto id : area.trackIds) tracks += fmt::format("{}{}", tracks.empty() ? "" : ",", id);
    const auto expected = reader.query(fmt::format(
        "SELECT n.str, count(*), sum(s.dur), sum(s.dur) - sum(coalesce((SELECT sum(c.dur) FROM "
        "slice c WHERE c.track_id = s.track_id AND c.depth = s.depth + 1 AND c.ts >= s.ts AND "
        "c.ts < s.ts + s.dur), 0)) FROM slice s JOIN string n ON n.id = s.name_id WHERE "
        "s.track_id IN ({}) AND s.ts < {} AND (s.ts + s.dur > {} OR (s.dur = 0 AND s.ts >= {})) "
        "GROUP BY n.str",
        tracks, area.end, area.begin, area.begin));
    ASSERT_GT(expected.rows.size(), 0u);
    ASSERT_EQ(std::size_t(model.rowCount()), expected.rows.size());
    for (const auto& row : expected.rows) {
        const QString name = QString::fromStdString(std::get<std::string>(row[0]));
        const AggregateRow* got = model.row(name);
        ASSERT_TRUE(got) << name.toStdString();
        EXPECT_EQ(got->count, std::get<std::int64_t>(row[1])) << name.toStdString();
        EXPECT_EQ(got->total, std::get<std::int64_t>(row[2])) << name.toStdString();
        EXPECT_EQ(got->self, std::get<std::int64_t>(row[3])) << name.toStdString();
    }
    for (int r = 1; r < model.rowCount(); ++r)
        EXPECT_GE(model.rows()[std::size_t(r - 1)].total, model.rows()[std::size_t(r)].total);
    const auto rows = model.rows();

    // The same on a worker thread; a second request cancels the first.
    QSignalSpy computed(&model, &TimelineAggregateModel::computed);
    auto shared = std::make_shared<const std::unordered_map<std::int64_t, QString>>(names);
    model.computeInBackground(doc->path(), {0, 10, area.trackIds}, shared);
    model.computeInBackground(doc->path(), area, shared);
    EXPECT_TRUE(model.computing());
    ASSERT_TRUE(computed.wait(10000));
    EXPECT_EQ(computed.size(), 1);
    EXPECT_TRUE(computed.front().front().toString().isEmpty());
    ASSERT_EQ(model.rows().size(), rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        EXPECT_EQ(model.rows()[r].name, rows[r].name);
        EXPECT_EQ(model.rows()[r].total, rows[r].total);
        EXPECT_EQ(model.rows()[r].self, rows[r].self);
    }
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

// Nested slices (the simulator writes depth 0 only today): self time subtracts the direct
// children, wherever they lie, and only them.
TEST(TimelineAggregateModel, SelfTimeSubtractsDirectChildren) {
    test::TempDir dir;
    const auto path = dir / "nested.db";
    {
        using namespace tracedb;
        TraceWriter w = TraceWriter::create(path);
        const auto track = w.add(TrackRow{.nameId = w.intern("lane"), .kind = TrackKind::Task});
        const auto outer = w.intern("outer"), inner = w.intern("inner"), leaf = w.intern("leaf");
        // outer [0,1000) ⊃ inner [100,400) ⊃ leaf [150,200); inner [600,700); outer [2000,2100)
        for (const auto& [ts, dur, name, depth] :
             std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>{
                 {0, 1000, outer, 0},
                 {100, 300, inner, 1},
                 {150, 50, leaf, 2},
                 {600, 100, inner, 1},
                 {2000, 100, outer, 0}})
            w.add(SliceRow{.ts = ts,
                           .dur = dur,
                           .trackId = track,
                           .nameId = name,
                           .category = SliceCategory::Task,
                           .depth = depth});
        w.commit();
    }
    const auto reader = tracedb::TraceReader::open(path);
    TimelineSliceCache cache;
    cache.open(path);
    std::unordered_map<std::int64_t, QString> names;
    for (const auto& [id, s] : reader.strings()) names.emplace(id, QString::fromStdString(s));
    TimelineAggregateModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    // [900, 2050): both outers, no inner or leaf starts or ends in it.
    model.compute({900, 2050, {1}}, cache, names);
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.rows()[0].count, 2);
    EXPECT_EQ(model.rows()[0].total, 1100);
    EXPECT_EQ(model.rows()[0].self, 1100 - 300 - 100);
    model.compute({0, 3000, {1}}, cache, names);
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(model.row(QStringLiteral("inner"))->total, 400);
    EXPECT_EQ(model.row(QStringLiteral("inner"))->self, 350);
    EXPECT_EQ(model.row(QStringLiteral("leaf"))->self, 50);
    EXPECT_DOUBLE_EQ(model.row(QStringLiteral("inner"))->average(), 200);
}

TEST(TimelineDetailsModel, ShowsInstructionStallAndProvenanceToTheSourceLine) {
    const auto doc = TraceDocument::open(test::sampleTrace("softmax", "--trace full"));
    const auto& reader = doc->reader();
    LinkResolver links(reader);
    TimelineDetailsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const std::int64_t slice =
        sqlInt(reader, "SELECT s.id FROM slice s JOIN instr i ON i.id = s.instr_id WHERE "
                       "s.category = 'instr' AND i.tile_op_id IS NOT NULL ORDER BY s.id LIMIT 1");
    model.show(reader, links, slice, doc->summary().clockHz);
    const auto instr = reader.query(fmt::format(
        "SELECT i.opcode, i.operands, i.id FROM slice s JOIN instr i ON i.id = s.instr_id "
        "WHERE s.id = {}",
        slice));
    const auto& row = instr.rows.at(0);
    EXPECT_TRUE(model.value(QStringLiteral("Instruction"))
                    .startsWith(QString::fromStdString(std::get<std::string>(row[0]))));
    EXPECT_EQ(model.value(QStringLiteral("Operands")),
              QString::fromStdString(std::get<std::string>(row[1])));
    EXPECT_EQ(model.tensorOp(), links.tensorOpOfInstr(std::get<std::int64_t>(row[2])));
    EXPECT_GE(model.tensorOp(), 0);
    const std::int64_t line =
        sqlInt(reader, fmt::format("SELECT n.src_line FROM node n JOIN stage "
                                   "st ON st.id = n.stage_id AND "
                                   "st.parent_stage_id IS NULL WHERE n.id = {}",
                                   model.tensorOp()));
    EXPECT_TRUE(model.value(QStringLiteral("Source line")).startsWith(QString::number(line) + ":"))
        << model.value(QStringLiteral("Source line")).toStdString();
    bool tensorStep = false;
    for (const DetailRow& r : model.rows()) {
        tensorStep |= r.field == QStringLiteral("Came from (tensor)");
        // "for  (node 4 of …)": a node without a name left a double space.
        EXPECT_FALSE(r.value.contains(QStringLiteral("  "))) << r.value.toStdString();
    }
    EXPECT_TRUE(tensorStep);
    // The pipe lane's core is named with it: the track read "M" alone.
    const QString track = model.value(QStringLiteral("Track"));
    const QString core = QString::fromStdString(std::get<std::string>(
        reader
            .query(fmt::format("SELECT p.name FROM slice s JOIN track t ON t.id = s.track_id "
                               "JOIN track_named p ON p.id = t.parent_id WHERE s.id = {}",
                               slice))
            .rows.at(0)
            .at(0)));
    EXPECT_TRUE(track.startsWith(core + QStringLiteral(" / "))) << track.toStdString();

    const std::int64_t stall =
        sqlInt(reader, "SELECT id FROM slice WHERE category = 'stall' ORDER BY id LIMIT 1");
    model.show(reader, links, stall, doc->summary().clockHz);
    EXPECT_EQ(model.value(QStringLiteral("Stall reason")),
              QString::fromStdString(std::get<std::string>(
                  reader
                      .query(fmt::format("SELECT string_value FROM args a JOIN slice s ON "
                                         "s.arg_set_id = a.arg_set_id WHERE s.id = {} AND "
                                         "a.key = 'reason'",
                                         stall))
                      .rows.at(0)
                      .at(0))));
    const std::int64_t waited =
        sqlInt(reader, "SELECT slice_in FROM flow WHERE kind = 'flag' ORDER BY id LIMIT 1");
    model.show(reader, links, waited, doc->summary().clockHz);
    EXPECT_FALSE(model.value(QStringLiteral("Flow in (flag)")).isEmpty());
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

} // namespace
} // namespace pto::gui
