// A trace path holds the old file or a complete new one, never a half-written one.
#include "TestTrace.h"

#include "trace_db/AtomicFile.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

namespace pto::tracedb {
namespace {

using test::TempDir;

void writeSomeRows(TraceWriter& writer) {
    for (int i = 0; i < 1000; ++i) {
        SliceRow row;
        row.ts = i;
        row.dur = 1;
        row.nameId = writer.intern("TLOAD");
        writer.add(row);
    }
}

TEST(TraceDbAtomicity, WritesToTempFileBesideTarget) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(std::filesystem::exists(tempPathFor(path)));
    EXPECT_EQ(tempPathFor(path).string(), path.string() + ".tmp-" + std::to_string(::getpid()));
    writer.commit();
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(dir.entryCount(), 1U);
}

TEST(TraceDbAtomicity, NoCommitLeavesNoFile) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        writeSomeRows(writer);
    }
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_EQ(dir.entryCount(), 0U);
}

TEST(TraceDbAtomicity, NoCommitKeepsExistingFileUnchanged) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    test::writeSampleTrace(path);
    std::string before = test::readBytes(path);
    try {
        TraceWriter writer = TraceWriter::create(path);
        writeSomeRows(writer);
        throw std::runtime_error("simulated failure mid-write");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(test::readBytes(path), before);
    EXPECT_EQ(dir.entryCount(), 1U);
    EXPECT_NO_THROW(TraceReader::open(path));
}

TEST(TraceDbAtomicity, AppendWithoutCommitKeepsOriginal) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    test::writeSampleTrace(path);
    std::string before = test::readBytes(path);
    {
        TraceWriter writer = TraceWriter::append(path);
        writeSomeRows(writer);
    }
    EXPECT_EQ(test::readBytes(path), before);
    EXPECT_EQ(dir.entryCount(), 1U);
}

TEST(TraceDbAtomicity, CommitReplacesExistingFile) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    test::writeSampleTrace(path);
    {
        TraceWriter writer = TraceWriter::create(path);
        writer.setMeta("producer", "second run");
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    EXPECT_EQ(reader.meta("producer"), "second run");
    EXPECT_TRUE(reader.stages().empty());
    EXPECT_EQ(dir.entryCount(), 1U);
}

TEST(TraceDbAtomicity, MissingDirectoryIsReported) {
    TempDir dir;
    std::filesystem::path path = dir.path() / "no-such-dir" / "run.ptotrace";
    try {
        TraceWriter::create(path);
        FAIL() << "created a trace in a missing directory";
    } catch (const TraceError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "cannot write trace file '" + path.string() + "': No such file or directory");
    }
}

TEST(TraceDbAtomicity, ParentThatIsAFileIsReported) {
    TempDir dir;
    test::writeBytes(dir.file("plain"), "not a directory");
    std::filesystem::path path = dir.file("plain") / "run.ptotrace";
    try {
        TraceWriter::create(path);
        FAIL() << "created a trace under a regular file";
    } catch (const TraceError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "cannot write trace file '" + path.string() + "': Not a directory");
    }
}

// A directory that cannot hold the file: its "parent" is a regular file, which refuses
// everyone, root included (permission bits would not stop root).
TEST(TraceDbAtomicity, UnwritableDirectoryIsReported) {
    TempDir dir;
    std::filesystem::path notADir = dir.file("plain.txt");
    std::ofstream(notADir) << "x";
    std::filesystem::path path = notADir / "run.ptotrace";
    try {
        TraceWriter::create(path);
        FAIL() << "created a trace under a regular file";
    } catch (const TraceError& error) {
        std::string message = error.what();
        EXPECT_EQ(message.rfind("cannot write trace file '" + path.string() + "': ", 0), 0u)
            << message;
    }
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(TraceDbAtomicity, SecondWriterOfSamePathInProcessIsRefused) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    TraceWriter first = TraceWriter::create(path);
    try {
        TraceWriter::create(path);
        FAIL() << "two writers share one temp file";
    } catch (const TraceError& error) {
        EXPECT_NE(std::string(error.what()).find("already exists"), std::string::npos);
    }
    first.commit();
    EXPECT_NO_THROW(TraceReader::open(path));
}

} // namespace
} // namespace pto::tracedb
