# Independent NumPy reference of validate/ErrorMetrics.h: prints the metrics of actual vs golden as JSON.
# usage: metrics_reference.py ACTUAL.npy GOLDEN.npy RTOL ATOL
import json
import os
import sys

import numpy as np

FACTS = {  # dtype: (sat max, sat min, min normal, ulp min exponent, fraction bits)
    "f32": (float(np.finfo(np.float32).max), -float(np.finfo(np.float32).max), 2.0**-126, -126, 23),
    "f16": (65504.0, -65504.0, 2.0**-14, -14, 10),
    "bf16": (float.fromhex("0x1.FEp127"), -float.fromhex("0x1.FEp127"), 2.0**-126, -126, 7),
    "i8": (127.0, -128.0, 0.0, None, None),
    "i32": (2147483647.0, -2147483648.0, 0.0, None, None),
    "i1": (1.0, 0.0, 0.0, None, None),
}
NAMES = {"float32": "f32", "float16": "f16", "int8": "i8", "int32": "i32", "bool": "i1"}


def load(path):
    a = np.load(path)
    side = path + ".dtype"
    if os.path.exists(side) and open(side).read().strip() == "bf16":
        bits = a.astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64), "bf16"
    return a.astype(np.float64), NAMES[str(a.dtype)]


def counts(x, dt):
    smax, smin, mn, _, _ = FACTS[dt]
    m = np.abs(x)
    return {
        "nan": int(np.isnan(x).sum()),
        "pos_inf": int((x == np.inf).sum()),
        "neg_inf": int((x == -np.inf).sum()),
        "saturated": int(((x == smax) | (x == smin)).sum()),
        "subnormal": int(((m > 0) & (m < mn)).sum()),
    }


def ulp_of(g, dt):
    _, _, _, emin, p = FACTS[dt]
    if emin is None:
        return np.ones_like(g)
    _, e = np.frexp(np.abs(g))
    e = np.where(g == 0, emin, e - 1)
    return np.exp2((np.maximum(e, emin) - p).astype(np.float64))


def main():
    a, adt = load(sys.argv[1])
    g, gdt = load(sys.argv[2])
    rtol, atol = float(sys.argv[3]), float(sys.argv[4])
    a, g = a.reshape(-1), g.reshape(-1)
    shape = np.load(sys.argv[2]).shape
    fin = np.isfinite(a) & np.isfinite(g)
    af, gf = a[fin], g[fin]
    d = np.abs(af - gf)
    ag = np.abs(gf)
    nz = ag != 0
    rel = d[nz] / ag[nz]
    out = {"count": int(a.size), "finite_pairs": int(fin.sum())}
    nan_mis = int((np.isnan(a) != np.isnan(g)).sum())
    inf_mis = int(((np.isinf(a) | np.isinf(g)) & ~np.isnan(a) & ~np.isnan(g) & (a != g)).sum())
    close = np.isclose(a, g, rtol=rtol, atol=atol, equal_nan=True)
    out.update(nan_mismatch=nan_mis, inf_mismatch=inf_mis, mismatch_count=int((~close).sum()),
               mismatch_ratio=float((~close).sum() / a.size) if a.size else 0.0,
               zero_golden=int((~nz).sum()),
               zero_golden_max_abs=float(d[~nz].max()) if (~nz).any() else 0.0,
               unequal=int((d != 0).sum()) + nan_mis + inf_mis)
    flat_idx = np.flatnonzero(fin)
    if fin.sum():
        i = int(np.argmax(d))
        out["max_abs"] = float(d[i])
        out["max_abs_index"] = [int(v) for v in np.unravel_index(flat_idx[i], shape)]
        if nz.sum():
            j = int(np.argmax(rel))
            out["max_rel"] = float(rel[j])
            out["max_rel_index"] = [int(v) for v in np.unravel_index(flat_idx[nz][j], shape)]
            out["mean_rel"] = float(rel.mean())
        else:
            out.update(max_rel=0.0, max_rel_index=[], mean_rel=0.0)
        out["mean_abs"] = float(d.mean())
        out["rmse"] = float(np.sqrt(np.mean(d * d)))
        sg = float(np.sum(gf * gf))
        sd = float(np.sum(d * d))
        out["rel_l2"] = np.sqrt(sd) / np.sqrt(sg) if sg > 0 else (float("inf") if sd > 0 else 0.0)
        na, ng = float(np.sqrt(np.sum(af * af))), float(np.sqrt(np.sum(gf * gf)))
        out["cosine"] = 1.0 if na == 0 and ng == 0 else (0.0 if na == 0 or ng == 0 else float(np.sum(af * gf)) / (na * ng))
        u = d / ulp_of(gf, gdt)
        out["ulp_max"] = float(u.max())
        out["ulp_mean"] = float(u.mean())
        w1 = np.where(nz, d <= 1e-3 * ag, d == 0)
        w5 = np.where(nz, d <= 5e-3 * ag, d == 0)
        # the C++ side computes rel = d/|g| then compares; do the same
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(nz, d / np.where(nz, ag, 1.0), 0.0)
        w1 = np.where(nz, r <= 1e-3, d == 0)
        w5 = np.where(nz, r <= 5e-3, d == 0)
        out["within_1e-3"] = float(w1.mean())
        out["within_5e-3"] = float(w5.mean())
        bad = (nan_mis + inf_mis) > 0
        min_rtol = float(np.max(np.concatenate([[0.0], (d[nz] - atol) / ag[nz]])))
        if np.any(d[~nz] > atol):
            min_rtol = float("inf")
        min_atol = float(np.max(np.concatenate([[0.0], d - rtol * ag])))
        out["min_rtol"] = float("inf") if bad else min_rtol
        out["min_atol"] = float("inf") if bad else min_atol
    else:
        bad = (nan_mis + inf_mis) > 0
        out.update(max_abs=0.0, max_abs_index=[], max_rel=0.0, max_rel_index=[], mean_rel=0.0,
                   mean_abs=0.0, rmse=0.0, rel_l2=0.0, cosine=1.0, ulp_max=0.0, ulp_mean=0.0,
                   **{"within_1e-3": 1.0, "within_5e-3": 1.0},
                   min_rtol=float("inf") if bad else 0.0, min_atol=float("inf") if bad else 0.0)
    out["actual"] = counts(a, adt)
    out["golden"] = counts(g, gdt)
    for k, v in list(out.items()):
        if isinstance(v, float) and np.isinf(v):
            out[k] = "inf" if v > 0 else "-inf"
    print(json.dumps(out))


main()
