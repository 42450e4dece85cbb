// The SQL the trace tests use to check that every instruction's provenance reaches the source.
#pragma once

namespace pto::test {

// Walks every instruction's provenance through the stages with one recursive SQL query and
// counts the instructions whose chain does not end at an op of the parsed program (the first
// Tensor stage) with a source line.
inline constexpr const char* kOrphanInstrsQuery = R"sql(
WITH RECURSIVE walk(instr, stage_id, node_id) AS (
    SELECT id, tile_stage_id, tile_op_id FROM instr
  UNION ALL
    SELECT w.instr, s.parent_stage_id, n.parent_id
    FROM walk w
    JOIN node n ON n.stage_id = w.stage_id AND n.id = w.node_id
    JOIN stage s ON s.id = w.stage_id
    WHERE s.parent_stage_id IS NOT NULL
),
rooted AS (
    SELECT DISTINCT w.instr
    FROM walk w
    JOIN node n ON n.stage_id = w.stage_id AND n.id = w.node_id
    JOIN stage s ON s.id = w.stage_id
    WHERE s.ord = 0 AND s.level = 'tensor' AND n.src_line > 0
)
SELECT count(*) FROM instr WHERE id NOT IN (SELECT instr FROM rooted)
)sql";

} // namespace pto::test
