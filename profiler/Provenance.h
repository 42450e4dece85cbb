// Follows provenance from a Tile-level op back to the op of the parsed program it came from
// (node.parent_id through stage.parent_stage_id), as the `provenance` view describes.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pto::prof {

class ProvenanceResolver {
public:
    /// Reads the stage chain; node parent maps are loaded per stage on first use.
    explicit ProvenanceResolver(const tracedb::TraceReader& reader);

    /// The root-stage (parsed program) node that (stageId, nodeId) derives from, or -1 when
    /// the chain breaks (a node made from many parents, or a stage not recorded in full).
    std::int64_t rootOf(std::int64_t stageId, std::int64_t nodeId);
    std::int64_t rootStage() const { return m_root; }

private:
    const std::unordered_map<std::int64_t, std::int64_t>& parents(std::int64_t stageId);

    const tracedb::TraceReader& m_reader;
    std::int64_t m_root = -1;
    std::unordered_map<std::int64_t, std::int64_t> m_parentStage;
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> m_parents;
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> m_memo;
};

} // namespace pto::prof
