// Tensor values' tiles and GM homes: arguments, outputs, workspaces, loads and copies.
#include "compiler/passes/expand/TensorHomes.h"

#include "compiler/passes/DefaultVecTiles.h"

#include <fmt/format.h>

namespace pto::expand {

void TensorHomes::declareArguments() {
    Function& dst = m_emit.fn();
    for (size_t i = 0; i < m_src.args.size(); ++i) {
        const ValueId a = m_src.args[i];
        std::string name = m_src.value(a).name;
        if (name.empty()) name = fmt::format("arg{}", i);
        name = uniqueName(name);
        Type t = type(a);
        t.space = MemSpace::GM;
        ValueId gm = dst.addArg(t, name);
        dst.value(gm).origin = a;
        dst.value(gm).offset = zeros(t.shape.rank());
        m_tiles[a].home = Home{gm, HomeKind::Same, {}};
    }
}

void TensorHomes::declareOutputs() {
    for (size_t i = 0; i < m_src.results.size(); ++i) {
        const ValueId r = m_src.results[i];
        m_resultIndices[r].push_back(i);
        const bool isArg = m_src.value(r).def == kNoId;
        std::string base =
            isArg || m_src.value(r).name.empty() ? fmt::format("out{}", i) : m_src.value(r).name;
        ValueId gm = m_emit.gmTensor(type(r).dtype, type(r).shape, uniqueName(base), "output",
                                     producerOf(r));
        m_outputs.push_back(gm);
        m_emit.fn().results.push_back(gm);
    }
}

ValueId TensorHomes::destinationOf(ValueId v, Provenance from) {
    if (!m_resultIndices[v].empty()) return m_outputs[m_resultIndices[v].front()];
    return workspace(v, from);
}

const Home& TensorHomes::materialise(ValueId v) {
    TensorTiles& t = m_tiles[v];
    if (t.home) return *t.home;
    if (t.produced.empty())
        throw CompileError(m_file, m_src.loc,
                           fmt::format("internal error in expand-tiles: value {} has neither "
                                       "tiles nor a GM home",
                                       valueRef(m_src, v)));
    const Provenance from = producerOf(v);
    const ValueId gm = workspace(v, from);
    for (const auto& [region, tile] : t.produced) m_emit.store(tile, gm, region.offset, from);
    t.home = Home{gm, HomeKind::Same, {}};
    return *t.home;
}

std::optional<Shape> TensorHomes::gmCorner(ValueId v, const Home& home,
                                           const Region& region) const {
    const Shape& gmShape = m_emit.fn().type(home.gm).shape;
    switch (home.kind) {
    case HomeKind::Same:
        return region.offset;
    case HomeKind::Offset: {
        Region inGm = region;
        for (int d = 0; d < inGm.offset.rank(); ++d) inGm.offset[d] += home.offset[d];
        if (!spansContiguousRows(gmShape, region.extent) || !contains(gmShape, inGm))
            return std::nullopt;
        return inGm.offset;
    }
    case HomeKind::Rows: {
        const int64_t row = rowIndex(type(v).shape, region.offset);
        return cornerAt(gmShape, row, region.offset.empty() ? 0 : region.offset.back());
    }
    }
    return std::nullopt;
}

Home TensorHomes::plainHome(ValueId v, Provenance from) {
    const Home home = materialise(v);
    if (home.kind == HomeKind::Same) return home;
    const ValueId ws = workspace(v, from);
    copyInto(v, ws, zeros(type(v).shape.rank()), from);
    m_tiles[v].home = Home{ws, HomeKind::Same, {}};
    return *m_tiles[v].home;
}

ValueId TensorHomes::loadFresh(ValueId v, Home home, const Region& region, Provenance from) {
    std::optional<Shape> corner = gmCorner(v, home, region);
    if (!corner) {
        // A view whose tile rows are not consecutive rows of the viewed tensor: read it
        // from a copy of its own. (Copy tiles are single rows of blocks, always readable.)
        home = plainHome(v, from);
        corner = region.offset;
    }
    return m_emit.tile(OpKind::TLoad, {home.gm}, offsetAttr(*corner), type(v).dtype,
                       rowsOf(region.extent), colsOf(region.extent), v, region.offset, from);
}

ValueId TensorHomes::tileOf(ValueId v, const Region& region, Provenance from) {
    if (readsFromHome(v, from.parent)) return splitTile(v, region, from);
    if (ValueId t = producedTile(v, region); t != kNoId) return t;
    return homeTile(v, region, from);
}

ValueId TensorHomes::homeTile(ValueId v, const Region& region, Provenance from) {
    if (auto it = m_tiles[v].loaded.find(region); it != m_tiles[v].loaded.end()) return it->second;
    const Home home = materialise(v);
    const ValueId tile = loadFresh(v, home, region, from);
    m_tiles[v].loaded.emplace(region, tile);
    return tile;
}

ValueId TensorHomes::splitTile(ValueId v, const Region& region, Provenance from) {
    auto& loads = m_tiles[v].splitLoads[m_gmReads.at({v, from.parent})];
    if (auto it = loads.find(region); it != loads.end()) return it->second;
    const Home home = materialise(v);
    const ValueId tile = loadFresh(v, home, region, from);
    loads.emplace(region, tile);
    return tile;
}

void TensorHomes::copyInto(ValueId v, ValueId gm, const Shape& shift, Provenance from) {
    const Type& t = type(v);
    // Stored tiles of v can go straight out; otherwise read v from its home tile by tile.
    const TensorTiles& tiles = m_tiles[v];
    auto shifted = [&](const Shape& o) {
        Shape s = o;
        for (int d = 0; d < s.rank(); ++d) s[d] += shift[d];
        return s;
    };
    if (!tiles.produced.empty()) {
        for (const auto& [region, tile] : tiles.produced)
            m_emit.store(tile, gm, shifted(region.offset), from);
        return;
    }
    const Home home = materialise(v);
    forEachTile(t.shape, defaultCopyTile(t.shape, t.dtype), [&](const Region& r) {
        ValueId tile = loadFresh(v, home, r, from);
        m_emit.store(tile, gm, shifted(r.offset), from);
    });
}

void TensorHomes::finish(ValueId v) {
    for (size_t index : m_resultIndices[v]) {
        const ValueId out = m_outputs[index];
        TensorTiles& t = m_tiles[v];
        if (t.home && t.home->kind == HomeKind::Same && t.home->gm == out) continue;
        copyInto(v, out, zeros(type(v).shape.rank()), producerOf(v));
        // Later readers load from the output: a plain home, whatever v's home was.
        m_tiles[v].home = Home{out, HomeKind::Same, {}};
    }
}

} // namespace pto::expand
