#!/usr/bin/env bash
# Stops the single-node Slurm of slurm-up.sh DIR (slurmd, slurmctld, munged, by their pid
# files) and removes DIR.
set -uo pipefail
dir=${1:?usage: slurm-down.sh DIR}
[ -d "$dir" ] || exit 0
for daemon in slurmd slurmctld munged; do
  pidfile=$dir/run/$daemon.pid
  [ -s "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
rm -rf "$dir"
