#!/usr/bin/env bash
# Builds the release preset and prints every figure of docs/PERFORMANCE.md: the median of
# several repetitions of each benchmark, with the ratio to its side-by-side baseline.
# Usage: bash bench/run.sh [benchmark-name-regex] [repetitions]
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-.}"
reps="${2:-3}"
cmake --preset release -DPTO_BUILD_BENCH=ON >/dev/null
cmake --build --preset release -j "$(nproc)" >/dev/null
results=build/release/bench-results
# Plain `dot` on a 115 k-node stage does not finish in minutes; give it this many seconds.
export PTO_GUI_GRAPH_DOT_TIMEOUT="${PTO_GUI_GRAPH_DOT_TIMEOUT:-60}"
rm -rf "$results" && mkdir -p "$results"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr);" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); date: $(date -u +%F)"
for b in build/release/bench/bench_*; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  [[ "$name" =~ $filter ]] || continue
  echo "== $name" >&2
  QT_QPA_PLATFORM=offscreen "$b" --benchmark_repetitions="$reps" \
       --benchmark_format=console --benchmark_out_format=json \
       --benchmark_out="$results/$name.json" >&2 || echo "$name failed" >&2
done
echo
python3 bench/summarize.py bench/figures.json "$results"
