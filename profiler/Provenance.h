// Follows provenance from any stage's node back to the op of the parsed program it came from
// (node.parent_id through stage.parent_stage_id), as the `provenance` view describes. The one
// walk the profiler and pto-studio share.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace pto::prof {

/// A node of one stage.
struct NodeRef {
    std::int64_t stageId = -1;
    std::int64_t id = -1;
    bool operator==(const NodeRef&) const = default;
};

/// Works on one reader (one thread). Parent maps are loaded a stage at a time and kept; a
/// stage whose map is not loaded is asked by point queries (the node table's primary key), so a
/// single click costs a few lookups, not a stage-wide load.
///
/// The file is not trusted: a stage.parent_stage_id chain that loops (a stage naming itself or
/// a descendant as its parent) is cut where it closes, the stages are listed by
/// cyclicStages(), and every walk is iterative and at most one step per stage long.
class ProvenanceResolver {
public:
    explicit ProvenanceResolver(const tracedb::TraceReader& reader);

    /// The root-stage (parsed program) node that (stageId, nodeId) derives from, or -1 when
    /// the chain breaks (a node made from many parents, or a stage not recorded in full).
    /// Loads the parent maps of the stage and its ancestors first: for walks over many nodes.
    std::int64_t rootOf(std::int64_t stageId, std::int64_t nodeId);
    /// The same, nullopt when the chain breaks (the program's argument 0 is node -1, so -1 is
    /// ambiguous); uses whatever maps are loaded and point queries for the rest.
    std::optional<std::int64_t> findRoot(std::int64_t stageId, std::int64_t nodeId);
    /// Loads the parent maps of `stageId` and every stage above it.
    void loadAncestry(std::int64_t stageId);
    /// The op of a loop's body that (stageId, nodeId) derives from, when unroll-loops wrote the
    /// loop out on the way: the node of the chain that is no `for` while its parent is one, the
    /// nearest to the root (the parsed program records a loop as its `for` op only, so the
    /// chain of an unrolled op climbs from the body op's copy to the loop). The copies of the
    /// other iterations are nodes of the same stage with the same kind and source position.
    /// nullopt for a node of no loop body. Memoized like findRoot().
    std::optional<NodeRef> loopBodyOf(std::int64_t stageId, std::int64_t nodeId);
    std::int64_t rootStage() const { return m_root; }
    /// Stages whose parent_stage_id closed a loop; their parent link is ignored (by ord).
    const std::vector<std::int64_t>& cyclicStages() const { return m_cyclicStages; }

private:
    void cutCycles(const std::vector<tracedb::StageRow>& stages);
    const std::unordered_map<std::int64_t, std::int64_t>& parents(std::int64_t stageId);
    std::optional<std::int64_t> parentOf(std::int64_t stageId, std::int64_t nodeId);
    std::optional<std::int64_t>* memoOf(std::int64_t stageId, std::int64_t nodeId);
    bool isLoop(std::int64_t stageId, std::int64_t nodeId);

    const tracedb::TraceReader& m_reader;
    std::int64_t m_root = -1;
    std::unordered_map<std::int64_t, std::int64_t> m_parentStage; ///< stage → parent stage
    std::vector<std::int64_t> m_cyclicStages;
    /// stage → (node → parent node), loaded per stage on first use
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> m_parents;
    /// stage → (node → root), every stage a walk passes through is memoized
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::optional<std::int64_t>>>
        m_memo;
    /// stage → its `for` nodes, loaded per stage on first use
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> m_loops;
    /// stage → (node → the loop body op it derives from), as m_memo
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::optional<NodeRef>>>
        m_bodyMemo;
};

} // namespace pto::prof
