#!/usr/bin/python3
# Self-test of the differential tester's reference: its roundings to f16 and bf16 in every mode
# against the neighbours found by search in the table of every finite f16/bf16 value, and the
# bound of exact ops (0) and of a sum (holds for a float32 sum in shuffled order).
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402


def table(dtype):
    bits = np.arange(0, 65536, dtype=np.uint32)
    if dtype == "f16":
        v = bits.astype(np.uint16).view(np.float16).astype(np.float64)
    else:
        with np.errstate(invalid="ignore"):  # NaN patterns
            v = (bits << 16).view(np.float32).astype(np.float64)
    return np.unique(v[np.isfinite(v)])


def expected(x, values, mode):
    i = np.searchsorted(values, x)
    hi = values[np.clip(i, 0, len(values) - 1)]
    lo = np.where(hi == x, x, values[np.clip(i - 1, 0, len(values) - 1)])
    if mode == "trunc":
        want = np.where(x >= 0, lo, hi)
    elif mode == "floor":
        want = lo
    elif mode == "ceil":
        want = hi
    else:  # rna: the nearer neighbour, ties away from zero
        d1, d2 = x - lo, hi - x
        want = np.where(d1 < d2, lo, np.where(d2 < d1, hi, np.where(x > 0, hi, lo)))
    return np.where(np.isin(x, values), x, want)


def inputs(values, rng):
    """f32 values: random, tiny, large, and exact midpoints between neighbours."""
    x = np.concatenate([rng.uniform(-3, 3, 20000), rng.uniform(-1e-5, 1e-5, 5000),
                        rng.uniform(-60000, 60000, 5000)])
    k = rng.integers(1, len(values) - 1, 5000)
    mids = (values[k] + values[k + 1]) / 2
    x = np.concatenate([x, mids]).astype(np.float32).astype(np.float64)
    return x[np.abs(x) < 65000]


def check_rounding():
    rng = np.random.default_rng(12)
    failures = 0
    for dtype in ("f16", "bf16"):
        values = table(dtype)
        x = inputs(values, rng)
        for mode in ("trunc", "floor", "ceil", "rna"):
            got = R.round_float(x, dtype, mode)
            want = expected(x, values, mode)
            bad = got != want
            failures += int(bad.sum())
            print(f"{dtype} {mode}: {int(bad.sum())} of {x.size} differ"
                  + (f" e.g. {x[bad][:3]} -> {got[bad][:3]} want {want[bad][:3]}" if bad.any()
                     else ""))
        # RNE: the result is a neighbour, and the nearer one
        got = R.round_float(x, dtype, "rne")
        lo, hi = expected(x, values, "floor"), expected(x, values, "ceil")
        bad = ~((got == lo) | (got == hi)) | (np.abs(got - x) > np.minimum(x - lo, hi - x))
        failures += int(bad.sum())
        print(f"{dtype} rne: {int(bad.sum())} of {x.size} not the nearest neighbour")
    return failures


def check_bounds():
    rng = np.random.default_rng(3)
    failures = 0
    a = R.Val(R.round_to(rng.uniform(-2, 2, 1000), "f16"), 0.0, "f16")
    b = R.Val(R.round_to(rng.uniform(0.5, 2, 1000), "f16"), 0.0, "f16")
    for kind in ("add", "sub", "mul", "div", "max", "min"):
        out = R.binary(kind, a, b)
        if np.any(out.e != 0):
            failures += 1
            print(f"{kind} of exact inputs has a nonzero bound")
    x = rng.uniform(-1, 1, (8, 4096)).astype(np.float32)
    s = R.reduce("reduce_sum", R.Val(x.astype(np.float64), 0.0, "f32"), 1, False)
    for _ in range(5):
        perm = rng.permutation(4096)
        acc = np.zeros(8, dtype=np.float32)
        for j in perm:  # a float32 sum in another order
            acc = (acc + x[:, j]).astype(np.float32)
        if np.any(np.abs(acc - s.v) > s.e):
            failures += 1
            print("a shuffled float32 sum leaves the bound")
    print(f"bounds: {failures} failures")
    return failures


if __name__ == "__main__":
    sys.exit(1 if check_rounding() + check_bounds() else 0)
