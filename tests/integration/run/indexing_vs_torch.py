#!/usr/bin/env python3
"""topk and gather through `pto run` (compile, simulate) against PyTorch on random programs.

usage: indexing_vs_torch.py PTO [--cases N] [--seed S]

topk: random shapes (odd sizes), k = 1, k = n and in between, largest and smallest, f32 / f16 /
i32, half the inputs small integers so that ties are frequent. The values must equal
torch.topk(sorted=True)'s bit for bit; the indices must equal the lower-index-first order
(torch.sort(stable=True)), and torch.topk's own indices wherever the row has no ties.
gather: random tables and 1-D / 2-D indices against torch.index_select, along axis 0 of a rank-2
source and along axis 1 of a rank-3 one.
Every axis: topk, cumsum and gather on sources of rank 1-4 with odd sizes along a random axis,
spelled negative half the time (the rewrites of decompose-composites), bit for bit as above.
scatter_add: random bases, sources and 1-D / 2-D indices with many duplicates against
torch.index_add in the same dtype — bit for bit (contributions in index order, each rounded once);
and into bases of rank 1-4 along every axis but a rank-2 base's first (SCATTER_AXES and random
ones: the rewrites of decompose-composites, once refused), f32 / f16 / i32, also bit for bit.
cumsum: along either of the last two axes, f32 / f16 / i32, bit for bit against NumPy's
sequential f32 add.accumulate, and within the documented bound of torch.cumsum (which sums in
f64 on the CPU): |ours - torch| <= n * 2^-24 * sum|x| + one rounding of the output dtype.
Long lines (LONG_LINES): topk and cumsum rows past 16 384 elements of f16 / i8 / i32, and
along axis 0 of 4096x64 f32 and 3072x8 i32 (transposed first: a strip of whole columns does not
fit UB), the same checks.
Exit 1 on a mismatch, or when the random cases missed one of the situations the topk and gather
checks must cover (COVERAGE: k = 1, k = n, rows with ties, odd extents, largest and smallest,
repeated gather indices), so that another seed cannot drop one silently.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32}

COVERAGE = {"topk k=1", "topk k=n>1", "topk ties", "topk odd n>1", "topk largest",
            "topk smallest", "gather repeated index", "gather odd extent"}
covered = set()


def run_pto(pto, text, inputs, tmp):
    prog = os.path.join(tmp, "p.pto")
    with open(prog, "w") as f:
        f.write(text)
    files = []
    for i, x in enumerate(inputs):
        path = os.path.join(tmp, f"in{i}.npy")
        np.save(path, x)
        files.append(path)
    out = os.path.join(tmp, "out")
    r = subprocess.run([pto, "run", prog, "--inputs", ",".join(files), "--outputs", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"pto run failed ({r.returncode}):\n{r.stderr}\n{text}")
    return {name[:-4]: np.load(os.path.join(out, name)) for name in os.listdir(out)}


def ptype(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def topk_case(rng, pto, tmp, column=False):
    if column:  # along the second-last axis: lowered through tile transposes
        rank = int(rng.integers(2, 4))
        shape = [int(rng.integers(1, 4)) for _ in range(rank - 2)] + \
            [int(rng.integers(1, 70)), int(rng.integers(1, 40))]
        return topk_along(rng, pto, tmp, shape, rank - 2)
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 6)) for _ in range(rank - 1)] + [int(rng.integers(1, 70))]
    return topk_along(rng, pto, tmp, shape, rank - 1)


def topk_along(rng, pto, tmp, shape, axis, spelled=None):
    n = shape[axis]
    k = int(rng.choice([1, n, rng.integers(1, n + 1)]))
    largest = bool(rng.integers(0, 2))
    dt = str(rng.choice(list(DTYPES)))
    ties = bool(rng.integers(0, 2)) or dt == "i32"
    x = (rng.integers(-3, 4, size=shape) if ties else rng.standard_normal(shape)).astype(DTYPES[dt])
    if spelled is None:
        spelled = None if axis == len(shape) - 1 else axis
    rows = np.moveaxis(x, axis, -1).reshape(-1, n)
    covered.update(tag for tag, hit in [
        ("topk k=1", k == 1), ("topk k=n>1", k == n > 1), ("topk odd n>1", n % 2 == 1 and n > 1),
        ("topk ties", any(len(set(r)) < len(r) for r in rows.tolist())),
        ("topk largest", largest), ("topk smallest", not largest)] if hit)
    problems = check_topk(pto, tmp, x, dt, axis, spelled, k, largest)
    return f"topk {shape} axis={spelled} k={k} largest={largest} {dt} ties={ties}", problems


def check_topk(pto, tmp, x, dt, axis, spelled, k, largest):
    """topk of x (values and positions) through `pto run` against torch: the problems found."""
    shape, n = list(x.shape), x.shape[axis]
    out_shape = list(shape)
    out_shape[axis] = k
    flag = ("" if largest else ", largest = false") + \
        ("" if spelled is None else f", axis = {spelled}")
    text = (f"func @t(%x: {ptype(shape, dt)}) -> ({ptype(out_shape, dt)}, "
            f"{ptype(out_shape, 'i32')}) {{\n"
            f"  %v = topk %x {{k = {k}{flag}}}\n"
            f"  %i = topk %x {{k = {k}{flag}, indices}}\n"
            f"  return %v, %i\n}}\n")
    got = run_pto(pto, text, [x], tmp)
    # compare along the last axis: move the topk axis there on both sides
    x = np.moveaxis(x, axis, -1)
    got = {key: np.moveaxis(got[key], axis, -1) for key in ("v", "i")}
    t = torch.from_numpy(x.astype(np.float64))
    want_v = torch.topk(t, k, dim=-1, largest=largest, sorted=True)
    order = torch.sort(t, dim=-1, descending=largest, stable=True).indices[..., :k]
    problems = []
    if not np.array_equal(got["v"].astype(np.float64), want_v.values.numpy()):
        problems.append("values differ from torch.topk")
    if not np.array_equal(got["i"], order.numpy().astype(np.int32)):
        problems.append("indices differ from the lower-index-first order")
    distinct = np.array([len(set(r)) == len(r) for r in x.reshape(-1, n).tolist()])
    topk_i = want_v.indices.numpy().reshape(-1, k)[distinct]
    if not np.array_equal(got["i"].reshape(-1, k)[distinct], topk_i.astype(np.int32)):
        problems.append("indices of rows without ties differ from torch.topk")
    return problems


def random_axis(rng, rank):
    """An axis and its spelling: negative (counting from the end) half the time."""
    axis = int(rng.integers(0, rank))
    return axis, axis - rank if rng.integers(0, 2) else axis


def odd_shape(rng, rank, small=6, large=40):
    return [int(rng.integers(1, small)) for _ in range(rank - 1)] + [int(rng.integers(1, large))]


def topk_any_axis_case(rng, pto, tmp):
    shape = odd_shape(rng, int(rng.integers(1, 5)), small=8)
    axis, spelled = random_axis(rng, len(shape))
    return topk_along(rng, pto, tmp, shape, axis, spelled)


def cumsum_any_axis_case(rng, pto, tmp):
    shape = odd_shape(rng, int(rng.integers(1, 5)), small=9)
    axis, spelled = random_axis(rng, len(shape))
    dt, x, got = run_random_cumsum(rng, pto, tmp, shape, spelled)
    if dt == "i32":
        want = torch.cumsum(torch.from_numpy(x.astype(np.int64)), dim=axis).numpy().astype(np.int32)
    else:
        want = np.add.accumulate(x.astype(np.float32), axis=axis, dtype=np.float32).astype(x.dtype)
    ok = bits_equal(got, want)
    return f"cumsum {shape} axis={spelled} {dt}", [] if ok else ["differs from the reference"]


def gather_any_axis_case(rng, pto, tmp):
    shape = odd_shape(rng, int(rng.integers(1, 5)), small=7, large=30)
    axis, spelled = random_axis(rng, len(shape))
    idx_shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 3)))]
    if len(shape) + len(idx_shape) - 1 > 6:
        idx_shape = idx_shape[:1]
    dt = str(rng.choice(["f32", "f16", "i32"]))
    src = (rng.integers(-1000, 1000, size=shape) if dt == "i32" else
           rng.standard_normal(shape)).astype(DTYPES[dt])
    idx = rng.integers(0, shape[axis], size=idx_shape).astype(np.int32)  # repeats, both ends
    idx.flat[0] = shape[axis] - 1
    out_shape = shape[:axis] + idx_shape + shape[axis + 1:]
    text = (f"func @g(%t: {ptype(shape, dt)}, %i: {ptype(idx_shape, 'i32')}) -> "
            f"{ptype(out_shape, dt)} {{\n  %y = gather %t, %i {{axis = {spelled}}}\n"
            f"  return %y\n}}\n")
    got = run_pto(pto, text, [src, idx], tmp)["y"]
    note_gather(idx, shape[axis])
    want = torch.from_numpy(src).index_select(axis, torch.from_numpy(idx.astype(np.int64))
                                              .flatten()).reshape(out_shape).numpy()
    ok = bits_equal(got, want)
    return f"gather {shape} axis={spelled} by {idx_shape} {dt}", [] if ok else ["differs from torch"]


def gather_case(rng, pto, tmp):
    rows, cols = int(rng.integers(1, 50)), int(rng.integers(1, 700))
    idx_shape = [int(rng.integers(1, 9))] if rng.integers(0, 2) else \
        [int(rng.integers(1, 4)), int(rng.integers(1, 7))]
    dt = str(rng.choice(["f32", "f16"]))
    table = rng.standard_normal((rows, cols)).astype(DTYPES[dt])
    idx = rng.integers(0, rows, size=idx_shape).astype(np.int32)
    out_shape = idx_shape + [cols]
    text = (f"func @g(%t: {ptype([rows, cols], dt)}, %i: {ptype(idx_shape, 'i32')}) -> "
            f"{ptype(out_shape, dt)} {{\n  %y = gather %t, %i {{axis = 0}}\n  return %y\n}}\n")
    got = run_pto(pto, text, [table, idx], tmp)["y"]
    note_gather(idx, rows)
    want = torch.from_numpy(table).index_select(0, torch.from_numpy(idx.astype(np.int64))
                                                .flatten()).reshape(out_shape).numpy()
    ok = got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))
    return f"gather {[rows, cols]} by {idx_shape} {dt}", [] if ok else ["differs from torch"]


def gather_mid_case(rng, pto, tmp):
    # along the second-last axis of a rank-3 source: one row gather per leading index
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 30)), int(rng.integers(1, 300))]
    idx_shape = [int(rng.integers(1, 12))] if rng.integers(0, 2) else \
        [int(rng.integers(1, 3)), int(rng.integers(1, 6))]
    dt = str(rng.choice(["f32", "f16"]))
    src = rng.standard_normal(shape).astype(DTYPES[dt])
    idx = rng.integers(0, shape[1], size=idx_shape).astype(np.int32)
    out_shape = shape[:1] + idx_shape + shape[2:]
    text = (f"func @g(%t: {ptype(shape, dt)}, %i: {ptype(idx_shape, 'i32')}) -> "
            f"{ptype(out_shape, dt)} {{\n  %y = gather %t, %i {{axis = 1}}\n  return %y\n}}\n")
    got = run_pto(pto, text, [src, idx], tmp)["y"]
    note_gather(idx, shape[1])
    want = torch.from_numpy(src).index_select(1, torch.from_numpy(idx.astype(np.int64))
                                              .flatten()).reshape(out_shape).numpy()
    ok = bits_equal(got, want)
    return f"gather {shape} axis 1 by {idx_shape} {dt}", [] if ok else ["differs from torch"]


def note_gather(idx, extent):
    covered.update(tag for tag, hit in [
        ("gather repeated index", len(np.unique(idx)) < idx.size),
        ("gather odd extent", extent % 2 == 1 and extent > 1)] if hit)


def bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def scatter_add_case(rng, pto, tmp):
    rows, cols = int(rng.integers(1, 40)), int(rng.integers(1, 700))
    idx_shape = [int(rng.integers(1, 60))] if rng.integers(0, 2) else \
        [int(rng.integers(1, 4)), int(rng.integers(1, 9))]
    dt = str(rng.choice(["f32", "f16"]))
    base = rng.standard_normal((rows, cols)).astype(DTYPES[dt])
    src = rng.standard_normal(idx_shape + [cols]).astype(DTYPES[dt])
    idx = rng.integers(0, max(1, rows // 3 + 1), size=idx_shape).astype(np.int32)  # duplicates
    text = (f"func @s(%b: {ptype([rows, cols], dt)}, %i: {ptype(idx_shape, 'i32')}, "
            f"%x: {ptype(idx_shape + [cols], dt)}) -> {ptype([rows, cols], dt)} {{\n"
            f"  %y = scatter_add %b, %i, %x {{axis = 0}}\n  return %y\n}}\n")
    got = run_pto(pto, text, [base, idx, src], tmp)["y"]
    want = torch.index_add(torch.from_numpy(base), 0,
                           torch.from_numpy(idx.astype(np.int64)).flatten(),
                           torch.from_numpy(src).reshape(-1, cols)).numpy()
    ok = bits_equal(got, want)
    return f"scatter_add {[rows, cols]} by {idx_shape} {dt}", [] if ok else ["differs from torch"]


# scatter_add along the axes expand-tiles does not lower as written: (base shape, axis, index
# shape). [20, 33] along axis 1 was refused with the advice to reshape the base, which cannot
# turn a column scatter into a row scatter.
SCATTER_AXES = [([20, 33], 1, [5]), ([33, 20], -1, [40]), ([7], 0, [9]), ([7], -1, []),
                ([3, 4, 5], 0, [6]), ([3, 4, 5], 1, [2, 3])]


def scatter_add_along(rng, pto, tmp, shape, spelled, idx_shape):
    axis = spelled % len(shape)
    dt = str(rng.choice(["f32", "f16", "i32"]))
    src_shape = shape[:axis] + idx_shape + shape[axis + 1:]
    draw = (lambda s: rng.integers(-50, 50, size=s)) if dt == "i32" else rng.standard_normal
    base, src = draw(shape).astype(DTYPES[dt]), draw(src_shape).astype(DTYPES[dt])
    idx = rng.integers(0, shape[axis] // 3 + 1, size=idx_shape).astype(np.int32)  # duplicates
    text = (f"func @s(%b: {ptype(shape, dt)}, %i: {ptype(idx_shape, 'i32')}, "
            f"%x: {ptype(src_shape, dt)}) -> {ptype(shape, dt)} {{\n"
            f"  %y = scatter_add %b, %i, %x {{axis = {spelled}}}\n  return %y\n}}\n")
    got = run_pto(pto, text, [base, idx, src], tmp)["y"]
    flat = torch.from_numpy(idx.astype(np.int64)).flatten()
    rows = torch.from_numpy(src).reshape(shape[:axis] + [flat.numel()] + shape[axis + 1:])
    want = torch.index_add(torch.from_numpy(base), axis, flat, rows).numpy()
    ok = bits_equal(got, want)
    return (f"scatter_add {shape} axis={spelled} by {idx_shape} {dt}",
            [] if ok else ["differs from torch index_add"])


def scatter_add_any_axis_case(rng, pto, tmp):
    while True:
        shape = odd_shape(rng, int(rng.integers(1, 5)), small=6, large=30)
        axis, spelled = random_axis(rng, len(shape))
        if len(shape) != 2 or axis != 0:
            break
    idx_shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(0, 3)))]
    if len(shape) + len(idx_shape) - 1 > 6:
        idx_shape = idx_shape[:1]
    return scatter_add_along(rng, pto, tmp, shape, spelled, idx_shape)


def run_random_cumsum(rng, pto, tmp, shape, axis_spelled):
    """cumsum of random f32/f16/i32 values along an axis through `pto run`: (dtype, x, result)."""
    dt = str(rng.choice(["f32", "f16", "i32"]))
    x = (rng.integers(-50, 50, size=shape) if dt == "i32" else
         rng.standard_normal(shape)).astype(DTYPES[dt])
    text = (f"func @c(%x: {ptype(shape, dt)}) -> {ptype(shape, dt)} {{\n"
            f"  %y = cumsum %x {{axis = {axis_spelled}}}\n  return %y\n}}\n")
    return dt, x, run_pto(pto, text, [x], tmp)["y"]


def cumsum_case(rng, pto, tmp):
    shape = [int(rng.integers(1, 90)), int(rng.integers(1, 90))]
    axis = int(rng.integers(0, 2))
    dt, x, got = run_random_cumsum(rng, pto, tmp, shape, axis)
    return f"cumsum {shape} axis={axis} {dt}", check_cumsum(dt, x, axis, got)


def check_cumsum(dt, x, axis, got):
    """The problems of `got` as x's cumsum along axis: i32 exact (torch.cumsum in i64), floats bit
    for bit NumPy's sequential f32 sum and within the documented bound of torch.cumsum."""
    problems = []
    if dt == "i32":
        want = torch.cumsum(torch.from_numpy(x.astype(np.int64)), dim=axis).numpy()
        if not np.array_equal(got, want.astype(np.int32)):
            problems.append("differs from the exact sum")
        return problems
    seq = np.add.accumulate(x.astype(np.float32), axis=axis, dtype=np.float32).astype(x.dtype)
    if not bits_equal(got, seq):
        problems.append("differs from the sequential f32 sum")
    ref = torch.cumsum(torch.from_numpy(x.astype(np.float64)), dim=axis).numpy()
    n = x.shape[axis]
    bound = n * 2.0**-24 * np.cumsum(np.abs(x.astype(np.float64)), axis=axis) + \
        np.abs(ref) * (2.0**-11 if dt == "f16" else 2.0**-24)
    if np.any(np.abs(got.astype(np.float64) - ref) > bound):
        problems.append("outside the documented bound of torch.cumsum")
    return problems


# Long lines: rows past 16 384 elements of 1- and 2-byte dtypes (a line may take 64 KiB of its
# own dtype), and columns whose strips of whole columns do not fit UB, so decompose-composites
# runs the op along the rows of the transpose (moe_dispatch_combine's routing cumsum at 1536
# tokens is the 3072x8 i32 one). (op, shape, dtype, axis, k)
LONG_LINES = [("topk", [2, 20000], "f16", -1, 5), ("topk", [2, 32768], "f16", -1, 9),
              ("topk", [3, 16385], "i8", -1, 4), ("topk", [2, 16384], "f32", -1, 16384),
              ("topk", [4096, 64], "f32", 0, 8), ("topk", [2048, 20], "f16", 0, 3),
              ("cumsum", [2, 20000], "f16", 1, None), ("cumsum", [2, 16384], "i32", 1, None),
              ("cumsum", [3072, 8], "i32", 0, None), ("cumsum", [4096, 64], "f32", 0, None)]
LONG_DTYPES = {**DTYPES, "i8": np.int8}


def long_line_case(rng, pto, tmp, op, shape, dt, axis, k):
    """One LONG_LINES case: small integers (ties everywhere) for topk, N(0, 1) or small integers
    for cumsum, checked as the random cases are."""
    ints = op == "topk" or dt == "i32"
    x = (rng.integers(-50, 50, size=shape) if ints else
         rng.standard_normal(shape)).astype(LONG_DTYPES[dt])
    name = f"long {op} {shape} axis={axis} {dt}" + (f" k={k}" if k else "")
    if op == "topk":
        largest = k != 9  # one smallest-first case
        return name, check_topk(pto, tmp, x, dt, axis % len(shape), axis, k, largest)
    text = (f"func @c(%x: {ptype(shape, dt)}) -> {ptype(shape, dt)} {{\n"
            f"  %y = cumsum %x {{axis = {axis}}}\n  return %y\n}}\n")
    return name, check_cumsum(dt, x, axis, run_pto(pto, text, [x], tmp)["y"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pto")
    ap.add_argument("--cases", type=int, default=24)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--more-cases", type=int, default=32,
                    help="scatter_add, cumsum, topk along the second-last axis, gather along the "
                         "second-last axis of a rank-3 source")
    ap.add_argument("--axis-cases", type=int, default=36,
                    help="topk, cumsum and gather of rank 1-4 along a random axis, negative half "
                         "the time")
    ap.add_argument("--scatter-cases", type=int, default=12,
                    help="scatter_add into bases of rank 1-4 along a random axis other than a "
                         "rank-2 base's first, negative half the time")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in range(a.cases):
            name, problems = (topk_case if c % 3 else gather_case)(rng, a.pto, tmp)
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
        for c in range(a.more_cases):
            if c % 4 == 2:
                name, problems = topk_case(rng, a.pto, tmp, column=True)
            else:
                name, problems = (scatter_add_case, cumsum_case, None, gather_mid_case)[c % 4](
                    rng, a.pto, tmp)
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
        axis_rng = np.random.default_rng(a.seed + 1)
        for c in range(a.axis_cases):
            case = (topk_any_axis_case, cumsum_any_axis_case, gather_any_axis_case)[c % 3]
            name, problems = case(axis_rng, a.pto, tmp)
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
        long_rng = np.random.default_rng(a.seed + 2)
        for spec in LONG_LINES:
            name, problems = long_line_case(long_rng, a.pto, tmp, *spec)
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
        scatter_rng = np.random.default_rng(a.seed + 3)
        scatters = [lambda spec=spec: scatter_add_along(scatter_rng, a.pto, tmp, *spec)
                    for spec in SCATTER_AXES]
        scatters += [lambda: scatter_add_any_axis_case(scatter_rng, a.pto, tmp)] * a.scatter_cases
        for case in scatters:
            try:
                name, problems = case()
            except RuntimeError as e:  # refused: print it, count it, go on
                name, problems = "scatter_add", [str(e)]
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
    total = a.cases + a.more_cases + a.axis_cases + len(LONG_LINES) + len(scatters)
    print(f"{total - failed}/{total} cases agree with PyTorch")
    print("covered: " + ", ".join(sorted(covered)))
    missing = sorted(COVERAGE - covered)
    if missing:
        print("FAIL: the random cases never met " + ", ".join(missing) + " (change --seed or "
              "--cases)")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
