// Builds and queries the per-track bucket pyramid that lets the timeline draw millions of
// slices at any zoom without reading them again.
#include "gui/model/LodPyramid.h"

#include <algorithm>
#include <bit>

namespace pto::gui {

LodPyramid::LodPyramid(std::int64_t begin, std::int64_t end, std::int64_t sliceCount)
    : m_origin(begin) {
    std::int64_t span = 1; // a forged track_summary may put begin and end anywhere
    if (__builtin_sub_overflow(end, begin, &span) || span > kMaxSpan) span = kMaxSpan;
    span = std::max<std::int64_t>(1, span);
    const std::int64_t wanted =
        std::clamp<std::int64_t>(sliceCount / kSlicesPerBucket, 1, kMaxBaseBuckets);
    // The smallest power-of-two width that keeps the bucket count at or below `wanted`.
    const auto perBucket = static_cast<std::uint64_t>((span + wanted - 1) / wanted);
    m_shift = std::bit_width(std::max<std::uint64_t>(1, perBucket) - 1);
    const std::int64_t buckets = ((span - 1) >> m_shift) + 1;
    m_levels.emplace_back(std::size_t(buckets));
    m_dominantCover.assign(std::size_t(buckets), 0);
}

void LodPyramid::add(std::int64_t ts, std::int64_t dur, std::int32_t nameId, std::int32_t opId,
                     LodCover cover, int depth) {
    if (m_levels.empty()) return;
    auto& base = m_levels.front();
    const auto last = static_cast<std::int64_t>(base.size()) - 1;
    const std::int64_t first = std::clamp<std::int64_t>((ts - m_origin) >> m_shift, 0, last);
    ++m_slices;
    ++base[std::size_t(first)].count;
    const std::int64_t end = ts + std::max<std::int64_t>(dur, 1);
    const std::int64_t lastBucket =
        std::clamp<std::int64_t>((end - 1 - m_origin) >> m_shift, first, last);
    if (depth > 0) {
        if (m_depths.empty()) m_depths.emplace_back(base.size(), 0);
        for (std::int64_t b = first; b <= lastBucket; ++b)
            m_depths.front()[std::size_t(b)] |= depthBit(depth);
    }
    if (cover == LodCover::None || dur <= 0) return;
    const double width = static_cast<double>(bucketWidth(0));
    for (std::int64_t b = first; b <= lastBucket; ++b) {
        const std::int64_t lo = m_origin + (b << m_shift);
        const std::int64_t cycles = std::min(end, lo + bucketWidth(0)) - std::max(ts, lo);
        if (cycles <= 0) continue;
        LodBucket& bucket = base[std::size_t(b)];
        const auto share = static_cast<float>(double(cycles) / width);
        if (cover == LodCover::Wait) {
            bucket.waitFill = std::min(1.0f, bucket.waitFill + share);
            continue;
        }
        bucket.fill = std::min(1.0f, bucket.fill + share);
        auto& dominant = m_dominantCover[std::size_t(b)];
        if (cycles > dominant) {
            dominant = static_cast<std::uint32_t>(cycles);
            bucket.nameId = nameId;
            bucket.opId = opId;
        }
    }
}

void LodPyramid::merge(const LodPyramid& other) {
    if (m_levels.empty() || other.m_levels.empty()) return;
    auto& base = m_levels.front();
    const auto& theirs = other.m_levels.front();
    const std::size_t n = std::min(base.size(), theirs.size());
    for (std::size_t b = 0; b < n; ++b) {
        base[b].count += theirs[b].count;
        base[b].fill = std::min(1.0f, base[b].fill + theirs[b].fill);
        base[b].waitFill = std::min(1.0f, base[b].waitFill + theirs[b].waitFill);
        if (other.m_dominantCover[b] > m_dominantCover[b]) {
            m_dominantCover[b] = other.m_dominantCover[b];
            base[b].nameId = theirs[b].nameId;
            base[b].opId = theirs[b].opId;
        }
    }
    if (!other.m_depths.empty()) {
        if (m_depths.empty()) m_depths.emplace_back(base.size(), 0);
        for (std::size_t b = 0; b < n; ++b) m_depths.front()[b] |= other.m_depths.front()[b];
    }
    m_slices += other.m_slices;
}

void LodPyramid::finish() {
    m_dominantCover = {};
    while (!m_levels.empty() && m_levels.back().size() > 1) {
        const auto& fine = m_levels.back();
        std::vector<LodBucket> coarse((fine.size() + 1) / 2);
        for (std::size_t i = 0; i < coarse.size(); ++i) {
            const LodBucket& a = fine[2 * i];
            const LodBucket b = 2 * i + 1 < fine.size() ? fine[2 * i + 1] : LodBucket{};
            const LodBucket& busier = b.fill > a.fill ? b : a;
            coarse[i] = {a.count + b.count, (a.fill + b.fill) / 2, (a.waitFill + b.waitFill) / 2,
                         busier.nameId, busier.opId};
        }
        m_levels.push_back(std::move(coarse));
        if (m_depths.empty()) continue;
        const auto& fineDepths = m_depths.back();
        std::vector<std::uint64_t> coarseDepths((fineDepths.size() + 1) / 2);
        for (std::size_t i = 0; i < coarseDepths.size(); ++i)
            coarseDepths[i] =
                fineDepths[2 * i] | (2 * i + 1 < fineDepths.size() ? fineDepths[2 * i + 1] : 0);
        m_depths.push_back(std::move(coarseDepths));
    }
}

int LodPyramid::levelFor(double cycles) const {
    int level = 0;
    while (level + 1 < levelCount() && static_cast<double>(bucketWidth(level + 1)) <= cycles)
        ++level;
    return level;
}

std::int64_t LodPyramid::countIn(std::int64_t t0, std::int64_t t1) const {
    if (m_levels.empty() || t1 <= t0) return 0;
    const int k = levelFor(static_cast<double>(t1 - t0) / 64);
    const auto buckets = level(k);
    const int shift = m_shift + k;
    const auto last = static_cast<std::int64_t>(buckets.size()) - 1;
    const std::int64_t lo = std::clamp<std::int64_t>((t0 - m_origin) >> shift, 0, last);
    const std::int64_t hi = std::clamp<std::int64_t>((t1 - 1 - m_origin) >> shift, 0, last);
    if (t1 <= m_origin || ((t0 - m_origin) >> shift) > last) return 0;
    std::int64_t count = 0;
    for (std::int64_t b = lo; b <= hi; ++b) count += buckets[std::size_t(b)].count;
    return count;
}

} // namespace pto::gui
