// Plain row structs, one per trace table, as written by TraceWriter and read by TraceReader.
#pragma once

#include "trace_db/Enums.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pto::tracedb {

// Conventions (the full meaning of every column is in docs/TRACE_SCHEMA.md):
//  - Times and durations are integer cycles of the clock in meta 'clock_hz'.
//  - `id` fields set to kAutoId on write let the file assign the next id (ids start at 1);
//    TraceWriter::add returns the id. Rows read back always carry their real id.
//  - std::optional fields are NULL in the file when empty. Text fields: an empty string is
//    stored as NULL and NULL reads back as an empty string.
//  - `nameId` fields are ids from TraceWriter::intern (table `string`).
//  - Every field has a default, so rows can be built with designated initializers:
//    SliceRow{.ts = 100, .dur = 8, .trackId = pipe, .nameId = tload}.

inline constexpr std::int64_t kAutoId = 0;

/// One IR snapshot: the program after a pass (table `stage`).
struct StageRow {
    std::int64_t id = kAutoId;
    std::int64_t ord = 0; ///< position in the pipeline, 0 = first snapshot
    std::string name{};   ///< e.g. "tile.after_expand"
    StageLevel level = StageLevel::Tensor;
    std::string pass{}; ///< pass that produced it ("" for the parsed input)
    std::optional<std::int64_t> parentStageId{}; ///< stage its entities' parent_id refer to
    std::string irText{};                        ///< the printed IR
    double passMicros = 0;                       ///< wall time of the pass, microseconds
    std::int64_t nodeCount = 0;
    std::int64_t edgeCount = 0;
};

/// An op (Tensor/Tile stages), block function (Block stage) or task (Exec stage).
struct NodeRow {
    std::int64_t stageId = 0;
    std::int64_t id = 0; ///< unique within the stage
    std::string kind{};  ///< op kind ("matmul", "tload"), "block_fn" or "task"
    std::string name{};
    std::string dtype{}; ///< result element type ("f16", "bf16", "f32"...)
    std::string shape{}; ///< result shape as a JSON array, e.g. "[128,64]"
    std::string space{}; ///< memory space of the result (GM, L1, L0A, L0B, L0C, UB)
    std::string core{};  ///< core type: AIC or AIV
    std::string pipe{};  ///< pipe: S, MTE1, MTE2, MTE3, M, FIX, V
    std::string attrs{}; ///< attributes as a JSON object
    std::optional<std::int64_t> groupId{};  ///< graph-view group (see TRACE_SCHEMA.md)
    std::optional<std::int64_t> parentId{}; ///< entity of the parent stage it came from
    std::optional<std::int64_t> srcLine{};  ///< 1-based line in meta 'program_text'
    std::optional<std::int64_t> srcCol{};   ///< 1-based column
};

/// A dataflow edge (Tensor/Tile) or task dependency (Exec).
struct EdgeRow {
    std::int64_t stageId = 0;
    std::int64_t src = 0; ///< node id
    std::int64_t dst = 0; ///< node id
    std::optional<std::int64_t> valueId{};
    std::string label{};
};

/// An on-chip buffer allocation of a block function.
struct BufferRow {
    std::int64_t stageId = 0;
    std::int64_t id = 0;                    ///< unique within the stage
    std::int64_t blockId = 0;               ///< block function: a node of the same stage
    std::string space{};                    ///< L1, L0A, L0B, L0C or UB
    std::int64_t addr = 0;                  ///< byte offset in the space
    std::int64_t size = 0;                  ///< bytes
    std::optional<std::int64_t> firstUse{}; ///< position in the block's order, inclusive
    std::optional<std::int64_t> lastUse{};  ///< position in the block's order, inclusive
    std::optional<std::int64_t> valueId{};
    std::int64_t slot = 0; ///< double-buffer slot (0 or 1)
};

/// A PTO instruction of a block function.
struct InstrRow {
    std::int64_t id = kAutoId;
    std::int64_t stageId = 0;
    std::int64_t blockId = 0; ///< block function: a node of the same stage
    std::int64_t idx = 0;     ///< position in the block's instruction list
    std::string pipe{};
    std::string opcode{};   ///< TLOAD, TMATMUL, set_flag...
    std::string operands{}; ///< printed operands
    std::string flags{};
    std::optional<std::int64_t> tileOpId{}; ///< node id in stage tileStageId it came from
    std::optional<std::int64_t> tileStageId{};
    std::optional<std::int64_t> srcLine{};
    /// The work the roofline counts (compiler/ir/Cost.h); empty in files older than schema 2.
    std::optional<double> flops{};
    std::optional<std::int64_t> gmBytes{}; ///< bytes a TLOAD/TSTORE moves to or from GM
    std::optional<std::string> srcDtype{}; ///< dtype of a matmul's A, else of operand 1
};

/// A node as table node_data stores it (schema 4): the text columns a stage repeats are ids of
/// table `dict` (TraceWriter::internDict), empty = NULL. For producers that intern each distinct
/// value once themselves (compiler/StageRecorder); TraceWriter::add(NodeRow) interns a NodeRow's
/// text into the same form. Read nodes back as NodeRow, through the view `node`.
struct NodeDataRow {
    std::int64_t stageId = 0;
    std::int64_t id = 0;
    std::optional<std::int64_t> kindDict{};
    std::string name{};
    std::optional<std::int64_t> dtypeDict{};
    std::optional<std::int64_t> shapeDict{};
    std::optional<std::int64_t> spaceDict{};
    std::optional<std::int64_t> coreDict{};
    std::optional<std::int64_t> pipeDict{};
    std::optional<std::int64_t> attrsDict{};
    std::optional<std::int64_t> groupId{};
    std::optional<std::int64_t> parentId{};
    std::optional<std::int64_t> srcLine{};
    std::optional<std::int64_t> srcCol{};
};

/// An instruction as table instr_data stores it (schema 4), its text as `dict` ids like
/// NodeDataRow's. Read instructions back as InstrRow, through the view `instr`.
struct InstrDataRow {
    std::int64_t id = kAutoId;
    std::int64_t stageId = 0;
    std::int64_t blockId = 0;
    std::int64_t idx = 0;
    std::optional<std::int64_t> pipeDict{};
    std::optional<std::int64_t> opcodeDict{};
    std::optional<std::int64_t> operandsDict{};
    std::optional<std::int64_t> flagsDict{};
    std::optional<std::int64_t> tileOpId{};
    std::optional<std::int64_t> tileStageId{};
    std::optional<std::int64_t> srcLine{};
    std::optional<double> flops{};
    std::optional<std::int64_t> gmBytes{};
    std::optional<std::int64_t> srcDtypeDict{};
};

/// A timeline lane: chip → core → pipe, plus task and counter tracks.
struct TrackRow {
    std::int64_t id = kAutoId;
    std::optional<std::int64_t> parentId{};
    std::int64_t nameId = 0;
    TrackKind kind = TrackKind::Pipe;
    std::optional<std::int64_t> coreId{};
    std::string coreType{}; ///< AIC or AIV
    std::string pipe{};
    std::int64_t sortIndex = 0; ///< display order among siblings
    /// Measured traces (`pto import`, schema 3): the device stream of a kernel track and the
    /// host thread of a host track; NULL on simulated tracks and in older files.
    std::optional<std::int64_t> streamId{};
    std::optional<std::int64_t> threadId{};
};

/// A time interval on a track: one instruction, task, stall or wait.
struct SliceRow {
    std::int64_t id = kAutoId;
    std::int64_t ts = 0;  ///< start, cycles
    std::int64_t dur = 0; ///< duration, cycles
    std::int64_t trackId = 0;
    std::int64_t nameId = 0;
    SliceCategory category = SliceCategory::Instr;
    std::int64_t depth = 0; ///< nesting level on its track, 0 = top
    std::optional<std::int64_t> instrId{};
    std::optional<std::int64_t> taskId{}; ///< node id of the task in the Exec stage
    std::optional<std::int64_t> argSetId{};
};

/// One sample of a counter track (value holds from ts to the next sample).
struct CounterRow {
    std::int64_t ts = 0;
    std::int64_t trackId = 0;
    double value = 0;
};

/// An arrow between two slices: flag set → wait, or task → dependent task.
struct FlowRow {
    std::int64_t id = kAutoId;
    std::int64_t sliceOut = 0;
    std::int64_t sliceIn = 0;
    FlowKind kind = FlowKind::Flag;
};

using ArgValue = std::variant<std::int64_t, double, std::string>;

/// One key/value of an argument set attached to slices.
struct ArgRow {
    std::int64_t argSetId = 0;
    std::string key{};
    ArgValue value{};
};

/// Tensor data: inputs, outputs, goldens and recorded intermediates.
struct TensorRow {
    std::int64_t id = kAutoId;
    std::string name{};
    TensorRole role = TensorRole::Input;
    std::string dtype{};
    std::string shape{}; ///< JSON array
    std::optional<std::int64_t> stageId{};
    std::optional<std::int64_t> valueId{};
    std::vector<std::byte> data{}; ///< little-endian, row-major; bf16 as uint16 bits
};

/// A numerical comparison result from validate.
struct DiffRow {
    std::int64_t id = kAutoId;
    DiffKind kind = DiffKind::Tensor;
    std::string name{};
    std::optional<std::int64_t> stageId{};
    std::optional<std::int64_t> nodeId{};
    std::string verdict{}; ///< "pass", "fail", "first_divergence"...
    std::string metrics{}; ///< JSON object
    std::string detail{};  ///< JSON object
};

/// One value of a profiler analysis result, in long form.
struct MetricRow {
    std::string analysis{}; ///< "pipe_util", "bound"...
    std::string entity{};   ///< "core", "task", "tensor_op"...
    std::optional<std::int64_t> entityId{};
    std::string key{};
    std::optional<double> value{};
    std::string text{};
};

/// A counted problem (instead of an abort).
struct StatRow {
    std::string name{};
    std::optional<std::int64_t> idx{}; ///< for indexed stats (e.g. per core)
    StatSeverity severity = StatSeverity::Info;
    std::int64_t value = 0;
    std::string description{};
};

} // namespace pto::tracedb
