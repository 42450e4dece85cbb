#!/usr/bin/python3
# The race detector against its own purpose: compile samples to PTO listings, remove one
# WAIT_FLAG at a time (a random sample of them), run each listing with the same inputs, and
# require that the run either faults or gives outputs bit-identical to the intact listing's (the
# wait was implied by another order). Different numbers without a fault are a race the simulator
# missed. Both kinds of wait are candidates: WAIT_FLAG between the pipes of a core and
# CROSS_WAIT_FLAG between the cores of a fused cluster (--only picks one kind).
import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "samples"))


def listing(pto, sample):
    """The PTO listing emit-pto produces for samples/<sample>.pto."""
    proc = subprocess.run([pto, "compile", os.path.join(SAMPLES, sample + ".pto"), "--record",
                           "none", "--print-after", "emit-pto"], capture_output=True, text=True,
                          check=True)
    lines = []
    for line in proc.stdout.split("\n"):
        if line.startswith("compiled "):
            break
        if not line.startswith("// -----"):
            lines.append(line)
    return lines


def run(pto, path, out, timeout):
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([pto, "run", path, "--trace", "none", "--seed", "1", "--outputs", out],
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stderr.strip()


def wait_kind(line):
    """'flag' for a WAIT_FLAG, 'cross' for a CROSS_WAIT_FLAG, None for any other line."""
    words = line.split()  # "PIPE OPCODE operands…"
    return {"WAIT_FLAG": "flag", "CROSS_WAIT_FLAG": "cross"}.get(words[1] if len(words) > 1 else "")


def same_outputs(a, b):
    names = sorted(n for n in os.listdir(a) if n.endswith(".npy"))
    return names == sorted(n for n in os.listdir(b) if n.endswith(".npy")) and all(
        np.array_equal(np.load(os.path.join(a, n)), np.load(os.path.join(b, n)), equal_nan=True)
        for n in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pto", default=os.environ.get("PTO", "build/dev/cli/pto"))
    ap.add_argument("--per-sample", type=int, default=30, help="waits removed per sample")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run")
    ap.add_argument("--only", choices=["flag", "cross"], help="remove only this kind of wait")
    ap.add_argument("samples", nargs="+")
    a = ap.parse_args()
    counts = collections.Counter()
    kinds = collections.Counter()
    missed = []
    work = tempfile.mkdtemp(prefix="pto-dropwait-")
    try:
        for sample in a.samples:
            lines = listing(a.pto, sample)
            intact = os.path.join(work, "intact.ptoasm")
            with open(intact, "w") as f:
                f.write("\n".join(lines))
            rc, err = run(a.pto, intact, os.path.join(work, "ref"), a.timeout)
            if rc != 0:
                print(f"{sample}: the intact listing does not run (exit {rc}): {err[-300:]}")
                return 1
            waits = [i for i, l in enumerate(lines) if wait_kind(l) and a.only in (None, wait_kind(l))]
            if not waits:
                print(f"{sample}: its listing has no wait of that kind")
                return 1
            pick = random.Random(a.seed).sample(waits, min(a.per_sample, len(waits)))
            for i in pick:
                kinds[wait_kind(lines[i])] += 1
                cut = os.path.join(work, "cut.ptoasm")
                with open(cut, "w") as f:
                    f.write("\n".join(lines[:i] + lines[i + 1:]))
                try:
                    rc, err = run(a.pto, cut, os.path.join(work, "cut"), a.timeout)
                except subprocess.TimeoutExpired:
                    counts["hang"] += 1
                    missed.append(f"{sample} line {i + 1}: no exit within {a.timeout} s")
                    continue
                if rc == 1:
                    counts["faulted"] += 1
                elif rc != 0:
                    counts["crash"] += 1
                    missed.append(f"{sample} line {i + 1}: exit {rc}: {err[-300:]}")
                elif same_outputs(os.path.join(work, "ref"), os.path.join(work, "cut")):
                    counts["same outputs"] += 1
                else:
                    counts["missed race"] += 1
                    missed.append(f"{sample} line {i + 1} ({lines[i].strip()}): other numbers, "
                                  "no fault")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{sum(counts.values())} waits removed from {', '.join(a.samples)} "
          f"({kinds['flag']} WAIT_FLAG, {kinds['cross']} CROSS_WAIT_FLAG): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for m in missed[:10]:
        print("  " + m)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
