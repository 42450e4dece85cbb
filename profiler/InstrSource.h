// What ties each instruction of a trace back to the program, resolved once per tile op so that
// the exports (Chrome JSON, CSV) can add it to every slice that executed the instruction at the
// cost of a lookup: the source location, the tile op the instruction was generated for, the op
// of the program it came from (for an op of an unrolled loop's body, that op, not the loop),
// and the iteration of the user's loop it belongs to.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::prof {

struct InstrSource {
    std::string location; ///< "flash_attention_loop.pto:22"; "" when the line is unknown
    std::string tileOp;   ///< "tload %4361"
    std::string op;       ///< "matmul %qk": the Tensor op, or the loop body op it copies
    /// "kv, iter 0": the nearest loop label of its tile op and the ops it came from (for an
    /// instruction of a counted loop of the program, round 0's; the slice's `loop` arg names
    /// its own round's).
    std::string loop;
};

/// The instructions of one trace (ids as in `instr.id`), each naming one of a few distinct
/// sources (the instructions of one tile op share theirs).
class InstrSources {
public:
    /// Index into sources() of the instruction's source, -1 when the trace knows none.
    std::int32_t indexOf(std::int64_t instrId) const {
        if (instrId >= 0 && std::size_t(instrId) < m_dense.size())
            return m_dense[std::size_t(instrId)];
        if (m_sparse.empty()) return -1;
        const auto it = m_sparse.find(instrId);
        return it == m_sparse.end() ? -1 : it->second;
    }
    const InstrSource* find(std::int64_t instrId) const {
        const std::int32_t i = indexOf(instrId);
        return i < 0 ? nullptr : &m_sources[std::size_t(i)];
    }
    const std::vector<InstrSource>& sources() const { return m_sources; }
    /// Instructions with a source.
    std::size_t size() const { return m_count; }

    /// Gives instruction `instrId` source `index` (into sources(), or -1).
    void set(std::int64_t instrId, std::int32_t index);
    /// Appends a source; returns its index.
    std::int32_t add(InstrSource source);
    /// Sizes the dense table for ids up to `maxId` (ids beyond go to a map).
    void reserveIds(std::int64_t maxId);

private:
    std::vector<std::int32_t> m_dense; // by id; -1 = none
    std::unordered_map<std::int64_t, std::int32_t> m_sparse;
    std::vector<InstrSource> m_sources;
    std::size_t m_count = 0;
};

/// One pass over the instructions joined with their tile ops (by the node table's primary
/// key); one provenance walk per tile op through the shared parent maps (ProvenanceResolver).
/// The file name is the base name of meta `program_path` ("program" when absent).
InstrSources loadInstrSources(const tracedb::TraceReader& reader);

} // namespace pto::prof
