// The layout thread with real Graphviz: positions agree with the dot command, superseded and
// cancelled jobs are dropped, layouts come back from the sidecar cache, the layered fallback.
#include "gui/model/LayoutCache.h"
#include "gui/model/LayoutEngine.h"
#include "gui/model/LayoutWorker.h"
#include "tests/support/Process.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace pto::gui {
namespace {

LayoutJob chain(int n, bool leftToRight) {
    LayoutJob job;
    job.title = "chain";
    job.leftToRight = leftToRight;
    for (int i = 0; i < n; ++i) job.nodes.push_back({"n", 80, 30, false});
    for (int i = 0; i + 1 < n; ++i) job.edges.emplace_back(i, i + 1);
    return job;
}

/// A random layered DAG, big enough that dot takes a noticeable time.
LayoutJob randomDag(int n, unsigned seed) {
    LayoutJob job;
    std::mt19937 rng(seed);
    for (int i = 0; i < n; ++i) job.nodes.push_back({"n", 60, 24, false});
    for (int i = 1; i < n; ++i)
        for (int k = 0; k < 2; ++k) job.edges.emplace_back(int(rng() % unsigned(i)), i);
    return job;
}

/// Runs the worker until `done` or the timeout.
template <typename F> bool waitFor(F done, int ms = 60000) {
    return QTest::qWaitFor(done, ms);
}

TEST(GraphLayout, WorkerPositionsAgreeWithTheDotCommand) {
    LayoutWorker worker;
    std::shared_ptr<const LayoutResult> result;
    QObject::connect(&worker, &LayoutWorker::finished,
                     [&](quint64, std::shared_ptr<const LayoutResult> r) { result = r; });
    const LayoutJob job = chain(3, false);
    worker.submit(job);
    EXPECT_TRUE(worker.isBusy());
    ASSERT_TRUE(waitFor([&] { return result != nullptr; }));
    EXPECT_FALSE(worker.isBusy());
    ASSERT_TRUE(result->ok) << result->error;
    EXPECT_EQ(result->engine, "dot");
    ASSERT_EQ(result->nodes.size(), 3u);
    ASSERT_EQ(result->edges.size(), 2u);
    // Top to bottom with y pointing down; boxes keep their requested size.
    EXPECT_LT(result->nodes[0].center().y(), result->nodes[1].center().y());
    EXPECT_LT(result->nodes[1].center().y(), result->nodes[2].center().y());
    EXPECT_NEAR(result->nodes[0].width(), 80, 1);
    for (const auto& e : result->edges) EXPECT_GE(e.size(), 4u);
    // The dot command on the same DOT text: `node name x y w h` in inches, y up.
    test::TempDir dir;
    std::ofstream(dir / "g.dot") << layoutDot(job, false);
    const auto plain = test::runCommand("dot -Tplain " + test::shellQuote(dir / "g.dot"));
    ASSERT_EQ(plain.exitCode, 0) << plain.err;
    std::istringstream lines(plain.out);
    std::string word;
    double graphHeight = 0;
    while (lines >> word) {
        if (word == "graph") {
            double scale, w;
            lines >> scale >> w >> graphHeight;
        } else if (word == "node") {
            std::string name;
            double x, y;
            lines >> name >> x >> y;
            const int i = std::stoi(name.substr(1));
            EXPECT_NEAR(result->nodes[std::size_t(i)].center().x(), x * 72, 1.5) << name;
            EXPECT_NEAR(result->nodes[std::size_t(i)].center().y(), (graphHeight - y) * 72, 1.5)
                << name;
        }
        std::getline(lines, word);
    }
    EXPECT_GT(graphHeight, 0);
}

TEST(GraphLayout, LeftToRightRanksAlongX) {
    LayoutWorker worker;
    std::shared_ptr<const LayoutResult> result;
    QObject::connect(&worker, &LayoutWorker::finished,
                     [&](quint64, std::shared_ptr<const LayoutResult> r) { result = r; });
    worker.submit(chain(3, true));
    ASSERT_TRUE(waitFor([&] { return result != nullptr; }));
    EXPECT_LT(result->nodes[0].center().x(), result->nodes[1].center().x());
    EXPECT_NEAR(result->nodes[0].center().y(), result->nodes[2].center().y(), 1);
}

TEST(GraphLayout, ASupersededJobIsDroppedAndOnlyTheNewestResultArrives) {
    LayoutWorker worker;
    std::vector<quint64> finished;
    QSignalSpy dropped(&worker, &LayoutWorker::dropped);
    QObject::connect(
        &worker, &LayoutWorker::finished,
        [&](quint64 id, std::shared_ptr<const LayoutResult>) { finished.push_back(id); });
    const quint64 slow = worker.submit(randomDag(1500, 1)); // starts running
    QTest::qWait(50);
    const quint64 queued = worker.submit(randomDag(1200, 2)); // replaces nothing running
    const quint64 newest = worker.submit(chain(4, false));    // drops `queued`
    EXPECT_TRUE(waitFor([&] { return !finished.empty() && dropped.size() >= 2; }));
    QTest::qWait(100);
    ASSERT_EQ(finished.size(), 1u);
    EXPECT_EQ(finished[0], newest);
    std::set<quint64> droppedIds;
    for (const auto& args : dropped) droppedIds.insert(args[0].toULongLong());
    EXPECT_TRUE(droppedIds.count(slow));
    EXPECT_TRUE(droppedIds.count(queued));
}

TEST(GraphLayout, CancelDiscardsTheRunningJob) {
    LayoutWorker worker;
    int finished = 0;
    QSignalSpy dropped(&worker, &LayoutWorker::dropped);
    QObject::connect(&worker, &LayoutWorker::finished,
                     [&](quint64, std::shared_ptr<const LayoutResult>) { ++finished; });
    const quint64 job = worker.submit(randomDag(1500, 3));
    QTest::qWait(30);
    worker.cancel();
    EXPECT_FALSE(worker.isBusy());
    ASSERT_TRUE(waitFor([&] { return dropped.size() >= 1; }));
    EXPECT_EQ(dropped.front()[0].toULongLong(), job);
    QTest::qWait(200);
    EXPECT_EQ(finished, 0);
}

TEST(GraphLayout, LayoutsComeBackFromTheSidecarCacheUntilTheTraceChanges) {
    test::TempDir dir;
    const auto trace = dir / "trace.db";
    std::ofstream(trace) << "stand-in for a trace";
    LayoutJob job = chain(5, false);
    job.cacheKey = layoutCacheKey(9, 0x1234, false);
    LayoutResult computed;
    {
        LayoutWorker worker;
        worker.setTrace(trace);
        std::shared_ptr<const LayoutResult> result;
        QObject::connect(&worker, &LayoutWorker::finished,
                         [&](quint64, std::shared_ptr<const LayoutResult> r) { result = r; });
        worker.submit(job);
        ASSERT_TRUE(waitFor([&] { return result != nullptr; }));
        EXPECT_EQ(result->engine, "dot");
        computed = *result;
        result.reset();
        worker.submit(job);
        ASSERT_TRUE(waitFor([&] { return result != nullptr; }));
        EXPECT_EQ(result->engine, "cache");
        EXPECT_EQ(result->nodes, computed.nodes);
    }
    EXPECT_TRUE(std::filesystem::exists(layoutCachePath(trace)));
    {
        LayoutCache fresh(trace); // a new session reads the sidecar
        EXPECT_TRUE(fresh.problem().empty()) << fresh.problem();
        const std::size_t nodes = job.nodes.size(), edges = job.edges.size();
        auto hit = fresh.find(job.cacheKey, nodes, edges);
        ASSERT_TRUE(hit.has_value());
        EXPECT_EQ(hit->nodes, computed.nodes);
        EXPECT_EQ(hit->edges, computed.edges);
        EXPECT_FALSE(fresh.find(layoutCacheKey(9, 0x1234, true), nodes, edges).has_value());
        // The counts of another graph: the stored layout is not used for it.
        EXPECT_FALSE(fresh.find(job.cacheKey, nodes + 1, edges).has_value());
    }
    std::ofstream(trace) << "a rewritten trace, longer than before";
    LayoutCache afterRewrite(trace);
    EXPECT_FALSE(afterRewrite.find(job.cacheKey, job.nodes.size(), job.edges.size()).has_value());
}

TEST(GraphLayout, LayeredLayoutPlacesEveryNodeBelowItsPredecessors) {
    const LayoutJob job = randomDag(20000, 4);
    const LayoutResult r = layeredLayout(job);
    ASSERT_TRUE(r.ok);
    ASSERT_EQ(r.nodes.size(), job.nodes.size());
    for (const auto& [a, b] : job.edges)
        EXPECT_LT(r.nodes[std::size_t(a)].top(), r.nodes[std::size_t(b)].top());
    for (const auto& box : r.nodes) EXPECT_TRUE(r.bounds.contains(box));
    LayoutJob lr = job;
    lr.leftToRight = true;
    const LayoutResult across = layeredLayout(lr);
    for (const auto& [a, b] : lr.edges)
        EXPECT_LT(across.nodes[std::size_t(a)].right(), across.nodes[std::size_t(b)].left());
}

} // namespace
} // namespace pto::gui
