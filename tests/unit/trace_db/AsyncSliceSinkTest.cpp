// The async sink delivers every pushed row exactly once, in push order per track; the writer
// thread under it runs jobs in push order and hands their errors to the caller.
#include "TestTrace.h"

#include "trace_db/AsyncSliceSink.h"
#include "trace_db/BoundedQueue.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"
#include "trace_db/WriterThread.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace pto::tracedb {
namespace {

using test::TempDir;

constexpr int kBatchesPerTrack = 100;
constexpr int kSlicesPerBatch = 37;

/// One producer thread owning `tracks`: per batch, kSlicesPerBatch slices on each track with
/// ts = sequence number on that track, and one counter sample per track.
void produce(AsyncSliceSink& sink, std::vector<std::int64_t> tracks) {
    std::int64_t name = sink.intern("TMATMUL");
    for (int batchIndex = 0; batchIndex < kBatchesPerTrack; ++batchIndex) {
        SliceBatch batch;
        for (std::int64_t track : tracks) {
            for (int i = 0; i < kSlicesPerBatch; ++i) {
                SliceRow row;
                row.ts = batchIndex * kSlicesPerBatch + i;
                row.dur = 1;
                row.trackId = track;
                row.nameId = name;
                batch.slices.push_back(row);
            }
            batch.counters.push_back(CounterRow{batchIndex, track, double(batchIndex)});
        }
        sink.push(std::move(batch));
    }
}

TEST(TraceDbAsyncSink, DeliversAllRowsOnceInOrderPerTrack) {
    TempDir dir;
    std::filesystem::path path = dir.file("sink.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        {
            AsyncSliceSink sink(writer, 2); // a small queue makes producers block and resume
            std::thread first(produce, std::ref(sink), std::vector<std::int64_t>{1, 2});
            std::thread second(produce, std::ref(sink), std::vector<std::int64_t>{3, 4});
            first.join();
            second.join();
            sink.finish();
        }
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    constexpr std::int64_t kPerTrack = std::int64_t{kBatchesPerTrack} * kSlicesPerBatch;
    for (std::int64_t track = 1; track <= 4; ++track) {
        std::vector<std::int64_t> order;
        reader.query("SELECT ts FROM slice WHERE track_id = " + std::to_string(track) +
                         " ORDER BY id",
                     [&](auto, std::span<const SqlValue> row) {
                         order.push_back(std::get<std::int64_t>(row[0]));
                         return true;
                     });
        ASSERT_EQ(static_cast<std::int64_t>(order.size()), kPerTrack) << "track " << track;
        for (std::int64_t i = 0; i < kPerTrack; ++i)
            ASSERT_EQ(order[static_cast<std::size_t>(i)], i) << "track " << track;
        std::vector<CounterRow> samples = reader.counters(track);
        ASSERT_EQ(samples.size(), std::size_t{kBatchesPerTrack});
        EXPECT_DOUBLE_EQ(samples.back().value, kBatchesPerTrack - 1);
    }
    EXPECT_EQ(reader.strings().size(), 1U);
    EXPECT_EQ(test::staleTrackSummaryRows(path), 0);
}

TEST(TraceDbAsyncSink, FlowsCanReferToProducerAssignedSliceIds) {
    TempDir dir;
    std::filesystem::path path = dir.file("sink.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    {
        AsyncSliceSink sink(writer);
        SliceBatch batch;
        batch.slices.push_back(SliceRow{.id = 10, .ts = 0, .dur = 5, .trackId = 1});
        batch.slices.push_back(SliceRow{.id = 11, .ts = 9, .dur = 5, .trackId = 2});
        batch.flows.push_back(FlowRow{kAutoId, 10, 11, FlowKind::Flag});
        sink.push(std::move(batch));
        sink.push(std::vector<SliceRow>{SliceRow{.id = 12, .ts = 20, .dur = 1, .trackId = 1}});
        sink.finish();
    }
    writer.commit();
    TraceReader reader = TraceReader::open(path);
    std::vector<FlowRow> flows = reader.flows();
    ASSERT_EQ(flows.size(), 1U);
    EXPECT_EQ(flows[0].sliceOut, 10);
    EXPECT_EQ(flows[0].sliceIn, 11);
    EXPECT_EQ(reader.slices(1).size(), 2U);
}

TEST(TraceDbAsyncSink, InsertErrorReachesTheProducer) {
    TempDir dir;
    std::filesystem::path path = dir.file("sink.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        AsyncSliceSink sink(writer);
        sink.push(std::vector<SliceRow>{SliceRow{.id = 7}, SliceRow{.id = 7}}); // duplicate id
        try {
            sink.finish();
            FAIL() << "duplicate slice id accepted";
        } catch (const TraceError& error) {
            EXPECT_NE(std::string(error.what()).find("UNIQUE"), std::string::npos) << error.what();
        }
        EXPECT_THROW(sink.push(std::vector<SliceRow>{SliceRow{}}), TraceError);
    }
    EXPECT_FALSE(std::filesystem::exists(path)); // never committed
}

TEST(TraceDbAsyncSink, DestructorFinishesQuietly) {
    TempDir dir;
    std::filesystem::path path = dir.file("sink.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    {
        AsyncSliceSink sink(writer);
        sink.push(std::vector<SliceRow>(100));
    }
    writer.commit();
    EXPECT_EQ(TraceReader::open(path).slices(0).size(), 100U);
}

TEST(TraceDbBoundedQueue, PopsInOrderAndDrainsAfterClose) {
    BoundedQueue<int> queue(2);
    EXPECT_TRUE(queue.push(1));
    EXPECT_TRUE(queue.push(2));
    std::thread producer([&] { EXPECT_TRUE(queue.push(3)); }); // blocks until a pop
    EXPECT_EQ(queue.pop(), 1);
    producer.join();
    queue.close();
    EXPECT_FALSE(queue.push(4));
    EXPECT_EQ(queue.pop(), 2);
    EXPECT_EQ(queue.pop(), 3);
    EXPECT_EQ(queue.pop(), std::nullopt);
}

TEST(TraceDbBoundedQueue, WeightsBoundTheQueuedRows) {
    BoundedQueue<int> queue(10);
    EXPECT_TRUE(queue.push(1, 6));
    std::atomic<bool> pushed{false};
    std::thread producer([&] {
        EXPECT_TRUE(queue.push(2, 6)); // 12 > 10: waits for the pop
        pushed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(pushed);
    EXPECT_EQ(queue.pop(), 1);
    producer.join();
    EXPECT_EQ(queue.pop(), 2);
    EXPECT_TRUE(queue.push(3, 25)); // heavier than the capacity: goes in when the queue is empty
    EXPECT_EQ(queue.pop(), 3);
}

TEST(TraceDbWriterThread, RunsJobsInPushOrderWithProducerNumberedIds) {
    TempDir dir;
    std::filesystem::path path = dir.file("thread.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    const std::int64_t first = writer.nextStageId();
    EXPECT_EQ(first, 1);
    {
        WriterThread thread(writer, 2);
        for (std::int64_t i = 0; i < 50; ++i)
            thread.push([i, first](TraceWriter& w) {
                StageRow row;
                row.id = first + i;
                row.ord = i;
                row.name = fmt::format("stage {}", i);
                w.add(row);
            });
        thread.finish();
    }
    EXPECT_EQ(writer.nextStageId(), first + 50); // the writer is the caller's again
    writer.commit();
    TraceReader reader = TraceReader::open(path);
    std::vector<StageRow> stages = reader.stages();
    ASSERT_EQ(stages.size(), 50U);
    for (std::size_t i = 0; i < stages.size(); ++i) {
        EXPECT_EQ(stages[i].id, first + std::int64_t(i));
        EXPECT_EQ(stages[i].name, fmt::format("stage {}", i));
    }
}

TEST(TraceDbWriterThread, AJobsErrorReachesTheCallerAndNoFileIsLeft) {
    TempDir dir;
    std::filesystem::path path = dir.file("thread.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        WriterThread thread(writer);
        thread.push([](TraceWriter&) { throw TraceError("cannot write 'x': disk full"); });
        try {
            thread.finish();
            FAIL() << "the job's error was lost";
        } catch (const TraceError& error) {
            EXPECT_STREQ(error.what(), "cannot write 'x': disk full");
        }
        EXPECT_THROW(thread.push([](TraceWriter&) {}), TraceError);
    }
    EXPECT_FALSE(std::filesystem::exists(path)); // never committed
}

} // namespace
} // namespace pto::tracedb
