// A trace path holds the old file or a complete new one, never a half-written one.
#include "TestTrace.h"

#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

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

/// Names in `dir` other than `except`.
std::vector<std::string> otherEntries(const TempDir& dir, const std::string& except = "") {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        if (entry.path().filename() != except) names.push_back(entry.path().filename().string());
    return names;
}

/// A pid no process has: a child that has exited and been reaped.
pid_t deadPid() {
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

TEST(TraceDbAtomicity, WritesToTempFileBesideTarget) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    EXPECT_FALSE(std::filesystem::exists(path));
    std::vector<std::string> temps = otherEntries(dir);
    ASSERT_EQ(temps.size(), 1u);
    EXPECT_TRUE(std::regex_match(
        temps[0], std::regex("run\\.ptotrace\\.tmp-" + std::to_string(::getpid()) + "-[0-9]+")))
        << temps[0];
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

TEST(TraceDbAtomicity, TwoWritersOfOnePathEachHaveTheirOwnTempFile) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    TraceWriter first = TraceWriter::create(path);
    TraceWriter second = TraceWriter::create(path);
    EXPECT_EQ(otherEntries(dir).size(), 2u);
    first.setMeta("writer", "first");
    second.setMeta("writer", "second");
    first.commit();
    second.commit();
    EXPECT_EQ(TraceReader::open(path).meta("writer"), "second"); // the last commit wins
    EXPECT_EQ(dir.entryCount(), 1U);
}

TEST(TraceDbAtomicity, ANameLeftByAnEarlierProcessWithOurPidIsSkipped) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    const std::string prefix = "run.ptotrace.tmp-" + std::to_string(::getpid()) + "-";
    auto numberOfTemp = [&] {
        std::vector<std::string> temps = otherEntries(dir);
        EXPECT_EQ(temps.size(), 1u);
        return temps.empty() ? -1 : std::stoi(temps[0].substr(prefix.size()));
    };
    int probe = 0;
    {
        TraceWriter writer = TraceWriter::create(path);
        probe = numberOfTemp();
    }
    // A recycled pid: files of an earlier process with our pid hold the next 20 names.
    for (int n = probe + 1; n <= probe + 20; ++n)
        test::writeBytes(dir.file(prefix + std::to_string(n)), "old");
    TraceWriter writer = TraceWriter::create(path);
    writer.commit();
    EXPECT_NO_THROW(TraceReader::open(path));
    EXPECT_EQ(test::readBytes(dir.file(prefix + std::to_string(probe + 1))), "old");
    EXPECT_EQ(dir.entryCount(), 21U);
}

TEST(TraceDbAtomicity, TempFilesOfDeadProcessesAreRemovedByTheNextWriter) {
    TempDir dir;
    std::filesystem::path path = dir.file("run.ptotrace");
    std::string dead = std::to_string(deadPid());
    std::string live = std::to_string(::getppid());
    test::writeBytes(dir.file("run.ptotrace.tmp-" + dead), "killed, former naming");
    test::writeBytes(dir.file("run.ptotrace.tmp-" + dead + "-3"), "killed");
    test::writeBytes(dir.file("run.ptotrace.tmp-" + live + "-0"), "still being written");
    test::writeBytes(dir.file("run.ptotrace.tmp-notes"), "not a temp name");
    test::writeBytes(dir.file("other.ptotrace.tmp-" + dead + "-0"), "another target's");
    TraceWriter writer = TraceWriter::create(path);
    writer.commit();
    std::vector<std::string> left = otherEntries(dir, "run.ptotrace");
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"other.ptotrace.tmp-" + dead + "-0",
                                              "run.ptotrace.tmp-" + live + "-0",
                                              "run.ptotrace.tmp-notes"}));
}

// "<target>.tmp-<pid>-<n>" of a 250-byte target passed NAME_MAX (255): "File name too long"
// for a name the file system takes. Such a temp name keeps the target's first bytes and a hash;
// a dead process's temp of that form is still cleaned up by the next writer of the target.
TEST(TraceDbAtomicity, ATargetNameUpToNameMaxHasATempFileThatFits) {
    TempDir dir;
    const std::string dead = std::to_string(deadPid());
    for (std::size_t bytes : {229u, 230u, 250u, 255u}) {
        const std::string name = std::string(bytes - 3, 'r') + ".db";
        const std::filesystem::path path = dir.file(name);
        std::string deadTemp;
        {
            TraceWriter writer = TraceWriter::create(path);
            std::vector<std::string> temps = otherEntries(dir);
            ASSERT_EQ(temps.size(), 1u) << bytes;
            EXPECT_LE(temps[0].size(), 255u) << temps[0];
            EXPECT_EQ(temps[0].substr(0, 200), name.substr(0, 200));
            const std::string mine = "tmp-" + std::to_string(::getpid()) + "-";
            deadTemp = temps[0].substr(0, temps[0].find(mine)) + "tmp-" + dead + "-0";
            writer.commit();
        }
        EXPECT_NO_THROW(TraceReader::open(path)) << bytes;
        test::writeBytes(dir.file(deadTemp), "killed");
        TraceWriter again = TraceWriter::create(path);
        again.commit();
        EXPECT_FALSE(std::filesystem::exists(dir.file(deadTemp))) << deadTemp;
        std::filesystem::remove(path);
        EXPECT_EQ(dir.entryCount(), 0u) << bytes;
    }
}

TEST(TraceDbAtomicity, SigtermAndSigintRemoveTheTempFile) {
    for (int signal : {SIGTERM, SIGINT}) {
        TempDir dir;
        std::filesystem::path path = dir.file("run.ptotrace");
        EXPECT_EXIT(
            {
                TraceWriter writer = TraceWriter::create(path);
                writeSomeRows(writer);
                std::raise(signal);
            },
            ::testing::KilledBySignal(signal), "");
        EXPECT_EQ(dir.entryCount(), 0U) << "signal " << signal;
    }
}

} // namespace
} // namespace pto::tracedb
