// Level-of-detail summary of one timeline track: a pyramid of time buckets built once per file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace pto::gui {

/// What a bucket of time on one track holds: how many slices start in it, how much of it is
/// busy and how much waits, and the name and Tensor op that fill most of its busy time (drawn
/// as its colour).
struct LodBucket {
    std::uint32_t count = 0; ///< slices starting in the bucket
    float fill = 0;          ///< busy cycles (no waits) / bucket width, in [0, 1] (depth 0 only)
    float waitFill = 0;      ///< wait cycles / bucket width, in [0, 1] (depth 0 only)
    std::int32_t nameId = 0; ///< dominant busy slice name (string id), 0 when none
    std::int32_t opId = -1;  ///< dominant Tensor op, -1 when none
};

/// How a slice covers the buckets it spans: as busy time (instruction, task, stall), as wait
/// time (a flag or barrier wait), or not at all (a slice nested in another only counts).
enum class LodCover : std::uint8_t { Busy, Wait, None };

/// Level 0 splits the track's time into buckets of 2^baseShift cycles (about four slices per
/// bucket on average); level k merges 2^k of them, up to a single bucket. A level's buckets
/// are indexed from origin() in steps of bucketWidth(k).
///
/// Busy and wait time are kept apart, so a lane that mostly waits never reads as busy. The
/// dominant name of a level-0 bucket is the busy slice that covers most of it; a coarser
/// bucket takes the dominant of its busier half (an approximation that never reads slices
/// again). Building costs O(slices + buckets); memory is ≈ 2 × 20 bytes per level-0 bucket.
class LodPyramid {
public:
    static constexpr int kSlicesPerBucket = 4;
    static constexpr std::int64_t kMaxBaseBuckets = std::int64_t(1) << 22;
    /// Longest track span the bucket arithmetic handles (2^40 cycles ≈ 10 minutes at 1.8 GHz
    /// is far beyond any run; a longer span from a forged summary is cut here).
    static constexpr std::int64_t kMaxSpan = std::int64_t(1) << 40;

    LodPyramid() = default;
    /// A track whose slices lie in [begin, end) and number about `sliceCount`.
    LodPyramid(std::int64_t begin, std::int64_t end, std::int64_t sliceCount);

    /// Adds one slice: every slice counts in the bucket it starts in; a depth-0 one also
    /// covers its buckets as busy or wait time (`cover`); a nested one (`depth` > 0) marks its
    /// depth in the buckets it spans. Slices may come in any order.
    void add(std::int64_t ts, std::int64_t dur, std::int32_t nameId, std::int32_t opId,
             LodCover cover = LodCover::Busy, int depth = 0);
    /// Builds the coarser levels; call once after the last add().
    void finish();
    /// Adds the level-0 content of `other` (same bounds) into this one, before finish().
    void merge(const LodPyramid& other);

    std::int64_t origin() const { return m_origin; }
    int baseShift() const { return m_shift; }
    int levelCount() const { return static_cast<int>(m_levels.size()); }
    std::int64_t bucketWidth(int level) const { return std::int64_t(1) << (m_shift + level); }
    std::span<const LodBucket> level(int k) const { return m_levels[std::size_t(k)]; }
    /// The nesting depths of the slices overlapping each bucket of level k, bit d-1 for depth
    /// d (the last bit for every depth from 64 on), so a zoomed-out lane draws the rows its
    /// nested slices occupy — depths need not be contiguous (an imported stack skips some);
    /// empty for a track that nests nothing (no memory spent on the simulator's pipe lanes).
    std::span<const std::uint64_t> depths(int k) const {
        return m_depths.empty() ? std::span<const std::uint64_t>() : m_depths[std::size_t(k)];
    }
    /// The bit of depths() that stands for `depth` (≥ 1).
    static std::uint64_t depthBit(int depth) {
        return std::uint64_t(1) << (std::min(depth, 64) - 1);
    }
    std::int64_t sliceCount() const { return m_slices; }

    /// The coarsest level whose buckets are at most `cycles` wide (0 if none is).
    int levelFor(double cycles) const;
    /// Slices starting in [t0, t1), counted at a level with ≤ ~64 buckets in the range, so
    /// exact up to the two partial buckets at the ends.
    std::int64_t countIn(std::int64_t t0, std::int64_t t1) const;

private:
    std::int64_t m_origin = 0;
    int m_shift = 0;
    std::int64_t m_slices = 0;
    std::vector<std::vector<LodBucket>> m_levels;
    std::vector<std::vector<std::uint64_t>> m_depths; ///< per level, as m_levels; empty: flat
    std::vector<std::uint32_t> m_dominantCover;       ///< per level-0 bucket while building
};

} // namespace pto::gui
