// Fuzz harness of the trace reader: a damaged trace file either opens and answers what
// `pto info` and the views ask first (meta, stages, tracks, a page of slices, row counts) or
// throws TraceError — never a crash or another exception.
#include "tests/fuzz/FuzzSupport.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kHarness = "fuzz_trace_reader";
// Enough of each list to reach every table's decoder, not so much that one input is slow.
constexpr std::size_t kStagesVisited = 4;
constexpr std::size_t kTracksVisited = 8;
constexpr std::int64_t kSlicePage = 1'000'000; // cycles: the first screen of the timeline

void countRows(const pto::tracedb::TraceReader& reader) {
    for (std::string_view table :
         {"instr", "track", "slice", "counter", "flow", "tensor", "diff", "metric", "stats"})
        (void)reader.query("SELECT count(*) FROM " + std::string(table));
}

void visitStages(const pto::tracedb::TraceReader& reader) {
    const auto stages = reader.stages();
    for (std::size_t i = 0; i < std::min(stages.size(), kStagesVisited); ++i) {
        (void)reader.nodes(stages[i].id);
        (void)reader.edges(stages[i].id);
        (void)reader.buffers(stages[i].id);
    }
}

void visitTracks(const pto::tracedb::TraceReader& reader) {
    const auto tracks = reader.tracks();
    for (std::size_t i = 0; i < std::min(tracks.size(), kTracksVisited); ++i) {
        for (const auto& slice : reader.slices(tracks[i].id, 0, kSlicePage))
            if (slice.argSetId) (void)reader.args(*slice.argSetId);
        (void)reader.counters(tracks[i].id, 0, kSlicePage);
        (void)reader.stringOf(tracks[i].nameId);
    }
}

void readTrace(const std::filesystem::path& path) {
    const auto reader = pto::tracedb::TraceReader::open(path);
    (void)reader.allMeta();
    visitStages(reader);
    visitTracks(reader);
    (void)reader.flows();
    (void)reader.tensors();
    (void)reader.diffs();
    (void)reader.metrics();
    (void)reader.stats();
    countRows(reader);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const pto::fuzz::TempInput input(data, size, ".db");
    try {
        readTrace(input.path());
    } catch (const pto::tracedb::TraceError&) {
        return 0;
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness, std::string("exception other than TraceError: ") + e.what());
    }
    return 0;
}
