// insert-cross-flags: per cluster, the GM conflicts between its cores become counted flags.
#include "compiler/passes/InsertCrossFlags.h"

#include "compiler/ir/Placement.h"
#include "compiler/passes/ClusterGm.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace pto {
namespace {

ClusterRole roleOf(const BlockFunction& b) {
    return b.core == CoreType::AIC ? ClusterRole::Aic
                                   : (b.sub == 0 ? ClusterRole::Aiv0 : ClusterRole::Aiv1);
}

// The pipe an op's instruction issues on (a tstore from L0C leaves through FIX).
Pipe pipeOf(const Function& tile, const Op& op) {
    if (op.kind == OpKind::TStore && tile.type(op.operands.at(0)).space == MemSpace::L0C)
        return Pipe::FIX;
    return placeTileOp(tile, op).pipe;
}

// (producer block, consumer block, consumer pipe): a wait orders only its own pipe, so each
// consumer pipe counts its hand-offs on a flag id of its own (the pipe's number).
using Channel = std::tuple<uint32_t, uint32_t, Pipe>;
// Per block: the flags to put before (waits) and after (sets) an item position.
using FlagsAt = std::map<uint32_t, std::map<uint32_t, std::vector<Sync>>>;

// One channel: the producer signals after every position a consumer needs; the consumer, before
// each op, waits until it has consumed the signals up to the one it needs.
void addChannel(const BlockProgram& p, const Channel& channel,
                const std::map<uint32_t, uint32_t>& needs, FlagsAt& before, FlagsAt& after) {
    const auto [from, to, pipe] = channel;
    const BlockFunction& src = p.blocks[from];
    const BlockFunction& dst = p.blocks[to];
    std::vector<uint32_t> events;
    for (const auto& [pos, n] : needs) events.push_back(n);
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    for (uint32_t e : events) {
        Sync s;
        s.kind = SyncKind::CrossSetFlag;
        s.src = pipeOf(p.tile, p.tile.op(src.items[e].op));
        s.peer = roleOf(dst);
        s.event = uint8_t(pipe);
        after[from][e].push_back(s);
    }
    size_t waited = 0;
    for (const auto& [pos, n] : needs) { // in the consumer's item order
        const size_t due =
            size_t(std::upper_bound(events.begin(), events.end(), n) - events.begin());
        Sync s;
        s.kind = SyncKind::CrossWaitFlag;
        s.src = pipe;
        s.peer = roleOf(src);
        s.event = uint8_t(pipe);
        for (; waited < due; ++waited) before[to][pos].push_back(s);
    }
}

// `posOf` is scratch indexed by tile op id (the position of the op in its block's items), all 0
// on entry and on exit: one array for every cluster, not a hash map per cluster.
void insertForCluster(BlockProgram& p, const std::vector<uint32_t>& blocks,
                      std::vector<uint32_t>& posOf) {
    for (uint32_t b : blocks)
        for (uint32_t i = 0; i < p.blocks[b].items.size(); ++i)
            if (!p.blocks[b].items[i].isSync()) posOf[p.blocks[b].items[i].op] = i;

    // need[channel][consumer position] = the latest producer position it must follow.
    std::map<Channel, std::map<uint32_t, uint32_t>> need;
    forEachGmConflict(
        clusterAccesses(p, blocks), [&](const ClusterAccess& later, const ClusterAccess& earlier) {
            if (later.block == earlier.block) return; // insert-sync's job
            const Channel c{earlier.block, later.block, pipeOf(p.tile, p.tile.op(later.op))};
            auto [it, fresh] = need[c].try_emplace(posOf[later.op], posOf[earlier.op]);
            if (!fresh) it->second = std::max(it->second, posOf[earlier.op]);
        });

    FlagsAt before, after;
    for (const auto& [channel, needs] : need) addChannel(p, channel, needs, before, after);
    for (uint32_t b : blocks) {
        auto& pre = before[b];
        auto& post = after[b];
        if (pre.empty() && post.empty()) continue;
        const std::vector<BlockItem>& old = p.blocks[b].items;
        std::vector<BlockItem> items;
        items.reserve(old.size() + pre.size() + post.size());
        for (uint32_t i = 0; i < old.size(); ++i) {
            if (auto it = pre.find(i); it != pre.end() && !old[i].isSync())
                for (const Sync& s : it->second) items.push_back({kNoId, s});
            items.push_back(old[i]);
            if (auto it = post.find(i); it != post.end() && !old[i].isSync())
                for (const Sync& s : it->second) items.push_back({kNoId, s});
        }
        p.blocks[b].items = std::move(items);
    }
    for (uint32_t b : blocks)
        for (const BlockItem& it : p.blocks[b].items)
            if (!it.isSync()) posOf[it.op] = 0;
}

} // namespace

void insertCrossFlags(BlockProgram& program) {
    std::map<uint32_t, std::vector<uint32_t>> clusters;
    for (const BlockFunction& b : program.blocks)
        if (b.cluster != kNoCluster) clusters[b.cluster].push_back(b.id);
    std::vector<uint32_t> posOf(program.tile.ops().size(), 0);
    for (const auto& [cluster, blocks] : clusters) insertForCluster(program, blocks, posOf);
}

} // namespace pto
