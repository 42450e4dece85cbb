// The per-value state of expand-tiles: which tiles of each Tensor value exist on chip, where
// the value lives in GM (its home), and the loads, stores and copies between the two.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/expand/Messages.h"
#include "compiler/passes/expand/Region.h"
#include "compiler/passes/expand/TileEmitter.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pto::expand {

enum class HomeKind : uint8_t {
    Same,   // the GM tensor has the value's shape
    Offset, // the value is the box at `offset` of the GM tensor (same rank)
    Rows,   // the value shares the GM tensor's rows × cols view (a reshape keeping the last dim)
};

struct Home {
    ValueId gm = kNoId;
    HomeKind kind = HomeKind::Same;
    Shape offset;
};

struct TensorTiles {
    std::vector<std::pair<Region, ValueId>> produced;           // computed on chip, in order
    std::unordered_map<Region, ValueId, RegionHash> producedAt; // the same, by region
    std::unordered_map<Region, ValueId, RegionHash> loaded;     // shared loads from the home
    // the same for GmReads readers, by their split group
    std::unordered_map<uint32_t, std::unordered_map<Region, ValueId, RegionHash>> splitLoads;
    std::optional<Home> home;
};

// Owns the per-value state of the expansion: which tiles exist, where each value lives in GM,
// and the loads, stores and copies that move values between the two.
class TensorHomes {
public:
    TensorHomes(const Function& src, TileEmitter& emit, const std::string& file,
                const GmReads& gmReads)
        : m_src(src), m_emit(emit), m_file(file), m_gmReads(gmReads), m_tiles(src.valueCount()),
          m_resultIndices(src.valueCount()) {}

    // Whether Tensor op `reader` takes v from its GM home (a GmReads entry), not from chip.
    bool readsFromHome(ValueId v, OpId reader) const {
        return !m_gmReads.empty() && m_gmReads.count({v, reader});
    }

    void declareArguments();
    void declareOutputs();

    // The tile holding exactly `region` of Tensor value v: the one its producer computed, or
    // a load from v's home shared by every later reader of that region.
    ValueId tileOf(ValueId v, const Region& region, Provenance from);
    // The shared load of `region` from v's home (materialising v first if it has none), even
    // when v's producer computed that tile on chip.
    ValueId homeTile(ValueId v, const Region& region, Provenance from);
    // The load of `region` from v's home for a reader that GmReads splits from v's chain: shared
    // only with other such readers of its split group, since a load shared with the chain (an
    // argument's index tile read by a gather before a matmul and a scatter after it) would join
    // them again.
    ValueId splitTile(ValueId v, const Region& region, Provenance from);
    // The tile v's producer computed for exactly `region`, or kNoId.
    ValueId producedTile(ValueId v, const Region& region) const {
        const auto& at = m_tiles[v].producedAt;
        auto it = at.find(region);
        return it == at.end() ? kNoId : it->second;
    }
    // Records a tile computed on chip for `region` of v.
    void produce(ValueId v, const Region& region, ValueId tile) {
        TensorTiles& t = m_tiles[v];
        t.producedAt.emplace(region, tile);
        t.produced.emplace_back(region, tile);
    }
    bool hasHome(ValueId v) const { return m_tiles[v].home.has_value(); }
    // Sets v's home directly (views, and values written straight into GM).
    void setHome(ValueId v, Home home) { m_tiles[v].home = std::move(home); }
    // v's home, storing its produced tiles into a new workspace if it has none yet.
    const Home& materialise(ValueId v);
    // Where an op that writes v straight to GM should write it: v's output, or a workspace.
    ValueId destinationOf(ValueId v, Provenance from);
    // After v's producer is expanded: write v into every output it is returned as.
    void finish(ValueId v);

    // v's home as a GM tensor of v's own shape: a view or reshape is copied into a
    // workspace first (GM → UB → GM) and the workspace becomes its home.
    Home plainHome(ValueId v, Provenance from);
    // Loads `region` of v through `home` into a fresh tile (not shared).
    ValueId loadFresh(ValueId v, Home home, const Region& region, Provenance from);
    // Copies v into `gm` at `shift` + v's coordinates: its on-chip tiles are stored directly,
    // otherwise it is read from its home tile by tile (GM → UB → GM).
    void copyInto(ValueId v, ValueId gm, const Shape& shift, Provenance from);

    const Type& type(ValueId v) const { return m_src.type(v); }
    Provenance producerOf(ValueId v) const {
        const Op* p = m_src.producer(v);
        return p ? provenanceOf(*p) : Provenance{kNoId, m_src.loc};
    }
    const std::vector<std::pair<Region, ValueId>>& produced(ValueId v) const {
        return m_tiles[v].produced;
    }

private:
    // `base`, else `base` with the first free number (base1, base2, …). Names are never
    // released, so the search for a base resumes where its last one ended: an unrolled loop
    // names thousands of workspaces after one value.
    std::string uniqueName(std::string base) {
        if (base.empty()) base = "ws";
        int& next = m_nextSuffix[base];
        std::string name = next == 0 ? base : fmt::format("{}{}", base, next);
        while (!m_names.insert(name).second) name = fmt::format("{}{}", base, ++next);
        ++next;
        return name;
    }
    ValueId workspace(ValueId v, Provenance from) {
        const std::string& n = m_src.value(v).name;
        return m_emit.gmTensor(type(v).dtype, type(v).shape,
                               uniqueName(n.empty() ? "ws" : n + "_ws"), "workspace", from);
    }
    // A region of the value, placed in its home GM tensor, if the home can serve it directly.
    std::optional<Shape> gmCorner(ValueId v, const Home& home, const Region& region) const;

    const Function& m_src;
    TileEmitter& m_emit;
    const std::string& m_file;
    const GmReads& m_gmReads;
    std::vector<TensorTiles> m_tiles;
    std::vector<std::vector<size_t>> m_resultIndices; // Tensor value → indices in results
    std::vector<ValueId> m_outputs;                   // gm_tensor per function result
    std::unordered_set<std::string> m_names;
    std::unordered_map<std::string, int> m_nextSuffix; // base → the number to try next
};

} // namespace pto::expand
