// The shared memory system as a fluid bandwidth server: every GM transfer in flight gets an
// equal share of the shared bandwidth, capped by its own per-core path rate (max-min fair).
#pragma once

// When a transfer joins or leaves, the rates are recomputed by water-filling: transfers whose
// cap is below the equal share get their cap, the rest split what remains equally. Transfers
// with the same cap (the same path and efficiency — in practice a handful of values) form a
// group that always runs at one rate, so a group keeps a "served" counter (bytes each member
// has received since the group formed) and each member a finish tag (served at join + its
// bytes): it is done when served reaches its tag. Joins, completions and rate changes then
// cost O(groups + log members) instead of touching every transfer. Only the earliest
// completion is scheduled (one event for the whole server); a generation counter makes older
// events stale. A transfer finishing at a fractional time completes at the next whole cycle.
//
// Each finished transfer reports its throttled time: how much longer it took than it would
// have at its cap — the trace shows it as a 'stall' slice.

#include <cstdint>
#include <optional>
#include <vector>

namespace pto::sim {

class BandwidthServer {
public:
    /// `capacity` in bytes per cycle.
    explicit BandwidthServer(double capacity) : m_capacity(capacity) {}

    struct Finished {
        uint32_t owner;   ///< what join() was given
        double throttled; ///< extra cycles spent below the transfer's cap
    };

    /// Adds a transfer of `bytes` (> 0) at time `now`, capped at `cap` bytes per cycle.
    void join(int64_t now, uint32_t owner, double bytes, double cap);
    /// Brings the server up to `now` and removes the transfers that are done, in order of
    /// their cap, then finish tag, then owner. Call at the time next() returned.
    std::vector<Finished> collect(int64_t now);
    /// The same into `done` (cleared first), reusing its storage: no allocation per call.
    void collect(int64_t now, std::vector<Finished>& done);
    /// The whole cycle by which the earliest active transfer is done; nullopt when idle.
    std::optional<int64_t> next() const;

    /// Incremented whenever next() may have changed; events carry it to detect staleness.
    uint32_t generation() const { return m_generation; }
    /// Sum of the active transfers' rates, bytes per cycle.
    double throughput() const { return m_throughput; }
    size_t active() const { return m_active; }

private:
    struct Member {
        double tag; ///< the group's `served` at which the transfer is done
        uint32_t owner;
        double bytes;
        int64_t start;
    };
    struct Group {
        double cap = 0;
        double rate = 0;
        double served = 0;
        std::vector<Member> heap; ///< min-heap on (tag, owner)
    };

    void advance(int64_t now);
    void reallocate();
    Group& groupFor(double cap);

    double m_capacity;
    int64_t m_updated = 0;
    uint32_t m_generation = 0;
    size_t m_active = 0;
    double m_throughput = 0;
    double m_earliest = 0;       ///< cycles from m_updated until the first transfer is done
    std::vector<Group> m_groups; // by cap, ascending
};

} // namespace pto::sim
