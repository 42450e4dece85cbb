#!/usr/bin/env bash
# Builds the release preset and prints every figure of docs/PERFORMANCE.md (medians of
# several repetitions). Usage: bash bench/run.sh [benchmark-name-regex]
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-.}"
cmake --preset release -DPTO_BUILD_BENCH=ON >/dev/null
cmake --build --preset release -j "$(nproc)" >/dev/null
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr); date: $(date -u +%F)"
for b in build/release/bench/bench_*; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  [[ "$name" =~ $filter ]] || continue
  echo "== $name"
  "$b" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
       --benchmark_counters_tabular=true 2>/dev/null | grep -E "median|^Benchmark|^-" || true
done
