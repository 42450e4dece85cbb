// Records every stage of a compile into a trace file: one `stage` row per pass, with the
// stage's nodes, edges, buffers and instructions, and provenance to the stage before.
#pragma once

#include "compiler/PassManager.h"
#include "trace_db/TraceWriter.h"

#include <cstdint>
#include <vector>

namespace pto {

struct RecordLimits {
    // Intermediate stages larger than this keep only their stage row (with counts); the last
    // stage of each level is always recorded in full, so provenance stays complete.
    int64_t fullStageNodes = 20000;
    // Stages printed larger than this store no ir_text (a `stats` row says so).
    int64_t irTextNodes = 20000;
};

class StageRecorder : public StageObserver {
public:
    StageRecorder(tracedb::TraceWriter& writer, const TargetInfo& target, RecordLimits limits = {});
    void onStage(const StageEvent& event) override;

    // The stage id holding the last Tile-level snapshot (instructions' provenance refers to it).
    int64_t lastTileStage() const { return m_lastTileStage; }

private:
    bool isLastOfLevel(const StageEvent& event) const;
    // Each op's parent as a node id of the last stage recorded in full (m_anchorStage).
    std::vector<int64_t> anchoredParents(const Function& f) const;
    void recordFunction(int64_t stage, const Function& f, const std::vector<int64_t>& parents);
    // Buffers are written for the last Block stage (and for small programs at every one).
    void recordBlocks(int64_t stage, const BlockProgram& program, bool withBuffers);
    static size_t bufferCount(const BlockProgram& program);
    void recordExec(int64_t stage, const ExecGraph& exec);
    void recordPto(int64_t stage, const PtoProgram& pto);

    tracedb::TraceWriter& m_writer;
    TargetInfo m_target;
    RecordLimits m_limits;
    static constexpr int64_t kNoParent = INT64_MIN;
    int64_t m_prevStage = -1;
    // Provenance across stages that were not recorded in full: for every op of the previous
    // function stage, its ancestor in m_anchorStage (empty = identity).
    std::vector<int64_t> m_anchor;
    int64_t m_anchorStage = -1;
    int64_t m_lastTileStage = -1;
};

// Writes the program and target facts into `meta` (program_path, program_text, entry, …).
void recordProgramMeta(tracedb::TraceWriter& writer, const CompileState& state,
                       const CompileOptions& options);

} // namespace pto
