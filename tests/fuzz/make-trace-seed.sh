#!/usr/bin/env bash
# Writes the trace seed of the trace_reader fuzz harness (tests/fuzz/corpus/trace_reader): a real
# `pto run samples/matmul.pto --trace full` trace cut down to a few rows per table and re-packed
# with 512-byte pages, so it is small enough (~50 KB) to mutate. Run once; the output is checked in.
# usage: bash tests/fuzz/make-trace-seed.sh [PTO]   (default build/dev/cli/pto)
set -euo pipefail
cd "$(dirname "$0")/../.."
pto=${1:-build/dev/cli/pto}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$pto" run samples/matmul.pto --seed 1 --trace full -o "$work/full.db" >/dev/null
sqlite3 "$work/full.db" "
DELETE FROM node_data WHERE id > 3;
DELETE FROM edge WHERE src > 3 OR dst > 3;
DELETE FROM buffer WHERE id > 2;
DELETE FROM instr_data WHERE id > 16;
DELETE FROM track WHERE id NOT IN (SELECT id FROM track ORDER BY id LIMIT 10)
  AND id NOT IN (SELECT DISTINCT track_id FROM counter ORDER BY track_id LIMIT 2);
DELETE FROM slice WHERE track_id NOT IN (SELECT id FROM track);
DELETE FROM slice WHERE id NOT IN (SELECT id FROM slice ORDER BY id LIMIT 24);
DELETE FROM counter WHERE track_id NOT IN (SELECT id FROM track);
DELETE FROM counter WHERE rowid NOT IN (SELECT rowid FROM counter LIMIT 12);
DELETE FROM flow WHERE slice_out NOT IN (SELECT id FROM slice) OR slice_in NOT IN (SELECT id FROM slice);
DELETE FROM args WHERE arg_set_id NOT IN (SELECT arg_set_id FROM slice WHERE arg_set_id IS NOT NULL);
DELETE FROM metric WHERE rowid NOT IN (SELECT rowid FROM metric LIMIT 16);
DELETE FROM track_summary WHERE track_id NOT IN (SELECT id FROM track);
DELETE FROM string WHERE id NOT IN (SELECT name_id FROM track) AND id NOT IN (SELECT name_id FROM slice);
DELETE FROM dict WHERE id NOT IN (SELECT id FROM dict d WHERE EXISTS (SELECT 1 FROM node_data n
  WHERE d.id IN (n.kind_dict, n.dtype_dict, n.shape_dict, n.space_dict, n.core_dict, n.pipe_dict,
                 n.attrs_dict)) OR EXISTS (SELECT 1 FROM instr_data i WHERE d.id IN (i.pipe_dict,
                 i.opcode_dict, i.operands_dict, i.flags_dict, i.src_dtype_dict)));
DELETE FROM tensor;
UPDATE stage SET ir_text = substr(ir_text, 1, 160);
DELETE FROM sqlite_stat1;
PRAGMA page_size = 512;
VACUUM;"
"$pto" info "$work/full.db" >/dev/null  # still a trace the reader accepts
cp "$work/full.db" tests/fuzz/corpus/trace_reader/matmul-pruned.db
ls -l tests/fuzz/corpus/trace_reader/matmul-pruned.db
