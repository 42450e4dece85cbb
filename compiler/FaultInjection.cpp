// Planting known defects (drop-sync, shift-tile-offset, truncate-cast, reuse-live-buffer).
#include "compiler/FaultInjection.h"

#include "compiler/CompileState.h"
#include "compiler/ir/Placement.h"
#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <vector>

namespace pto {
namespace {

constexpr InjectedFault kKinds[] = {InjectedFault::DropSync,      InjectedFault::ShiftTileOffset,
                                    InjectedFault::TruncateCast,  InjectedFault::ReuseLiveBuffer,
                                    InjectedFault::DropCrossWait, InjectedFault::TailTileMask,
                                    InjectedFault::WrongScale};

[[noreturn]] void noCandidate(const FaultSpec& spec, size_t count, std::string_view what) {
    throw std::invalid_argument(fmt::format("--fault {}:{}: the program has {} {} (candidates "
                                            "are counted from 0)",
                                            injectedFaultName(spec.kind), spec.index, count, what));
}

std::string opText(const Function& f, const Op& op) {
    std::string s = op.result == kNoId
                        ? std::string(opName(op.kind))
                        : fmt::format("%{} = {}", NameTable(f)[op.result], opName(op.kind));
    return fmt::format("{} (tile op #{}, line {}:{})", s, op.id, op.loc.line, op.loc.col);
}

// --- shift-tile-offset --------------------------------------------------------------------

// The offset of `op` (a tload) moved one row down (or up on the last row); nullopt when the
// tile covers every row of its dimension.
std::optional<std::vector<int64_t>> shiftedOffset(const Function& tile, const Op& op) {
    const Shape& gm = tile.type(op.operands[0]).shape;
    if (gm.rank() < 2) return std::nullopt;
    std::vector<int64_t> offset = op.attrs.getInts("offset").value_or(std::vector<int64_t>{});
    if (offset.empty()) offset.assign(size_t(gm.rank()), 0);
    const int rowDim = gm.rank() - 2;
    const int64_t rows = tile.type(op.result).shape.rows();
    if (rows > gm[rowDim]) return std::nullopt;
    if (offset[size_t(rowDim)] + rows + 1 <= gm[rowDim])
        ++offset[size_t(rowDim)];
    else if (offset[size_t(rowDim)] >= 1)
        --offset[size_t(rowDim)];
    else
        return std::nullopt;
    return offset;
}

// The second kind of candidate, counted after every row shift: a tload that covers all rows
// (or reads a rank-1 tensor) but not all columns, moved one column right (left on the last).
std::optional<std::vector<int64_t>> shiftedColumn(const Function& tile, const Op& op) {
    const Shape& gm = tile.type(op.operands[0]).shape;
    if (gm.rank() < 1 || shiftedOffset(tile, op)) return std::nullopt;
    std::vector<int64_t> offset = op.attrs.getInts("offset").value_or(std::vector<int64_t>{});
    if (offset.empty()) offset.assign(size_t(gm.rank()), 0);
    int64_t& col = offset.back();
    const int64_t cols = tile.type(op.result).shape.cols();
    if (col + cols + 1 <= gm.back())
        ++col;
    else if (col >= 1)
        --col;
    else
        return std::nullopt;
    return offset;
}

PlantedFault shiftTileOffset(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    for (auto shift : {shiftedOffset, shiftedColumn}) {
        for (Op& op : s.tile.ops()) {
            if (op.kind != OpKind::TLoad) continue;
            auto shifted = shift(s.tile, op);
            if (!shifted || seen++ != size_t(spec.index)) continue;
            std::vector<int64_t> before =
                op.attrs.getInts("offset").value_or(std::vector<int64_t>(shifted->size(), 0));
            op.attrs.set("offset", *shifted);
            return {spec, "expand-tiles", op.id, UINT32_MAX,
                    fmt::format("{}: offset [{}] → [{}]", opText(s.tile, op),
                                fmt::join(before, ", "), fmt::join(*shifted, ", "))};
        }
    }
    noCandidate(spec, seen, "tloads that can move by a row or a column");
}

// --- tail-tile-mask ---------------------------------------------------------------------

// The offset of a tload of the last row tile of a tensor with more than one row tile, moved
// back onto the tile before it; nullopt for other tloads.
std::optional<std::vector<int64_t>> previousTileOffset(const Function& tile, const Op& op) {
    const Shape& gm = tile.type(op.operands[0]).shape;
    if (gm.rank() < 2) return std::nullopt;
    std::vector<int64_t> offset = op.attrs.getInts("offset").value_or(std::vector<int64_t>{});
    if (offset.empty()) offset.assign(size_t(gm.rank()), 0);
    const size_t rowDim = size_t(gm.rank() - 2);
    const int64_t rows = tile.type(op.result).shape.rows();
    if (offset[rowDim] + rows != gm[int(rowDim)] || offset[rowDim] < rows) return std::nullopt;
    offset[rowDim] -= rows;
    return offset;
}

PlantedFault tailTileMask(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    for (Op& op : s.tile.ops()) {
        if (op.kind != OpKind::TLoad) continue;
        auto moved = previousTileOffset(s.tile, op);
        if (!moved || seen++ != size_t(spec.index)) continue;
        std::vector<int64_t> before =
            op.attrs.getInts("offset").value_or(std::vector<int64_t>(moved->size(), 0));
        op.attrs.set("offset", *moved);
        return {spec, "expand-tiles", op.id, UINT32_MAX,
                fmt::format("{}: the tail tile reads offset [{}] instead of [{}]",
                            opText(s.tile, op), fmt::join(*moved, ", "), fmt::join(before, ", "))};
    }
    noCandidate(spec, seen, "tloads of a last row tile");
}

// --- wrong-scale --------------------------------------------------------------------------

PlantedFault wrongScale(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    for (Op& op : s.tile.ops()) {
        if (op.kind != OpKind::MulS && op.kind != OpKind::DivS) continue;
        if (!op.attrs.find("scalar") || seen++ != size_t(spec.index)) continue;
        const double scalar = op.attrs.getFloat("scalar");
        op.attrs.set("scalar", scalar * 2);
        return {spec, "expand-tiles", op.id, UINT32_MAX,
                fmt::format("{}: scalar {} → {}", opText(s.tile, op), scalar, scalar * 2)};
    }
    noCandidate(spec, seen, "muls/divs tiles");
}

// --- truncate-cast ------------------------------------------------------------------------

PlantedFault truncateCast(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    for (Op& op : s.tile.ops()) {
        if (op.kind != OpKind::Cast || s.tile.type(op.operands[0]).dtype != DType::F32 ||
            s.tile.type(op.result).dtype != DType::F16)
            continue;
        if (seen++ != size_t(spec.index)) continue;
        op.attrs.set("round", std::string("trunc"));
        return {spec, "expand-tiles", op.id, UINT32_MAX,
                fmt::format("{}: f32 → f16 rounds toward zero instead of to nearest even",
                            opText(s.tile, op))};
    }
    noCandidate(spec, seen, "f32 → f16 cast tiles");
}

// --- drop-sync ----------------------------------------------------------------------------

// Removes items `a` < `b` of a block and keeps the buffers' item indices in step.
void eraseItems(BlockFunction& b, uint32_t first, uint32_t second) {
    b.items.erase(b.items.begin() + second);
    b.items.erase(b.items.begin() + first);
    auto fix = [&](uint32_t& i) { i -= (i > first) + (i > second); };
    for (Buffer& buf : b.buffers) {
        fix(buf.firstUse);
        fix(buf.lastUse);
    }
}

PlantedFault dropSync(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    const Function& tile = s.block.tile;
    for (BlockFunction& b : s.block.blocks) {
        for (uint32_t i = 0; i < b.items.size(); ++i) {
            const BlockItem& it = b.items[i];
            if (!it.isSync() || it.sync.kind != SyncKind::WaitFlag || it.sync.src != Pipe::MTE2)
                continue;
            if (seen++ != size_t(spec.index)) continue;
            uint32_t set = i;
            while (set-- > 0) {
                const BlockItem& c = b.items[set];
                if (c.isSync() && c.sync.kind == SyncKind::SetFlag && c.sync.src == it.sync.src &&
                    c.sync.dst == it.sync.dst && c.sync.event == it.sync.event)
                    break;
            }
            OpId consumer = kNoId;
            for (uint32_t j = i + 1; j < b.items.size() && consumer == kNoId; ++j)
                if (!b.items[j].isSync() &&
                    placeTileOp(tile, tile.op(b.items[j].op)).pipe == it.sync.dst)
                    consumer = b.items[j].op;
            const std::string what = fmt::format("wait_flag({}→{}, event {}) #{} of block {} '{}'",
                                                 pipeName(it.sync.src), pipeName(it.sync.dst),
                                                 it.sync.event, i, b.id, b.name);
            const uint32_t blockId = b.id;
            if (set < i)
                eraseItems(b, set, i);
            else
                b.items.erase(b.items.begin() + i);
            return {spec, "insert-sync", consumer, blockId,
                    fmt::format("removed {} and its set_flag; {} no longer waits for its load",
                                what,
                                consumer == kNoId ? "nothing" : opText(tile, tile.op(consumer)))};
        }
    }
    noCandidate(spec, seen, "wait_flags after an MTE2 load");
}

// --- reuse-live-buffer --------------------------------------------------------------------

// The first op after item `after` of block `b` that reads `value`.
OpId firstReaderAfter(const BlockFunction& b, const Function& tile, ValueId value, uint32_t after) {
    for (size_t i = size_t(after) + 1; i < b.items.size(); ++i) {
        if (b.items[i].isSync()) continue;
        const Op& op = tile.op(b.items[i].op);
        for (ValueId v : op.operands)
            if (v == value) return op.id;
    }
    return kNoId;
}

PlantedFault reuseLiveBuffer(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    const Function& tile = s.block.tile;
    for (BlockFunction& b : s.block.blocks) {
        for (Buffer& x : b.buffers) {
            const Buffer* victim = nullptr;
            for (const Buffer& y : b.buffers)
                if (&y != &x && y.space == x.space && y.size >= x.size && y.addr != x.addr &&
                    y.firstUse < x.firstUse && x.firstUse < y.lastUse) {
                    victim = &y;
                    break;
                }
            if (!victim || seen++ != size_t(spec.index)) continue;
            const int64_t before = x.addr;
            x.addr = victim->addr;
            const OpId def = x.value == kNoId ? kNoId : tile.value(x.value).def;
            const OpId reader = firstReaderAfter(b, tile, victim->value, x.firstUse);
            return {
                spec, "allocate-buffers", reader, b.id,
                fmt::format("buffer {} of block {} '{}' ({} bytes in {}, for {}) moved from "
                            "address {} to {}, where buffer {} is still live; {} reads "
                            "overwritten data",
                            x.id, b.id, b.name, x.size, memSpaceName(x.space),
                            def == kNoId ? std::string("?") : opText(tile, tile.op(def)), before,
                            x.addr, victim->id,
                            reader == kNoId ? std::string("?") : opText(tile, tile.op(reader)))};
        }
    }
    noCandidate(spec, seen, "buffers defined while another buffer of the same space is live");
}

// --- drop-cross-wait ----------------------------------------------------------------------

PlantedFault dropCrossWait(CompileState& s, const FaultSpec& spec) {
    size_t seen = 0;
    for (Kernel& k : s.pto.kernels) {
        for (size_t i = 0; i < k.instrs.size(); ++i) {
            const Instr& in = k.instrs[i];
            if (in.opcode != Opcode::CrossWaitFlag || seen++ != size_t(spec.index)) continue;
            std::string next = "nothing";
            for (size_t j = i + 1; j < k.instrs.size(); ++j)
                if (k.instrs[j].pipe == in.pipe) {
                    next = fmt::format("{} (instr {})", opcodeName(k.instrs[j].opcode), j);
                    break;
                }
            const OpId tileOp = in.tileOp;
            PlantedFault planted{spec, "emit-pto", tileOp, k.id,
                                 fmt::format("removed CROSS_WAIT_FLAG {} {} (instr {} of kernel "
                                             "@{}, pipe {}); {} no longer waits for the peer's "
                                             "hand-off",
                                             clusterRoleName(in.peer), in.event, i, k.name,
                                             pipeName(in.pipe), next)};
            k.instrs.erase(k.instrs.begin() + std::ptrdiff_t(i));
            return planted;
        }
    }
    noCandidate(spec, seen, "cross-core waits (CROSS_WAIT_FLAG)");
}

} // namespace

std::string_view injectedFaultName(InjectedFault kind) {
    switch (kind) {
    case InjectedFault::None:
        return "none";
    case InjectedFault::DropSync:
        return "drop-sync";
    case InjectedFault::ShiftTileOffset:
        return "shift-tile-offset";
    case InjectedFault::TruncateCast:
        return "truncate-cast";
    case InjectedFault::ReuseLiveBuffer:
        return "reuse-live-buffer";
    case InjectedFault::DropCrossWait:
        return "drop-cross-wait";
    case InjectedFault::TailTileMask:
        return "tail-tile-mask";
    case InjectedFault::WrongScale:
        return "wrong-scale";
    }
    return "?";
}

std::string_view faultPass(InjectedFault kind) {
    switch (kind) {
    case InjectedFault::DropSync:
        return "insert-sync";
    case InjectedFault::ShiftTileOffset:
    case InjectedFault::TruncateCast:
    case InjectedFault::TailTileMask:
    case InjectedFault::WrongScale:
        return "expand-tiles";
    case InjectedFault::ReuseLiveBuffer:
        return "allocate-buffers";
    case InjectedFault::DropCrossWait:
        return "emit-pto";
    case InjectedFault::None:
        break;
    }
    return {};
}

std::string faultKindNames() {
    std::string names;
    for (InjectedFault k : kKinds)
        names += (names.empty() ? "" : ", ") + std::string(injectedFaultName(k));
    return names;
}

FaultSpec parseFaultSpec(std::string_view text) {
    const size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    FaultSpec spec;
    for (InjectedFault k : kKinds)
        if (injectedFaultName(k) == name) spec.kind = k;
    if (!spec.active())
        throw std::invalid_argument(fmt::format(
            "unknown fault '{}' ({}, optionally followed by :N)", name, faultKindNames()));
    if (colon != std::string_view::npos) {
        const std::string n(text.substr(colon + 1));
        size_t used = 0;
        int index = -1;
        try {
            index = std::stoi(n, &used);
        } catch (const std::exception&) {
        }
        if (index < 0 || used != n.size() || n.empty())
            throw std::invalid_argument(
                fmt::format("--fault {}: '{}' is not a candidate number (0, 1, …)", text, n));
        spec.index = index;
    }
    return spec;
}

PlantedFault injectFault(CompileState& state, const FaultSpec& spec) {
    switch (spec.kind) {
    case InjectedFault::DropSync:
        return dropSync(state, spec);
    case InjectedFault::ShiftTileOffset:
        return shiftTileOffset(state, spec);
    case InjectedFault::TruncateCast:
        return truncateCast(state, spec);
    case InjectedFault::ReuseLiveBuffer:
        return reuseLiveBuffer(state, spec);
    case InjectedFault::DropCrossWait:
        return dropCrossWait(state, spec);
    case InjectedFault::TailTileMask:
        return tailTileMask(state, spec);
    case InjectedFault::WrongScale:
        return wrongScale(state, spec);
    case InjectedFault::None:
        break;
    }
    return {spec, "", kNoId, UINT32_MAX, "nothing planted"};
}

} // namespace pto
