#!/usr/bin/env bash
# Builds the libFuzzer harnesses (preset `fuzz`: clang, ASan + UBSan) and runs each for SECONDS,
# starting from its seed corpus; fails if any harness finds a crash, timeout, leak or OOM.
#
# Usage: bash tests/fuzz/run-fuzzers.sh SECONDS [HARNESS...]
#   HARNESS: pto_parser pto_listing npy trace_reader (default: all four, one after the other)
# Environment:
#   PTO_FUZZ_OUT         where corpora, findings and logs go (default build/fuzz/runs):
#                          corpus/H   the growing corpus (kept between runs)
#                          crashes/H  inputs that crashed, hung or blew up (crash-*, timeout-*,
#                                     oom-*, leak-*); replay one: build/fuzz/tests/fuzz/fuzz_H FILE
#                          logs/H.log libFuzzer's output;  summary.txt  one line per harness
#   PTO_FUZZ_KEEP_GOING  1: fork mode that records every finding and keeps fuzzing until the
#                        time is up (for long measuring runs); the run still fails if any.
#   PTO_FUZZ_SEED        libFuzzer's -seed (CI sets 1, so its short run explores the same way
#                        each time; unset: a random seed)
#   PTO_JOBS             build parallelism (default nproc)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:?usage: bash tests/fuzz/run-fuzzers.sh SECONDS [HARNESS...]}
shift
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(pto_parser pto_listing npy trace_reader)
out=${PTO_FUZZ_OUT:-build/fuzz/runs}
bin=build/fuzz/tests/fuzz
mkdir -p "$out/logs"

# The fuzz preset builds only the libraries the harnesses link (no GUI, tests or benchmarks).
cmake --preset fuzz >"$out/logs/build.log" 2>&1
if ! cmake --build --preset fuzz -j "${PTO_JOBS:-$(nproc)}" >>"$out/logs/build.log" 2>&1; then
  tail -40 "$out/logs/build.log"
  echo "fuzz: building the harnesses failed (log: $out/logs/build.log)" >&2
  exit 1
fi

# Seed inputs per harness: the samples and test programs, plus tests/fuzz/corpus/H and
# tests/fuzz/regressions/H (the same files the ctest replay runs).
seedsOf() {
  case $1 in
    pto_parser) ls samples/*.pto tests/golden/parser/*.pto tests/unit/ir/*.pto ;;
    pto_listing) ls tests/unit/ir/*.ptoasm tests/integration/run/programs/*.ptoasm ;;
  esac
  for dir in tests/fuzz/corpus/$1 tests/fuzz/regressions/$1; do
    [ -d "$dir" ] && find "$dir" -type f ! -name README.md
  done
  return 0
}

# Longest input per harness: every seed fits, and 4 KiB of text nests operands at most ~800
# deep, below the ~1 500 at which the recursive-descent .pto parser overflows the stack under
# ASan (issue 13: parser recursion depth; 10 000-deep input is a saved regression instead).
maxLenOf() {
  case $1 in
    trace_reader) echo 65536 ;;
    *) echo 4096 ;;
  esac
}

# "execs cov ft corpus" from libFuzzer's last status line.
figuresOf() {
  local line
  line=$(grep -E '^#[0-9]+' "$1" | tail -1 || true)
  local execs cov ft corp
  execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$line")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$line")
  echo "execs=${execs:-?} cov=${cov:-?} ft=${ft:-?} corpus=${corp:-?}"
}

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=0
: >"$out/summary.txt"
for h in "${harnesses[@]}"; do
  corpus=$out/corpus/$h crashes=$out/crashes/$h log=$out/logs/$h.log
  mkdir -p "$corpus" "$crashes"
  while read -r seed; do
    [ -n "$seed" ] && cp -n "$seed" "$corpus/seed-$(basename "$seed")"
  done < <(seedsOf "$h")
  flags=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len="$(maxLenOf "$h")"
         -artifact_prefix="$crashes/" -print_final_stats=1)
  [ -f "tests/fuzz/dict/$h.dict" ] && flags+=(-dict="tests/fuzz/dict/$h.dict")
  [ -n "${PTO_FUZZ_SEED:-}" ] && flags+=(-seed="$PTO_FUZZ_SEED")
  [ "${PTO_FUZZ_KEEP_GOING:-0}" = 1 ] &&
    flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  stamp=$(mktemp)
  rc=0
  "$bin/fuzz_$h" "${flags[@]}" "$corpus" >"$log" 2>&1 || rc=$?
  found=$(find "$crashes" -type f -newer "$stamp" | wc -l)
  rm -f "$stamp"
  status=ok
  if ((rc != 0 || found != 0)); then
    status="FAILED (exit $rc, $found new finding(s) in $crashes)"
    failed=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz_[a-z_]+: |    #[0-9]+ .* in (pto::|LLVMFuzzerTestOneInput))' "$log" |
      head -12 || true
  fi
  echo "fuzz $h: ${seconds}s $(figuresOf "$log") $status" | tee -a "$out/summary.txt"
done
exit $failed
