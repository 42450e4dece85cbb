// The SQL that turns a schema-4 trace into what schema 3 wrote (plain node and instr tables,
// no dict, node_data or instr_data: the DDL of schema 3's schema.sql), for tests of old files.
#pragma once

namespace pto::test {

inline constexpr const char* kSchema3FromSchema4Sql = R"(
        CREATE TEMP TABLE node3 AS SELECT * FROM node;
        CREATE TEMP TABLE instr3 AS SELECT * FROM instr;
        DROP VIEW provenance; DROP VIEW node; DROP VIEW instr; DROP TABLE node_data;
        DROP TABLE instr_data; DROP TABLE dict;
        CREATE TABLE node(
            stage_id INTEGER NOT NULL, id INTEGER NOT NULL, kind TEXT, name TEXT, dtype TEXT,
            shape TEXT, space TEXT, core TEXT, pipe TEXT, attrs TEXT, group_id INTEGER,
            parent_id INTEGER, src_line INTEGER, src_col INTEGER,
            PRIMARY KEY(stage_id, id)) WITHOUT ROWID;
        INSERT INTO node SELECT * FROM node3;
        CREATE TABLE instr(
            id INTEGER PRIMARY KEY, stage_id INTEGER NOT NULL, block_id INTEGER NOT NULL,
            idx INTEGER NOT NULL, pipe TEXT, opcode TEXT, operands TEXT, flags TEXT,
            tile_op_id INTEGER, tile_stage_id INTEGER, src_line INTEGER, flops REAL,
            gm_bytes INTEGER, src_dtype TEXT);
        INSERT INTO instr SELECT * FROM instr3;
        CREATE VIEW provenance AS
        SELECT n.stage_id, 'node' AS kind, n.id, s.parent_stage_id, n.parent_id FROM node n
        JOIN stage s ON s.id = n.stage_id WHERE n.parent_id IS NOT NULL
        UNION ALL
        SELECT i.stage_id, 'instr' AS kind, i.id, i.tile_stage_id, i.tile_op_id FROM instr i
        WHERE i.tile_op_id IS NOT NULL;
        PRAGMA user_version = 3;
        UPDATE meta SET value = '3' WHERE key = 'schema_version';)";

} // namespace pto::test
