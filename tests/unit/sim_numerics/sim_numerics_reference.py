#!/usr/bin/python3
"""Independent NumPy reference for the functional simulator tests (tests/unit/sim_numerics).

Usage: sim_numerics_reference.py SPEC.json...

Each SPEC is {"op": MNEMONIC | "MATMUL" | "COPY" | "BOXCOPY",
         "inputs": [{"file", "dtype", "shape"}...], "output": {"file", "dtype", "shape"},
         "scalar": float, "mode": str, "transpose_a": bool, "transpose_b": bool, "k_split": int,
         "src_box": [row, col, rows, cols], "dst_corner": [row, col]}
Files are raw little-endian element bytes (bf16 as its u16 bits, i1 as bytes 0/1). The script
computes the op as the ISA reference (docs/SIMULATOR_NUMERICS.md) defines it -- in float32,
folds in index order, one rounding to the output dtype -- with NumPy only, and writes the
result to output.file. bf16 rounding uses PyTorch (imported only then), so no code is shared
with the C++ bit manipulation under test.
"""

import json
import sys
import warnings

import numpy as np

F32 = np.float32
NP_DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32,
             "i1": np.uint8, "bf16": np.uint16}


def load(spec):
    raw = np.fromfile(spec["file"], dtype=NP_DTYPES[spec["dtype"]]).reshape(spec["shape"])
    if spec["dtype"] == "bf16":  # bf16 bits are the top half of an f32
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if spec["dtype"] == "i1":
        return (raw != 0).astype(F32)
    return raw.astype(F32)


def load_raw(spec):
    """The elements without widening (for exact integer matmul)."""
    return np.fromfile(spec["file"], dtype=NP_DTYPES[spec["dtype"]]).reshape(spec["shape"])


def round_int(x, mode):
    x = x.astype(np.float64)
    if mode in ("", "rne"):
        return np.rint(x)
    if mode == "trunc":
        return np.trunc(x)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    if mode == "rna":
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    raise SystemExit("unknown mode " + mode)


def store(values, dtype, mode=""):
    """Rounds float32 values once to dtype; returns the array of stored elements."""
    values = np.asarray(values, dtype=F32)
    if dtype == "f32":
        return values
    if dtype == "f16":
        assert mode in ("", "rne"), "directed f16 rounding is covered by ScalarTest"
        return values.astype(np.float16)
    if dtype == "bf16":
        assert mode in ("", "rne"), "directed bf16 rounding is covered by ScalarTest"
        import torch
        t = torch.from_numpy(values.copy()).to(torch.bfloat16)
        return t.view(torch.int16).numpy().view(np.uint16)
    if dtype in ("i8", "i32"):
        info = np.iinfo(NP_DTYPES[dtype])
        r = np.nan_to_num(round_int(values, mode), nan=0.0)
        return np.clip(r, info.min, info.max).astype(NP_DTYPES[dtype])
    if dtype == "i1":
        return (values != 0).astype(np.uint8)
    raise SystemExit("unknown dtype " + dtype)


def broadcast(x, shape):
    return np.broadcast_to(x, shape).astype(F32)


def fold(x, axis, op):
    """Folds along axis in index order in float32, starting from the op's identity."""
    init = {"sum": 0.0, "max": -np.inf, "min": np.inf}[op]
    moved = np.moveaxis(x, axis, 0)
    acc = np.full(moved.shape[1:], init, dtype=F32)
    for item in moved:
        if op == "sum":
            acc = (acc + item).astype(F32)
        elif op == "max":
            acc = np.maximum(acc, item)
        else:
            acc = np.minimum(acc, item)
    return np.expand_dims(acc, axis)


def matmul(spec, xs):
    a, b = xs[0], xs[1]
    if spec.get("transpose_a"):
        a = a.T
    if spec.get("transpose_b"):
        b = b.T
    m, k = a.shape
    n = b.shape[1]
    if spec["inputs"][0]["dtype"] == "i8":
        ra = load_raw(spec["inputs"][0]).astype(np.int64)
        rb = load_raw(spec["inputs"][1]).astype(np.int64)
        ra = ra.T if spec.get("transpose_a") else ra
        rb = rb.T if spec.get("transpose_b") else rb
        wrapped = ((ra @ rb) + 2**31) % 2**32 - 2**31  # a 32-bit accumulator wraps
        return wrapped.astype(np.int32)
    # Per k-tile of k_split: the partial product from 0 (k ascending, product and sum each
    # rounded to f32), then added to the running result (TMATMUL, then TMATMUL_ACC per tile).
    split = spec.get("k_split") or k
    c = None
    for k0 in range(0, k, split):
        part = np.zeros((m, n), dtype=F32)
        for p in range(k0, min(k, k0 + split)):
            part = (part + (a[:, p:p + 1] * b[p:p + 1, :]).astype(F32)).astype(F32)
        c = part if c is None else (c + part).astype(F32)
    return c


def compute(spec, xs):
    op = spec["op"]
    out = spec["output"]
    shape = tuple(out["shape"])
    s = F32(spec.get("scalar", 0.0))
    mode = spec.get("mode", "")
    # exp/log: computed in float64 and rounded once to f32, i.e. the correctly rounded f32
    # result. (NumPy's own f32 exp/log are SIMD approximations up to 2 ulp off; glibc's
    # expf/logf, which the simulator uses, are within 1 ulp of the correctly rounded value.)
    unary = {"TEXP": lambda x: np.exp(x.astype(np.float64)).astype(F32),
             "TLOG": lambda x: np.log(x.astype(np.float64)).astype(F32), "TSQRT": np.sqrt,
             "TRSQRT": lambda x: F32(1) / np.sqrt(x), "TRECIP": lambda x: F32(1) / x,
             "TABS": np.abs, "TNEG": np.negative,
             "TRELU": lambda x: np.where(x < 0, F32(0), x)}
    binary = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide,
              "MAX": np.maximum, "MIN": np.minimum}
    compare = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}
    if op in unary:
        return store(unary[op](broadcast(xs[0], shape)), out["dtype"])
    if op in ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN"):
        return store(binary[op[1:]](broadcast(xs[0], shape), broadcast(xs[1], shape)),
                     out["dtype"])
    if op.startswith("TROWEXPAND") and op != "TROWEXPAND":
        return store(binary[op[len("TROWEXPAND"):]](xs[0], broadcast(xs[1], shape)),
                     out["dtype"])
    if op == "TROWEXPAND":
        return store(broadcast(xs[0], shape), out["dtype"])
    if op.endswith("S") and op[1:-1] in binary:
        return store(binary[op[1:-1]](broadcast(xs[0], shape), s), out["dtype"])
    if op == "TCVT":
        return store(broadcast(xs[0], shape), out["dtype"], mode)
    if op == "TCMP":
        return store(compare[mode](broadcast(xs[0], shape), broadcast(xs[1], shape)),
                     out["dtype"])
    if op == "TCMPS":
        return store(compare[mode](broadcast(xs[0], shape), s), out["dtype"])
    if op == "TSEL":
        cond = broadcast(xs[0], shape) != 0
        return store(np.where(cond, broadcast(xs[1], shape), broadcast(xs[2], shape)),
                     out["dtype"])
    if op == "TEXPANDS":
        return store(np.full(shape, s, dtype=F32), out["dtype"])
    if op.startswith("TROW") or op.startswith("TCOL"):
        axis = 1 if op.startswith("TROW") else 0
        return store(fold(xs[0], axis, op[4:].lower()), out["dtype"])
    if op == "TTRANS":
        return store(xs[0].T, out["dtype"])
    if op == "MATMUL":
        c = matmul(spec, xs)
        return c if c.dtype == np.int32 else store(c, out["dtype"])
    if op == "COPY":  # a chain of moves: the value converted once to the output dtype
        return store(xs[0], out["dtype"])
    if op == "BOXCOPY":  # a box of the input copied byte-exactly into a zero output
        sr, sc, rows, cols = spec["src_box"]
        dr, dc = spec["dst_corner"]
        raw = load_raw(spec["inputs"][0])
        result = np.zeros(shape, dtype=raw.dtype)
        result[dr:dr + rows, dc:dc + cols] = raw[sr:sr + rows, sc:sc + cols]
        return result
    raise SystemExit("unknown op " + op)


def main():
    warnings.simplefilter("ignore")  # inf/nan from the random data are part of the test
    for path in sys.argv[1:]:
        with open(path) as f:
            spec = json.load(f)
        xs = [load(i) for i in spec["inputs"]]
        result = compute(spec, xs)
        out = spec["output"]
        assert tuple(result.shape) == tuple(out["shape"]), (result.shape, out["shape"])
        np.ascontiguousarray(result).tofile(out["file"])


if __name__ == "__main__":
    main()
