#!/usr/bin/env bash
# A long differential-tester run: bash tests/fuzz/run.sh N [--seed S] [--jobs J] [more options
# of `difftest.py run`, e.g. --minimize --save-cases]. Prints the summary table and writes the
# report to build/fuzz-diff-report.md (docs/TESTING.md, "Differential tester").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -lt 1 || "$1" == -* ]]; then
  echo "usage: bash tests/fuzz/run.sh N [--seed S] [--jobs J] [--minimize] [--save-cases]" >&2
  exit 2
fi
n="$1"
shift
exec /usr/bin/python3 "$here/diff/difftest.py" run "$n" "$@"
