// Everything the timeline prepares once per file on a worker thread: the level-of-detail
// pyramid of each track, the counter series, and the instruction → op map.
#pragma once

#include "gui/model/LinkResolver.h"
#include "gui/model/LodPyramid.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace pto::gui {

class CancelToken;

/// Samples of one counter track; a value holds until the next sample.
struct CounterSeries {
    std::vector<std::int64_t> ts;
    std::vector<double> value;
    double maxValue = 0;
};

/// Immutable once built; shared between the worker that builds it and the GUI thread.
struct TimelineLod {
    std::unordered_map<std::int64_t, LodPyramid> pyramids;    ///< track id → pyramid
    std::unordered_map<std::int64_t, CounterSeries> counters; ///< counter track id → samples
    /// instr id → the key of its op of the program (LinkResolver::programOpOf), -1 when none:
    /// a Tensor op's node id, or -2 - i for the loop body op bodyOps[i].
    std::vector<std::int32_t> opByInstr;
    std::int64_t rootStage = -1;  ///< the stage of the Tensor ops
    std::vector<NodeKey> bodyOps; ///< loop body ops that ran (their first copies), ascending
    std::vector<std::int64_t> loopOfBody; ///< per body op, its loop (a `for` of rootStage)
    std::int64_t slicesScanned = 0;
    double seconds = 0; ///< wall time of the build

    std::int32_t opOf(const std::optional<std::int64_t>& instrId) const {
        if (!instrId || *instrId < 0 || std::size_t(*instrId) >= opByInstr.size()) return -1;
        return opByInstr[std::size_t(*instrId)];
    }
    /// The key opByInstr holds for `op` (a program op); -1 when no instruction ran it. A
    /// program argument (a negative node id) runs none: its id must not read as a body op's key.
    std::int32_t keyOf(const NodeKey& op) const {
        if (!op.valid()) return -1;
        if (op.stageId == rootStage) return op.id >= 0 ? static_cast<std::int32_t>(op.id) : -1;
        const auto it = std::lower_bound(bodyOps.begin(), bodyOps.end(), op);
        return it == bodyOps.end() || *it != op
                   ? -1
                   : static_cast<std::int32_t>(-2 - (it - bodyOps.begin()));
    }
    /// The keys of `op`'s slices, ascending: its own, or for a loop every key of its body ops
    /// (its instructions are theirs). Empty when no instruction ran it.
    std::vector<std::int32_t> keysOf(const NodeKey& op) const {
        std::vector<std::int32_t> keys;
        if (op.valid() && op.stageId == rootStage)
            for (std::size_t i = 0; i < loopOfBody.size(); ++i)
                if (loopOfBody[i] == op.id) keys.push_back(-2 - std::int32_t(i));
        if (const std::int32_t own = keyOf(op); own != -1) keys.push_back(own);
        std::sort(keys.begin(), keys.end());
        return keys;
    }
    const LodPyramid* pyramid(std::int64_t trackId) const {
        auto it = pyramids.find(trackId);
        return it == pyramids.end() ? nullptr : &it->second;
    }
};

/// Reads the whole trace at `path` with its own connections (one per thread, `threads` ≥ 1
/// scanning disjoint slice id ranges) and builds the summary. Returns null or throws when
/// `cancel` is cancelled (which interrupts the statements running on those connections);
/// throws tracedb::TraceError when the file cannot be read.
std::shared_ptr<const TimelineLod> buildTimelineLod(const std::filesystem::path& path,
                                                    CancelToken& cancel, int threads = 2);

} // namespace pto::gui
