// Maps each row struct to its table: the column list (written once) and how fields bind and read.
#pragma once

#include "trace_db/Rows.h"
#include "trace_db/Sqlite.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>

namespace pto::tracedb {

/// Index of a row table, used to cache one insert statement per table.
enum class TableId : std::size_t {
    Stage,
    Node,
    Edge,
    Buffer,
    Instr,
    Track,
    Slice,
    Counter,
    Flow,
    Arg,
    Tensor,
    Diff,
    Metric,
    Stat,
    NodeData,
    InstrData,
    Count
};

// Each RowCodec<Row> has: kTableId, kTable, kColumns (in the order of fields()), kHasAutoId
// (the first column is an INTEGER PRIMARY KEY `id` that kAutoId leaves to SQLite), and either
// fields(row) -> tuple of references, or custom bind(statement, row, firstParameter) and
// read(statement) when a field is not one column.
// The schema-drift test checks kColumns against the columns of the table in schema.sql.
template <typename Row> struct RowCodec;

template <> struct RowCodec<StageRow> {
    static constexpr TableId kTableId = TableId::Stage;
    static constexpr std::string_view kTable = "stage";
    static constexpr std::string_view kColumns = "id, ord, name, level, pass, parent_stage_id, "
                                                 "ir_text, pass_micros, node_count, edge_count";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.ord, r.name, r.level, r.pass, r.parentStageId, r.irText,
                        r.passMicros, r.nodeCount, r.edgeCount);
    }
};

/// Reads the view `node` (schema 4; a table before); TraceWriter stores a NodeRow as a
/// NodeDataRow.
template <> struct RowCodec<NodeRow> {
    static constexpr TableId kTableId = TableId::Node;
    static constexpr std::string_view kTable = "node";
    static constexpr std::string_view kColumns = "stage_id, id, kind, name, dtype, shape, space, "
                                                 "core, pipe, attrs, group_id, parent_id, "
                                                 "src_line, src_col";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.stageId, r.id, r.kind, r.name, r.dtype, r.shape, r.space, r.core, r.pipe,
                        r.attrs, r.groupId, r.parentId, r.srcLine, r.srcCol);
    }
};

template <> struct RowCodec<EdgeRow> {
    static constexpr TableId kTableId = TableId::Edge;
    static constexpr std::string_view kTable = "edge";
    static constexpr std::string_view kColumns = "stage_id, src, dst, value_id, label";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.stageId, r.src, r.dst, r.valueId, r.label);
    }
};

template <> struct RowCodec<BufferRow> {
    static constexpr TableId kTableId = TableId::Buffer;
    static constexpr std::string_view kTable = "buffer";
    static constexpr std::string_view kColumns = "stage_id, id, block_id, space, addr, size, "
                                                 "first_use, last_use, value_id, slot";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.stageId, r.id, r.blockId, r.space, r.addr, r.size, r.firstUse, r.lastUse,
                        r.valueId, r.slot);
    }
};

/// Reads the view `instr` (schema 4; a table before); TraceWriter stores an InstrRow as an
/// InstrDataRow.
template <> struct RowCodec<InstrRow> {
    static constexpr TableId kTableId = TableId::Instr;
    static constexpr std::string_view kTable = "instr";
    static constexpr std::string_view kColumns = "id, stage_id, block_id, idx, pipe, opcode, "
                                                 "operands, flags, tile_op_id, tile_stage_id, "
                                                 "src_line, flops, gm_bytes, src_dtype";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.stageId, r.blockId, r.idx, r.pipe, r.opcode, r.operands, r.flags,
                        r.tileOpId, r.tileStageId, r.srcLine, r.flops, r.gmBytes, r.srcDtype);
    }
};

template <> struct RowCodec<NodeDataRow> {
    static constexpr TableId kTableId = TableId::NodeData;
    static constexpr std::string_view kTable = "node_data";
    static constexpr std::string_view kColumns =
        "stage_id, id, kind_dict, name, dtype_dict, shape_dict, space_dict, core_dict, "
        "pipe_dict, attrs_dict, group_id, parent_id, src_line, src_col";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.stageId, r.id, r.kindDict, r.name, r.dtypeDict, r.shapeDict, r.spaceDict,
                        r.coreDict, r.pipeDict, r.attrsDict, r.groupId, r.parentId, r.srcLine,
                        r.srcCol);
    }
};

template <> struct RowCodec<InstrDataRow> {
    static constexpr TableId kTableId = TableId::InstrData;
    static constexpr std::string_view kTable = "instr_data";
    static constexpr std::string_view kColumns =
        "id, stage_id, block_id, idx, pipe_dict, opcode_dict, operands_dict, flags_dict, "
        "tile_op_id, tile_stage_id, src_line, flops, gm_bytes, src_dtype_dict";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.stageId, r.blockId, r.idx, r.pipeDict, r.opcodeDict, r.operandsDict,
                        r.flagsDict, r.tileOpId, r.tileStageId, r.srcLine, r.flops, r.gmBytes,
                        r.srcDtypeDict);
    }
};

template <> struct RowCodec<TrackRow> {
    static constexpr TableId kTableId = TableId::Track;
    static constexpr std::string_view kTable = "track";
    static constexpr std::string_view kColumns =
        "id, parent_id, name_id, kind, core_id, core_type, pipe, sort_index, stream_id, thread_id";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.parentId, r.nameId, r.kind, r.coreId, r.coreType, r.pipe,
                        r.sortIndex, r.streamId, r.threadId);
    }
};

template <> struct RowCodec<SliceRow> {
    static constexpr TableId kTableId = TableId::Slice;
    static constexpr std::string_view kTable = "slice";
    static constexpr std::string_view kColumns = "id, ts, dur, track_id, name_id, category, "
                                                 "depth, instr_id, task_id, arg_set_id";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.ts, r.dur, r.trackId, r.nameId, r.category, r.depth, r.instrId,
                        r.taskId, r.argSetId);
    }
};

template <> struct RowCodec<CounterRow> {
    static constexpr TableId kTableId = TableId::Counter;
    static constexpr std::string_view kTable = "counter";
    static constexpr std::string_view kColumns = "ts, track_id, value";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) { return std::tie(r.ts, r.trackId, r.value); }
};

template <> struct RowCodec<FlowRow> {
    static constexpr TableId kTableId = TableId::Flow;
    static constexpr std::string_view kTable = "flow";
    static constexpr std::string_view kColumns = "id, slice_out, slice_in, kind";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.sliceOut, r.sliceIn, r.kind);
    }
};

/// ArgRow's variant value spreads over three columns, exactly one of them set.
template <> struct RowCodec<ArgRow> {
    static constexpr TableId kTableId = TableId::Arg;
    static constexpr std::string_view kTable = "args";
    static constexpr std::string_view kColumns =
        "arg_set_id, key, int_value, string_value, real_value";
    static constexpr bool kHasAutoId = false;
    static void bind(Statement& statement, const ArgRow& row, int first);
    static ArgRow read(const Statement& statement);
};

template <> struct RowCodec<TensorRow> {
    static constexpr TableId kTableId = TableId::Tensor;
    static constexpr std::string_view kTable = "tensor";
    static constexpr std::string_view kColumns =
        "id, name, role, dtype, shape, stage_id, value_id, data";
    /// The same columns with the blob left out, for listing tensors cheaply.
    static constexpr std::string_view kColumnsWithoutData =
        "id, name, role, dtype, shape, stage_id, value_id, NULL";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.name, r.role, r.dtype, r.shape, r.stageId, r.valueId, r.data);
    }
};

template <> struct RowCodec<DiffRow> {
    static constexpr TableId kTableId = TableId::Diff;
    static constexpr std::string_view kTable = "diff";
    static constexpr std::string_view kColumns =
        "id, kind, name, stage_id, node_id, verdict, metrics, detail";
    static constexpr bool kHasAutoId = true;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.id, r.kind, r.name, r.stageId, r.nodeId, r.verdict, r.metrics, r.detail);
    }
};

template <> struct RowCodec<MetricRow> {
    static constexpr TableId kTableId = TableId::Metric;
    static constexpr std::string_view kTable = "metric";
    static constexpr std::string_view kColumns = "analysis, entity, entity_id, key, value, text";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.analysis, r.entity, r.entityId, r.key, r.value, r.text);
    }
};

template <> struct RowCodec<StatRow> {
    static constexpr TableId kTableId = TableId::Stat;
    static constexpr std::string_view kTable = "stats";
    static constexpr std::string_view kColumns = "name, idx, severity, value, description";
    static constexpr bool kHasAutoId = false;
    template <typename R> static auto fields(R& r) {
        return std::tie(r.name, r.idx, r.severity, r.value, r.description);
    }
};

template <typename Row>
concept HasCustomCodec = requires(Statement& s, const Row& row) {
    RowCodec<Row>::bind(s, row, 1);
};

constexpr int columnCount(std::string_view columns) {
    int count = 1;
    for (char c : columns) count += c == ',' ? 1 : 0;
    return count;
}

template <typename Row> constexpr int kColumnCount = columnCount(RowCodec<Row>::kColumns);

/// "INSERT INTO <table>(<columns>) VALUES(?, ...)", with `rows` parenthesised groups.
std::string insertSql(std::string_view table, std::string_view columns, int rows = 1);

template <typename Row> std::string insertSql(int rows = 1) {
    return insertSql(RowCodec<Row>::kTable, RowCodec<Row>::kColumns, rows);
}

/// "<columns>" with NULL in place of each column a file of schema `version` lacks.
std::string columnsAsOf(std::string_view table, std::string_view columns, int version);

/// "SELECT <columns> FROM <table>" for a file of schema `version`; the caller appends WHERE /
/// ORDER BY.
template <typename Row> std::string selectSql(int version) {
    return "SELECT " + columnsAsOf(RowCodec<Row>::kTable, RowCodec<Row>::kColumns, version) +
           " FROM " + std::string(RowCodec<Row>::kTable);
}

/// "SELECT <columns> FROM <table>"; the caller appends WHERE / ORDER BY.
template <typename Row> std::string selectSql() {
    return "SELECT " + std::string(RowCodec<Row>::kColumns) + " FROM " +
           std::string(RowCodec<Row>::kTable);
}

/// Binds `row` to the parameters starting at `first` (1 for a single-row INSERT).
template <typename Row> void bindRow(Statement& statement, const Row& row, int first = 1) {
    if constexpr (HasCustomCodec<Row>) {
        RowCodec<Row>::bind(statement, row, first);
    } else {
        std::apply([&](const auto&... field) { statement.bindFrom(first, field...); },
                   RowCodec<Row>::fields(row));
    }
    if constexpr (RowCodec<Row>::kHasAutoId) {
        if (row.id == kAutoId) statement.bind(first, nullptr);
    }
}

template <typename Row> Row readRow(const Statement& statement) {
    if constexpr (HasCustomCodec<Row>) {
        return RowCodec<Row>::read(statement);
    } else {
        Row row;
        std::apply([&](auto&... field) { statement.readAll(field...); },
                   RowCodec<Row>::fields(row));
        return row;
    }
}

} // namespace pto::tracedb
