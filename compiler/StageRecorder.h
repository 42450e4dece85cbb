// Records every stage of a compile into a trace file: one `stage` row per pass, with the
// stage's nodes, edges, buffers and instructions, and provenance to the stage before.
#pragma once

#include "compiler/PassManager.h"
#include "compiler/RecordDict.h"
#include "trace_db/TraceWriter.h"
#include "trace_db/WriterThread.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto {

struct RecordLimits {
    // Intermediate stages larger than this keep only their stage row (with counts); the last
    // stage of each level is always recorded in full, so provenance stays complete.
    int64_t fullStageNodes = 20000;
    // Stages printed larger than this store no ir_text (a `stats` row says so).
    int64_t irTextNodes = 20000;
    // `--record final`: only the parsed program and the last stage of the Tile, Block, Exec and
    // PTO levels are recorded (in full, whatever their size); every other stage leaves no row
    // at all. Provenance is composed across the stages left out, as across big ones.
    bool finalStagesOnly = false;
};

// Where the recorder's inserts run: on the thread that runs the passes, or on a WriterThread
// of its own, so that the passes go on while the rows of the stages before are inserted.
enum class RecordThread { Caller, Writer };

// Rows are built on the caller's thread (from the stage, which the next pass changes) and
// handed to the writer a chunk at a time; with RecordThread::Writer they are inserted on the
// recorder's WriterThread, in the order they would be inserted synchronously, with the same
// ids: stage ids are numbered here (from TraceWriter::nextStageId), not by the insert. While
// that thread runs, nobody else may use the writer: call finish() before touching it again.
class StageRecorder : public StageObserver {
public:
    StageRecorder(tracedb::TraceWriter& writer, const TargetInfo& target, RecordLimits limits = {},
                  RecordThread thread = RecordThread::Caller);
    void onStage(const StageEvent& event) override;
    // No stage comes after: the dict texts interned for the stages are inserted now (on the
    // writer thread, if any) rather than by the writer's commit. Nobody may intern text into
    // the writer until finish() returned.
    void stagesDone();
    // Waits until every row is inserted; an insert's error (a full disk, …) is thrown here, or
    // by the onStage after it. Afterwards the writer is the caller's again. Idempotent.
    void finish();

    // The stage id holding the last Tile-level snapshot (instructions' provenance refers to it).
    int64_t lastTileStage() const { return m_lastTileStage; }

private:
    bool isLastOfLevel(const StageEvent& event) const;
    bool isFinalStage(const StageEvent& event) const;
    // `bytes`: what the job holds, counted against the queue's bound.
    void submit(tracedb::WriterThread::Job job, size_t bytes = 64);
    // Hands `rows` over (leaving it empty); sendChunk only once a chunk is full.
    template <typename Row> void send(std::vector<Row>& rows);
    template <typename Row> void sendChunk(std::vector<Row>& rows);
    // Each op's parent as a node id of the last stage recorded in full (m_anchorStage).
    std::vector<int64_t> anchoredParents(const Function& f) const;
    void recordFunction(int64_t stage, const Function& f, const std::vector<int64_t>& parents);
    // Buffers are written for the last Block stage (and for small programs at every one).
    void recordBlocks(int64_t stage, const BlockProgram& program, bool withBuffers);
    static size_t bufferCount(const BlockProgram& program);
    void recordExec(int64_t stage, const ExecGraph& exec);
    void recordPto(int64_t stage, const PtoProgram& pto);
    RecordDict::Id shapeId(const Shape& shape);
    // The dict id of an enum value's name.
    RecordDict::Id nameId(OpKind kind) { return m_opKinds.get(m_names, kind, opName); }
    RecordDict::Id nameId(DType dtype) { return m_dtypes.get(m_names, dtype, dtypeName); }
    RecordDict::Id nameId(MemSpace space) { return m_spaces.get(m_names, space, memSpaceName); }
    RecordDict::Id nameId(CoreType core) { return m_cores.get(m_names, core, coreTypeName); }
    RecordDict::Id nameId(Pipe pipe) { return m_pipes.get(m_names, pipe, pipeName); }
    RecordDict::Id nameId(Opcode opcode) { return m_opcodes.get(m_names, opcode, opcodeName); }
    // An edge's label (its value's type, "[128,64]xf16 UB"), formatted once per type.
    const std::string& labelOf(const Type& t);

    tracedb::TraceWriter& m_writer;
    TargetInfo m_target;
    RecordLimits m_limits;
    int64_t m_nextStageId;
    static constexpr int64_t kNoParent = INT64_MIN;
    int64_t m_prevStage = -1;
    // Provenance across stages that were not recorded in full: for every op of the previous
    // function stage, its ancestor in m_anchorStage (empty = identity).
    std::vector<int64_t> m_anchor;
    int64_t m_anchorStage = -1;
    int64_t m_lastTileStage = -1;
    // The block functions of the last Block stage by name: a PTO kernel node's parent (after
    // kernels are shared and renumbered, kernel i is no longer block function i).
    std::unordered_map<std::string, int64_t> m_blockIds;
    // The repeated text of nodes and instructions, each distinct value formatted once: names
    // of enums and other short text by the text, shapes, attrs and operand lists by the value
    // they are formatted from (m_key, reused to spare its allocations).
    RecordDict m_names;
    RecordDict m_shapes;
    RecordDict m_attrs;
    RecordDict m_operands;
    EnumNameIds<OpKind> m_opKinds;
    EnumNameIds<DType> m_dtypes;
    EnumNameIds<MemSpace> m_spaces;
    EnumNameIds<CoreType> m_cores;
    EnumNameIds<Pipe> m_pipes;
    EnumNameIds<Opcode> m_opcodes;
    DictKey m_key;
    std::unordered_map<std::string, std::string, RecordDict::Hash, std::equal_to<>> m_labels;
    // Last, so that it is joined first; its jobs own their rows and touch only the writer (and
    // the labels of m_labels that queued edges point to, which are never changed or removed).
    std::optional<tracedb::WriterThread> m_thread;
};

// Writes the program and target facts into `meta` (program_path, program_text, entry, …).
void recordProgramMeta(tracedb::TraceWriter& writer, const CompileState& state,
                       const CompileOptions& options);

} // namespace pto
