// Max-min fair sharing of the GM bandwidth among transfers in flight, with transfers of equal
// cap grouped under one rate (see BandwidthServer.h).
#include "simulator/engine/BandwidthServer.h"

#include "simulator/engine/Cycles.h"

#include <algorithm>
#include <cmath>

namespace pto::sim {
namespace {

// A member is done when fewer than this many bytes remain: tags and served counters are sums
// of doubles that may miss each other by rounding.
bool isDone(double tag, double served) {
    return tag - served <= 1e-6 + 1e-12 * std::fabs(tag);
}

// Heap order: the smallest (tag, owner) on top.
bool laterThan(const auto& a, const auto& b) {
    return a.tag > b.tag || (a.tag == b.tag && a.owner > b.owner);
}

} // namespace

void BandwidthServer::join(int64_t now, uint32_t owner, double bytes, double cap) {
    advance(now);
    Group& g = groupFor(cap);
    g.heap.push_back(Member{g.served + bytes, owner, bytes, now});
    std::push_heap(g.heap.begin(), g.heap.end(), laterThan<Member, Member>);
    ++m_active;
    reallocate();
}

std::vector<BandwidthServer::Finished> BandwidthServer::collect(int64_t now) {
    std::vector<Finished> done;
    collect(now, done);
    return done;
}

void BandwidthServer::collect(int64_t now, std::vector<Finished>& done) {
    advance(now);
    done.clear();
    for (Group& g : m_groups) {
        while (!g.heap.empty() && isDone(g.heap.front().tag, g.served)) {
            const Member m = g.heap.front();
            std::pop_heap(g.heap.begin(), g.heap.end(), laterThan<Member, Member>);
            g.heap.pop_back();
            // The exact finish: `now` minus the overshoot of served past the tag.
            const double finish = static_cast<double>(now) - (g.served - m.tag) / g.rate;
            const double ideal = m.bytes / g.cap;
            done.push_back(
                Finished{m.owner, std::max(0.0, finish - static_cast<double>(m.start) - ideal)});
            --m_active;
        }
    }
    if (done.empty()) return;
    std::erase_if(m_groups, [](const Group& g) { return g.heap.empty(); });
    reallocate();
}

std::optional<int64_t> BandwidthServer::next() const {
    if (m_active == 0) return std::nullopt;
    // Done within the current cycle counts as the next cycle: time always moves forward.
    // A share too small to finish within kCyclesCeiling saturates there (never wraps around).
    return m_updated + std::max<int64_t>(1, toCycles(m_earliest));
}

void BandwidthServer::advance(int64_t now) {
    const double dt = static_cast<double>(now - m_updated);
    m_updated = now;
    if (dt <= 0) return;
    for (Group& g : m_groups) g.served += g.rate * dt;
    m_earliest -= dt; // the rates are unchanged, so the first finish stays where it was
}

BandwidthServer::Group& BandwidthServer::groupFor(double cap) {
    auto it = std::lower_bound(m_groups.begin(), m_groups.end(), cap,
                               [](const Group& g, double c) { return g.cap < c; });
    if (it == m_groups.end() || it->cap != cap) {
        Group g;
        g.cap = cap;
        it = m_groups.insert(it, std::move(g));
    }
    return *it;
}

// Water-filling over groups in ascending cap: a group whose cap is below the equal share of
// what is left runs at its cap; from the first group above it on, everyone gets the share.
void BandwidthServer::reallocate() {
    ++m_generation;
    double left = m_capacity;
    double open = static_cast<double>(m_active);
    bool sharing = false;
    double share = 0;
    m_throughput = 0;
    m_earliest = INFINITY;
    for (Group& g : m_groups) {
        const auto members = static_cast<double>(g.heap.size());
        if (!sharing && g.cap * open > left) {
            sharing = true;
            share = left / open;
        }
        g.rate = sharing ? share : g.cap;
        if (!sharing) {
            left -= g.cap * members;
            open -= members;
        }
        m_throughput += g.rate * members;
        m_earliest = std::min(m_earliest, (g.heap.front().tag - g.served) / g.rate);
    }
}

} // namespace pto::sim
