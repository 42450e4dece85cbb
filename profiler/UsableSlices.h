// The rule that sets aside slices whose times cannot be right (a negative duration, a start
// before cycle 0, an end past the run's recorded end), written once as the SQL the run model's
// queries share, and the count of the slices set aside for the warning tools print.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pto::prof {

/// What the rule says of one slice; the SQL of UsableSlices::verdict yields these numbers.
enum class SliceVerdict : std::int64_t {
    Usable = 0,
    NegativeDuration = 1, ///< dur < 0
    OutsideRun = 2,       ///< ts < 0, or ts + dur past the run's end (or past int64)
};

class UsableSlices {
public:
    /// Where no end is recorded, slices may end up to here: 2^53 cycles (58 days at 1.8 GHz,
    /// 104 days of a measured trace's ns), the last time a double still holds exactly.
    static constexpr std::int64_t kLatestEnd = std::int64_t(1) << 53;

    /// `runEnd`: the cycle the run ends at as the trace records it (meta sim_total_cycles);
    /// ≤ 0 when it records none.
    explicit UsableSlices(std::int64_t runEnd);

    /// SQL yielding the SliceVerdict of a slice from its `ts` and `dur` columns, qualified by
    /// `table` ("s") when given. Never overflows: ts + dur is not computed.
    std::string verdict(std::string_view table = {}) const;
    /// SQL condition: the slice is usable.
    std::string usable(std::string_view table = {}) const;

    /// Counts `slices` set aside with `verdict` (SliceVerdict's number; Usable is not counted).
    void setAside(std::int64_t verdict, std::int64_t slices = 1);
    std::int64_t setAsideCount() const { return m_negative + m_outside; }
    /// One sentence for RunModel::fileWarnings naming how many were set aside and why; empty
    /// when none was.
    std::string warning() const;

private:
    std::int64_t m_end;
    bool m_recordedEnd;
    std::int64_t m_negative = 0, m_outside = 0;
};

} // namespace pto::prof
