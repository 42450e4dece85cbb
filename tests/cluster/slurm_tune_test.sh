#!/usr/bin/env bash
# ctest slurm_tune: starts a single-node Slurm (slurm-up.sh), runs a 12-candidate sweep of the
# softmax sample through it as a job array (pto tune --slurm) and checks that the merged tune
# file equals the local sweep's, row for row; stops the daemons (slurm-down.sh) whatever happens.
# Exit 77 (skipped) when Slurm is not installed or we are not root.
# usage: slurm_tune_test.sh PTO SOURCE_DIR
set -euo pipefail
pto=$1
src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/pto-slurm-test.XXXXXX")
cleanup() { bash "$src/tests/cluster/slurm-down.sh" "$work/cluster"; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 143' TERM INT # the daemons run detached: stop them when ctest stops us too
bash "$src/tests/cluster/slurm-up.sh" "$work/cluster" >/dev/null || exit $?
export SLURM_CONF=$work/cluster/slurm.conf

space='vec_tile = [8, 1024] | [4, 1024] | [2, 1024] | [1, 1024]; tiles_per_task = 0 | 1 | 2'
"$pto" tune "$src/samples/softmax.pto" --space "$space" --no-prune --threads 2 \
  --best-trace none -o "$work/local.db" >/dev/null
"$pto" tune "$src/samples/softmax.pto" --space "$space" --no-prune --slurm --max-parallel 4 \
  -o "$work/slurm.db"

rows='SELECT id, label, config, status, cycles, lower_bound, bound_class, tasks, cores_used,
             instructions, gm_bytes, onchip_bytes FROM candidate ORDER BY id'
pipes='SELECT candidate_id, pipe, busy_cycles, busy_fraction FROM candidate_pipe
       ORDER BY candidate_id, pipe'
diff <(sqlite3 "$work/local.db" "$rows") <(sqlite3 "$work/slurm.db" "$rows")
diff <(sqlite3 "$work/local.db" "$pipes") <(sqlite3 "$work/slurm.db" "$pipes")
count=$(sqlite3 "$work/slurm.db" "SELECT count(*) FROM candidate WHERE status = 'ok'")
files=$(sqlite3 "$work/slurm.db" "SELECT value FROM tune_meta WHERE key = 'merged_files'")
best=$(sqlite3 "$work/slurm.db" "SELECT value FROM tune_meta WHERE key = 'best_candidate'")
localBest=$(sqlite3 "$work/local.db" "SELECT value FROM tune_meta WHERE key = 'best_candidate'")
[ "$count" = 13 ] || { echo "expected 13 simulated candidates, got $count" >&2; exit 1; }
[ "$files" = 13 ] || { echo "expected 13 chunk files merged, got $files" >&2; exit 1; }
[ "$best" = "$localBest" ] || { echo "best $best differs from the local $localBest" >&2; exit 1; }
[ -s "$work/slurm.best.db" ] || { echo "the best candidate's trace was not kept" >&2; exit 1; }
echo "slurm sweep of $count candidates in $files array tasks equals the local sweep (best #$best)"
