// User SQL under limits: a time budget and a cancel switch stop a statement mid-way (an
// aggregate over an endless CTE returns no row to check between), with a clear error.
#include "TestTrace.h"

#include "trace_db/TraceReader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace pto::tracedb {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kEndlessCount =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";
constexpr const char* kEndlessRows =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c";

class TraceDbQueryLimits : public ::testing::Test {
protected:
    void SetUp() override { test::writeSampleTrace(m_path); }
    test::TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("run.ptotrace");
};

TEST_F(TraceDbQueryLimits, TimeoutStopsAnEndlessAggregate) {
    TraceReader reader = TraceReader::open(m_path);
    QueryLimits limits;
    limits.timeout = 300ms;
    auto start = Clock::now();
    try {
        reader.query(kEndlessCount, limits);
        FAIL() << "an endless query returned";
    } catch (const QueryInterrupted& e) {
        EXPECT_EQ(e.reason(), QueryInterrupted::Reason::Timeout);
        EXPECT_GE(e.seconds(), 0.3);
        EXPECT_EQ(std::string(e.what()).rfind("query interrupted after 0.", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("(time limit 0.3 s)"), std::string::npos) << e.what();
    }
    EXPECT_LT(Clock::now() - start, 3s);
    // The reader is still usable, and an unlimited query runs without the handler.
    EXPECT_EQ(reader.query("SELECT 7").rows.at(0).at(0), SqlValue(std::int64_t{7}));
}

TEST_F(TraceDbQueryLimits, CancelFromAnotherThreadStopsAStreamingQuery) {
    TraceReader reader = TraceReader::open(m_path);
    QueryCancel cancel;
    QueryLimits limits;
    limits.cancel = cancel;
    std::thread canceller([cancel] {
        std::this_thread::sleep_for(200ms);
        cancel.cancel();
    });
    std::int64_t rows = 0;
    auto start = Clock::now();
    try {
        reader.query(
            kEndlessCount,
            [&](auto, auto) {
                ++rows;
                return true;
            },
            limits);
        ADD_FAILURE() << "an endless query returned";
    } catch (const QueryInterrupted& e) {
        EXPECT_EQ(e.reason(), QueryInterrupted::Reason::Cancelled);
        EXPECT_EQ(std::string(e.what()).rfind("query cancelled after 0.", 0), 0u) << e.what();
    }
    canceller.join();
    EXPECT_EQ(rows, 0);
    EXPECT_LT(Clock::now() - start, 3s);
    cancel.reset();
    EXPECT_EQ(reader.query("SELECT count(*) FROM stage", limits).rows.size(), 1u);
}

TEST_F(TraceDbQueryLimits, TimeoutCountsTheWholeCallAndStopsARowStream) {
    TraceReader reader = TraceReader::open(m_path);
    QueryLimits limits;
    limits.timeout = 200ms;
    std::int64_t rows = 0;
    EXPECT_THROW(reader.query(
                     kEndlessRows,
                     [&](auto, auto) {
                         ++rows;
                         return true;
                     },
                     limits),
                 QueryInterrupted);
    EXPECT_GT(rows, 0);
}

TEST_F(TraceDbQueryLimits, QueriesFromTheRowCallbackKeepTheOuterBudget) {
    TraceReader reader = TraceReader::open(m_path);
    QueryLimits outer;
    outer.timeout = 300ms;
    QueryLimits inner;
    inner.timeout = 10s;
    std::int64_t innerRuns = 0;
    EXPECT_THROW(reader.query(
                     kEndlessRows,
                     [&](auto, auto) {
                         reader.query("SELECT 1", inner);
                         reader.query("SELECT 1");
                         ++innerRuns;
                         return true;
                     },
                     outer),
                 QueryInterrupted);
    EXPECT_GT(innerRuns, 0);
}

TEST_F(TraceDbQueryLimits, AQuickQueryUnderLimitsReturnsItsRows) {
    TraceReader reader = TraceReader::open(m_path);
    QueryLimits limits;
    limits.timeout = 5s;
    limits.cancel = QueryCancel();
    EXPECT_EQ(reader.query("SELECT count(*) FROM stage", limits).rows,
              reader.query("SELECT count(*) FROM stage").rows);
}

} // namespace
} // namespace pto::tracedb
