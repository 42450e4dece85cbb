-- PTO Studio trace schema v1: DDL of the SQLite file every tool shares (docs/TRACE_SCHEMA.md).
--
-- Embedded into pto_trace_db at build time. Everything above the '@finalize' line runs when a
-- trace is created; everything below it runs in TraceWriter::commit, after the bulk insert
-- (indexes are cheaper to build once than to maintain row by row). Times are integer cycles.
--
-- Enumerated columns are checked with OR chains, not `x IN ('a', 'b', ...)`: SQLite runs an
-- IN list in a CHECK through a temporary table built on every statement execution, which
-- made single-row inserts four times slower.

-- Key/value facts about the session.
CREATE TABLE meta(
    key   TEXT PRIMARY KEY,
    value TEXT
);

-- Interned names of slices and tracks.
CREATE TABLE string(
    id  INTEGER PRIMARY KEY,
    str TEXT NOT NULL UNIQUE
);

-- One IR snapshot per pass.
CREATE TABLE stage(
    id              INTEGER PRIMARY KEY,
    ord             INTEGER NOT NULL,
    name            TEXT,
    level           TEXT NOT NULL
                    CHECK(level = 'tensor' OR level = 'tile' OR level = 'block' OR level = 'exec'
                          OR level = 'pto'),
    pass            TEXT,
    parent_stage_id INTEGER,
    ir_text         TEXT,
    pass_micros     REAL,
    node_count      INTEGER,
    edge_count      INTEGER
);

-- Text repeated across node and instr rows (operand lists, attrs, op kinds, shapes...),
-- stored once (schema 4). Ids start at 1; the views node and instr join it back in.
CREATE TABLE dict(
    id  INTEGER PRIMARY KEY,
    str TEXT NOT NULL UNIQUE
);

-- Ops (Tensor/Tile stages), block functions (Block stage) and tasks (Exec stage), with their
-- repeated text as dict ids; read them through the view `node`.
CREATE TABLE node_data(
    stage_id   INTEGER NOT NULL,
    id         INTEGER NOT NULL,
    kind_dict  INTEGER,
    name       TEXT,
    dtype_dict INTEGER,
    shape_dict INTEGER,
    space_dict INTEGER,
    core_dict  INTEGER,
    pipe_dict  INTEGER,
    attrs_dict INTEGER,
    group_id   INTEGER,
    parent_id  INTEGER,
    src_line   INTEGER,
    src_col    INTEGER,
    PRIMARY KEY(stage_id, id)
) WITHOUT ROWID;

-- Dataflow edges (Tensor/Tile) and task dependencies (Exec).
CREATE TABLE edge(
    stage_id INTEGER NOT NULL,
    src      INTEGER NOT NULL,
    dst      INTEGER NOT NULL,
    value_id INTEGER,
    label    TEXT
);

-- On-chip buffer allocations of block functions.
CREATE TABLE buffer(
    stage_id  INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    block_id  INTEGER NOT NULL,
    space     TEXT,
    addr      INTEGER,
    size      INTEGER,
    first_use INTEGER,
    last_use  INTEGER,
    value_id  INTEGER,
    slot      INTEGER,
    PRIMARY KEY(stage_id, id)
) WITHOUT ROWID;

-- PTO instructions, per block function, in program order, with their repeated text as dict
-- ids; read them through the view `instr`.
CREATE TABLE instr_data(
    id             INTEGER PRIMARY KEY,
    stage_id       INTEGER NOT NULL,
    block_id       INTEGER NOT NULL,
    idx            INTEGER NOT NULL,
    pipe_dict      INTEGER,
    opcode_dict    INTEGER,
    operands_dict  INTEGER,
    flags_dict     INTEGER,
    tile_op_id     INTEGER,
    tile_stage_id  INTEGER,
    src_line       INTEGER,
    flops          REAL,
    gm_bytes       INTEGER,
    src_dtype_dict INTEGER
);

-- Timeline lanes: chip -> core -> pipe, plus task and counter tracks.
CREATE TABLE track(
    id         INTEGER PRIMARY KEY,
    parent_id  INTEGER,
    name_id    INTEGER NOT NULL,
    kind       TEXT NOT NULL
               CHECK(kind = 'chip' OR kind = 'core' OR kind = 'pipe' OR kind = 'task'
                     OR kind = 'counter'),
    core_id    INTEGER,
    core_type  TEXT,
    pipe       TEXT,
    sort_index INTEGER NOT NULL DEFAULT 0,
    stream_id  INTEGER,
    thread_id  INTEGER
);

-- Time intervals on tracks.
CREATE TABLE slice(
    id         INTEGER PRIMARY KEY,
    ts         INTEGER NOT NULL,
    dur        INTEGER NOT NULL,
    track_id   INTEGER NOT NULL,
    name_id    INTEGER NOT NULL,
    category   TEXT NOT NULL
               CHECK(category = 'instr' OR category = 'task' OR category = 'stall'
                     OR category = 'wait'),
    depth      INTEGER NOT NULL DEFAULT 0,
    instr_id   INTEGER,
    task_id    INTEGER,
    arg_set_id INTEGER
);

-- Samples of counter tracks.
CREATE TABLE counter(
    ts       INTEGER NOT NULL,
    track_id INTEGER NOT NULL,
    value    REAL NOT NULL
);

-- Arrows between slices.
CREATE TABLE flow(
    id        INTEGER PRIMARY KEY,
    slice_out INTEGER NOT NULL,
    slice_in  INTEGER NOT NULL,
    kind      TEXT NOT NULL CHECK(kind = 'flag' OR kind = 'dep')
);

-- Argument sets attached to slices; exactly one value column is set per row.
CREATE TABLE args(
    arg_set_id   INTEGER NOT NULL,
    key          TEXT NOT NULL,
    int_value    INTEGER,
    string_value TEXT,
    real_value   REAL
);

-- Tensor data: inputs, outputs, goldens, recorded intermediates.
CREATE TABLE tensor(
    id       INTEGER PRIMARY KEY,
    name     TEXT,
    role     TEXT NOT NULL
             CHECK(role = 'input' OR role = 'output' OR role = 'golden' OR role = 'intermediate'),
    dtype    TEXT,
    shape    TEXT,
    stage_id INTEGER,
    value_id INTEGER,
    data     BLOB
);

-- Numerical comparison results.
CREATE TABLE diff(
    id       INTEGER PRIMARY KEY,
    kind     TEXT NOT NULL
             CHECK(kind = 'tensor' OR kind = 'bisect' OR kind = 'op' OR kind = 'tile'),
    name     TEXT,
    stage_id INTEGER,
    node_id  INTEGER,
    verdict  TEXT,
    metrics  TEXT,
    detail   TEXT
);

-- Profiler analysis results in long form.
CREATE TABLE metric(
    analysis  TEXT NOT NULL,
    entity    TEXT,
    entity_id INTEGER,
    key       TEXT NOT NULL,
    value     REAL,
    text      TEXT
);

-- Problems counted instead of aborting.
CREATE TABLE stats(
    name        TEXT NOT NULL,
    idx         INTEGER,
    severity    TEXT NOT NULL
                CHECK(severity = 'info' OR severity = 'data_loss' OR severity = 'error'),
    value       INTEGER NOT NULL,
    description TEXT
);

-- Per-track extent of its slices. TraceWriter keeps it while inserting slices and writes it
-- at commit (cheaper than a GROUP BY over all slices).
-- Equivalent to: SELECT track_id, count(*), min(ts), max(ts + dur), max(dur), max(depth)
--                FROM slice GROUP BY track_id
CREATE TABLE track_summary(
    track_id    INTEGER PRIMARY KEY,
    slice_count INTEGER NOT NULL,
    min_ts      INTEGER NOT NULL,
    max_end     INTEGER NOT NULL,
    max_dur     INTEGER NOT NULL,
    max_depth   INTEGER NOT NULL
);

-- Ops, block functions and tasks with their text: the columns of schema 3's table node.
-- Each text column is a dict lookup, made only when the query reads that column.
CREATE VIEW node AS
SELECT n.stage_id, n.id,
       (SELECT str FROM dict WHERE id = n.kind_dict) AS kind,
       n.name,
       (SELECT str FROM dict WHERE id = n.dtype_dict) AS dtype,
       (SELECT str FROM dict WHERE id = n.shape_dict) AS shape,
       (SELECT str FROM dict WHERE id = n.space_dict) AS space,
       (SELECT str FROM dict WHERE id = n.core_dict) AS core,
       (SELECT str FROM dict WHERE id = n.pipe_dict) AS pipe,
       (SELECT str FROM dict WHERE id = n.attrs_dict) AS attrs,
       n.group_id, n.parent_id, n.src_line, n.src_col
FROM node_data n;

-- PTO instructions with their text: the columns of schema 3's table instr.
CREATE VIEW instr AS
SELECT i.id, i.stage_id, i.block_id, i.idx,
       (SELECT str FROM dict WHERE id = i.pipe_dict) AS pipe,
       (SELECT str FROM dict WHERE id = i.opcode_dict) AS opcode,
       (SELECT str FROM dict WHERE id = i.operands_dict) AS operands,
       (SELECT str FROM dict WHERE id = i.flags_dict) AS flags,
       i.tile_op_id, i.tile_stage_id, i.src_line, i.flops, i.gm_bytes,
       (SELECT str FROM dict WHERE id = i.src_dtype_dict) AS src_dtype
FROM instr_data i;

-- Slices with their names and their track's name joined in.
CREATE VIEW slice_named AS
SELECT s.id, s.ts, s.dur, s.track_id, s.name_id, n.str AS name, tn.str AS track_name,
       s.category, s.depth, s.instr_id, s.task_id, s.arg_set_id
FROM slice s
JOIN string n ON n.id = s.name_id
LEFT JOIN track t ON t.id = s.track_id
LEFT JOIN string tn ON tn.id = t.name_id;

-- Tracks with their names joined in.
CREATE VIEW track_named AS
SELECT t.id, t.parent_id, t.name_id, n.str AS name, t.kind, t.core_id, t.core_type, t.pipe,
       t.sort_index
FROM track t
JOIN string n ON n.id = t.name_id;

-- Every "came from" link between stages: a node to the node of the parent stage it came
-- from, and an instruction to the tile op it was generated for.
CREATE VIEW provenance AS
SELECT n.stage_id, 'node' AS kind, n.id, s.parent_stage_id, n.parent_id
FROM node n
JOIN stage s ON s.id = n.stage_id
WHERE n.parent_id IS NOT NULL
UNION ALL
SELECT i.stage_id, 'instr' AS kind, i.id, i.tile_stage_id AS parent_stage_id,
       i.tile_op_id AS parent_id
FROM instr i
WHERE i.tile_op_id IS NOT NULL;

-- @finalize
-- Run by TraceWriter::commit after the bulk insert, also when appending to an existing trace,
-- so every statement below must be safe to run again.

CREATE INDEX IF NOT EXISTS slice_track_ts ON slice(track_id, ts);
CREATE INDEX IF NOT EXISTS slice_instr ON slice(instr_id) WHERE instr_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS slice_task ON slice(task_id) WHERE task_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS counter_track_ts ON counter(track_id, ts);
CREATE INDEX IF NOT EXISTS flow_out ON flow(slice_out);
CREATE INDEX IF NOT EXISTS flow_in ON flow(slice_in);
CREATE INDEX IF NOT EXISTS args_set ON args(arg_set_id);
-- node_data(stage_id, group_id) is not built (schema 4 files before 2026-11-27 have it): no
-- reader looks nodes up by group. edge(stage_id, src) is, though its keys arrive in no order
-- (0.3 s of gemm_6144's compile): the tile-layout queries of `pto diff` and the heat map start
-- from the edges leaving one GM tensor, and without it scan the whole stage (4x slower).
CREATE INDEX IF NOT EXISTS node_parent ON node_data(stage_id, parent_id);
CREATE INDEX IF NOT EXISTS edge_src ON edge(stage_id, src);
CREATE INDEX IF NOT EXISTS edge_dst ON edge(stage_id, dst);
CREATE INDEX IF NOT EXISTS instr_block ON instr_data(stage_id, block_id, idx);
CREATE INDEX IF NOT EXISTS instr_tile_op ON instr_data(tile_stage_id, tile_op_id);
CREATE INDEX IF NOT EXISTS metric_analysis ON metric(analysis, entity, entity_id);
