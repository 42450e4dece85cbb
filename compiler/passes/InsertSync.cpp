// Block level: flags between pipes from buffer and GM conflicts, with vector-clock reduction.
#include "compiler/passes/InsertSync.h"

#include "compiler/ir/Placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace pto {
namespace {

constexpr int kEvents = 8;
constexpr int32_t kNever = -1;

// Per pipe: the latest item of every pipe known to have completed.
using Clock = std::array<int32_t, kPipeCount>;

Clock emptyClock() {
    Clock c;
    c.fill(kNever);
    return c;
}

// Last writer and last reader per pipe of every byte range of one on-chip space, as a map of
// disjoint segments.
class SpaceTracker {
public:
    explicit SpaceTracker(int64_t end) { m_segs[0] = Segment{std::max<int64_t>(end, 1)}; }

    // Records a read; raises need[p] to the writers of the bytes read.
    void read(int64_t lo, int64_t hi, int32_t item, Pipe pipe, Clock& need) {
        forRange(lo, hi, [&](Segment& s) {
            if (s.writer != kNever)
                need[int(s.writerPipe)] = std::max(need[int(s.writerPipe)], s.writer);
            s.readers[int(pipe)] = item;
        });
    }
    // Records a write; raises need[p] to the writers and readers of the bytes overwritten.
    void write(int64_t lo, int64_t hi, int32_t item, Pipe pipe, Clock& need) {
        forRange(lo, hi, [&](Segment& s) {
            if (s.writer != kNever)
                need[int(s.writerPipe)] = std::max(need[int(s.writerPipe)], s.writer);
            for (int p = 0; p < kPipeCount; ++p) need[p] = std::max(need[p], s.readers[p]);
        });
        Segment fresh{hi};
        fresh.writer = item;
        fresh.writerPipe = pipe;
        auto first = m_segs.find(lo);
        auto last = m_segs.lower_bound(hi);
        if (first != m_segs.end() && first != last) { // the usual case: reuse the first node
            first->second = fresh;
            m_segs.erase(std::next(first), last);
            return;
        }
        m_segs.erase(first, last);
        m_segs[lo] = fresh;
    }

private:
    struct Segment {
        int64_t end = 0;
        int32_t writer = kNever;
        Pipe writerPipe = Pipe::S;
        Clock readers = emptyClock();
    };

    void split(int64_t at) {
        auto it = m_segs.upper_bound(at);
        if (it == m_segs.begin()) return;
        --it;
        if (it->first == at || it->second.end <= at) return;
        Segment right = it->second;
        it->second.end = at;
        m_segs[at] = right;
    }
    template <class Fn> void forRange(int64_t lo, int64_t hi, Fn fn) {
        if (m_segs.rbegin()->second.end < hi) { // grow the tracked range
            Segment tail{hi};
            m_segs[m_segs.rbegin()->second.end] = tail;
        }
        split(lo);
        split(hi);
        for (auto it = m_segs.find(lo); it != m_segs.end() && it->first < hi; ++it) fn(it->second);
    }

    std::map<int64_t, Segment> m_segs; // start → segment
};

// GM accesses of the tensors a block writes, per pipe, for RAW/WAR across pipes within one
// block (tensors only read by the block cannot conflict inside it).
class GmTracker {
public:
    void markWritten(ValueId tensor) { m_tensors[tensor]; }

    void access(const GmRegion& r, int32_t item, Pipe pipe, const Clock& known, Clock& need) {
        auto it = m_tensors.find(r.tensor);
        if (it == m_tensors.end()) return;
        PerPipe& lists = it->second;
        for (int p = 0; p < kPipeCount; ++p) {
            if (p == int(pipe)) continue;
            scan(lists.writes[p], r, known[p], need[p]);
            if (r.write) scan(lists.reads[p], r, known[p], need[p]);
        }
        (r.write ? lists.writes : lists.reads)[int(pipe)].push_back({item, r});
    }

private:
    struct Record {
        int32_t item;
        GmRegion region;
    };
    struct PerPipe {
        std::array<std::vector<Record>, kPipeCount> writes, reads;
    };
    // Latest conflicting record not yet known complete.
    static void scan(const std::vector<Record>& recs, const GmRegion& r, int32_t known,
                     int32_t& need) {
        for (auto it = recs.rbegin(); it != recs.rend() && it->item > std::max(known, need); ++it)
            if (it->region.overlaps(r)) {
                need = it->item;
                return;
            }
    }
    std::unordered_map<ValueId, PerPipe> m_tensors;
};

struct SyncPair {
    int32_t producer;
    int32_t consumer;
    Pipe src;
    Pipe dst;
    uint8_t event;
};

Pipe pipeOf(const Function& tile, const Op& op) {
    Placement p = placeTileOp(tile, op);
    if (p.core == CoreType::None)
        throw CompileError({}, op.loc,
                           "internal: insert-sync found '" + std::string(opName(op.kind)) +
                               "' in a block but it runs on no pipe");
    return p.pipe;
}

class BlockSync {
public:
    BlockSync(const BlockProgram& program, const BlockFunction& block)
        : m_program(program), m_tile(program.tile), m_block(block) {
        for (MemSpace s :
             {MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C, MemSpace::UB}) {
            int64_t end = 0;
            for (const Buffer& b : block.buffers)
                if (b.space == s) end = std::max(end, b.addr + b.size);
            m_spaces.emplace(s, SpaceTracker(end));
        }
        for (const BlockItem& item : block.items)
            if (const OpKind k = m_tile.op(item.op).kind;
                k == OpKind::TStore || k == OpKind::TScatterAdd)
                m_gm.markWritten(m_tile.op(item.op).operands[1]);
        m_clock.fill(emptyClock());
        m_snapshot.resize(block.items.size());
    }

    std::vector<SyncPair> run() {
        for (int32_t t = 0; t < int32_t(m_block.items.size()); ++t) visit(t);
        return std::move(m_pairs);
    }

private:
    const Buffer& bufferOf(ValueId v, const Op& op) const {
        uint32_t b = v < m_program.bufferOf.size() ? m_program.bufferOf[v] : kNoId;
        if (b == kNoId || b >= m_block.buffers.size())
            throw CompileError({}, op.loc,
                               "internal: insert-sync: tile " + std::to_string(v) + " of '" +
                                   std::string(opName(op.kind)) + "' in block '" + m_block.name +
                                   "' has no buffer (run allocate-buffers first)");
        return m_block.buffers[b];
    }

    void visit(int32_t t) {
        const Op& op = m_tile.op(m_block.items[t].op);
        const Pipe q = pipeOf(m_tile, op);
        Clock need = emptyClock();
        for (ValueId v : op.operands)
            if (m_tile.type(v).isTile()) {
                const Buffer& b = bufferOf(v, op);
                m_spaces.at(b.space).read(b.addr, b.addr + b.size, t, q, need);
            }
        if (op.result != kNoId && m_tile.type(op.result).isTile()) {
            const Buffer& b = bufferOf(op.result, op);
            m_spaces.at(b.space).write(b.addr, b.addr + b.size, t, q, need);
        }
        if (readsOrWritesGm(op.kind))
            m_gm.access(gmRegionOf(m_tile, op), t, q, m_clock[int(q)], need);

        // Latest producer first: its clock may already cover the others.
        std::array<int, kPipeCount> order{};
        for (int p = 0; p < kPipeCount; ++p) order[p] = p;
        std::sort(order.begin(), order.end(), [&](int a, int b) { return need[a] > need[b]; });
        Clock& mine = m_clock[int(q)];
        for (int p : order) {
            if (p == int(q) || need[p] == kNever || need[p] <= mine[p]) continue;
            uint8_t event = uint8_t(m_eventCounter[p][int(q)]++ % kEvents);
            m_pairs.push_back({need[p], t, Pipe(p), q, event});
            const Clock& theirs = m_snapshot[need[p]];
            for (int k = 0; k < kPipeCount; ++k) mine[k] = std::max(mine[k], theirs[k]);
        }
        mine[int(q)] = t;
        m_snapshot[t] = mine;
    }

    const BlockProgram& m_program;
    const Function& m_tile;
    const BlockFunction& m_block;
    std::map<MemSpace, SpaceTracker> m_spaces;
    GmTracker m_gm;
    std::array<Clock, kPipeCount> m_clock{};
    std::vector<Clock> m_snapshot; // pipe clock right after each item
    std::array<std::array<uint32_t, kPipeCount>, kPipeCount> m_eventCounter{};
    std::vector<SyncPair> m_pairs;
};

// Rebuilds the item list with the flags in place and renumbers buffer live ranges.
void rewrite(BlockFunction& block, const std::vector<SyncPair>& pairs) {
    const size_t n = block.items.size();
    std::vector<uint32_t> waitsStart(n + 1, 0), setsStart(n + 1, 0);
    for (const SyncPair& s : pairs) {
        ++waitsStart[s.consumer + 1];
        ++setsStart[s.producer + 1];
    }
    for (size_t i = 0; i < n; ++i) {
        waitsStart[i + 1] += waitsStart[i];
        setsStart[i + 1] += setsStart[i];
    }
    std::vector<const SyncPair*> waits(pairs.size()), sets(pairs.size());
    {
        std::vector<uint32_t> w(waitsStart.begin(), waitsStart.end() - 1);
        std::vector<uint32_t> s(setsStart.begin(), setsStart.end() - 1);
        for (const SyncPair& p : pairs) { // pairs are in consumer order; per producer too
            waits[w[p.consumer]++] = &p;
            sets[s[p.producer]++] = &p;
        }
    }
    std::vector<BlockItem> items;
    items.reserve(n + 2 * pairs.size());
    std::vector<uint32_t> newIndex(n);
    for (size_t i = 0; i < n; ++i) {
        for (uint32_t k = waitsStart[i]; k < waitsStart[i + 1]; ++k)
            items.push_back(
                {kNoId, {SyncKind::WaitFlag, waits[k]->src, waits[k]->dst, waits[k]->event}});
        newIndex[i] = uint32_t(items.size());
        items.push_back(block.items[i]);
        for (uint32_t k = setsStart[i]; k < setsStart[i + 1]; ++k)
            items.push_back(
                {kNoId, {SyncKind::SetFlag, sets[k]->src, sets[k]->dst, sets[k]->event}});
    }
    for (Buffer& b : block.buffers) {
        b.firstUse = newIndex[b.firstUse];
        b.lastUse = newIndex[b.lastUse];
    }
    block.items = std::move(items);
}

// Drops sync items left by an earlier run, keeping buffer live ranges on their ops.
void stripSyncs(BlockFunction& block) {
    std::vector<uint32_t> newIndex(block.items.size(), 0);
    std::vector<BlockItem> ops;
    ops.reserve(block.items.size());
    for (size_t i = 0; i < block.items.size(); ++i) {
        newIndex[i] = uint32_t(ops.size());
        if (!block.items[i].isSync()) ops.push_back(block.items[i]);
    }
    if (ops.size() == block.items.size()) return;
    for (Buffer& b : block.buffers) {
        b.firstUse = newIndex[b.firstUse];
        b.lastUse = newIndex[b.lastUse];
    }
    block.items = std::move(ops);
}

} // namespace

void insertSync(BlockProgram& program) {
    for (BlockFunction& block : program.blocks) {
        stripSyncs(block);
        std::vector<SyncPair> pairs = BlockSync(program, block).run();
        rewrite(block, pairs);
    }
}

} // namespace pto
