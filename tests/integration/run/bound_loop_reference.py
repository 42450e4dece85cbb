#!/usr/bin/env python3
"""loop_bound.pto run with several bound trip counts against NumPy.

Usage: bound_loop_reference.py PTO PROGRAM WORKDIR T [T ...]
For each T: pto run PROGRAM --bind t=T on a seeded 16x1000 input, and the online softmax
statistics of the first min(256 T, 1000) columns computed by NumPy (row max m, row sum of
exp(x - m)). Prints "t=T ok" or "t=T FAIL ..." per trip count; exits 1 on any failure.
"""
import os
import subprocess
import sys

import numpy as np


def main():
    pto, program, work = sys.argv[1:4]
    trips = [int(t) for t in sys.argv[4:]]
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((16, 1000)) * 3).astype(np.float32)
    xin = os.path.join(work, "x.npy")
    np.save(xin, x)
    failed = False
    for t in trips:
        out = os.path.join(work, f"out{t}")
        r = subprocess.run([pto, "run", program, "--bind", f"t={t}", "--inputs", xin,
                            "--outputs", out, "--trace", "none"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"t={t} FAIL pto exited {r.returncode}: {r.stderr.strip()}")
            failed = True
            continue
        cols = x[:, :min(256 * t, 1000)].astype(np.float64)
        m = cols.max(axis=1, keepdims=True) if t > 0 else np.full((16, 1), -np.inf)
        l = np.exp(cols - m).sum(axis=1, keepdims=True) if t > 0 else np.zeros((16, 1))
        got_m = np.load(os.path.join(out, "r#0.npy"))  # named as returned, for every t
        got_l = np.load(os.path.join(out, "r#1.npy"))
        ok_m = np.array_equal(got_m, m.astype(np.float32))  # a max is exact
        ok_l = np.allclose(got_l, l, rtol=2e-6, atol=0)
        if ok_m and ok_l:
            print(f"t={t} ok")
        else:
            err = np.max(np.abs(got_l - l) / np.maximum(np.abs(l), 1e-30))
            print(f"t={t} FAIL max equal {ok_m}, sum rel err {err:.3g}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
