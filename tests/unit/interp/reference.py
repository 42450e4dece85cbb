#!/usr/bin/python3
"""Independent NumPy/PyTorch reference results for the Tensor interpreter test.

Usage: reference.py CASES.json

CASES.json: {"cases": [{"name", "op", "attrs": {...},
                        "inputs": [{"path", "dtype", "shape"}...],
                        "output": {"path", "dtype", "shape"}}...]}
Inputs are raw little-endian row-major arrays (f16/bf16 as their 16-bit patterns, i1 as
bytes 0/1), written by the C++ test; this script writes each case's reference output to
output.path in the same format.

Precision: like the interpreter's contract, every op is computed in float32 from the inputs
widened exactly, and the result is rounded once to the output dtype (f16/bf16 round to nearest
even via NumPy/PyTorch casts; integers round half to even and saturate). The computation itself
uses NumPy/PyTorch's own kernels (their summation order, their exp/tanh...), so the comparison
checks our semantics, not a copy of our loops. Layout ops work on the raw element bits and must
match exactly. Integer matmul is computed exactly in int64.
"""

import json
import sys

import numpy as np
import torch
import torch.nn.functional as F

NP_RAW = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i8": "i1", "i32": "<i4", "i1": "u1"}


def load_raw(spec):
    """The input as a NumPy array of its storage type (bf16 as uint16 bits)."""
    data = np.fromfile(spec["path"], dtype=NP_RAW[spec["dtype"]])
    return data.reshape(spec["shape"])


def widen(raw, dtype):
    """Storage array -> float32 torch tensor, exactly."""
    if dtype == "bf16":
        bits = raw.astype(np.uint32) << 16
        return torch.from_numpy(bits.view(np.float32).copy())
    return torch.from_numpy(raw.astype(np.float32))


def narrow(y, dtype):
    """float32 torch tensor -> storage NumPy array of `dtype`, rounded once."""
    y = y.to(torch.float32)
    if dtype == "f32":
        return y.numpy().astype("<f4")
    if dtype == "f16":
        return y.to(torch.float16).numpy().astype("<f2")
    if dtype == "bf16":
        return y.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    if dtype in ("i8", "i32"):
        lo, hi = (-128, 127) if dtype == "i8" else (-(2**31), 2**31 - 1)
        r = np.rint(y.numpy().astype(np.float64))  # half to even
        r = np.nan_to_num(r, nan=0.0, posinf=hi, neginf=lo)
        return np.clip(r, lo, hi).astype(NP_RAW[dtype])
    if dtype == "i1":
        return (y.numpy() != 0).astype(np.uint8)
    raise ValueError(dtype)


# --- Cast with an explicit rounding mode (f32 -> f16 / integers) ------------------------------

def round_to_f16(x32, mode):
    """float32 array -> float16 array rounded by `mode`, from NumPy's RNE cast and nextafter."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = x32.astype(np.float16)
        x = x32.astype(np.float64)
        r64 = r.astype(np.float64)
        down = np.where(r64 > x, np.nextafter(r, np.float16(-np.inf)), r)  # largest <= x
        up = np.where(r64 < x, np.nextafter(r, np.float16(np.inf)), r)  # smallest >= x
    if mode == "rne":
        return r
    if mode == "floor":
        return down
    if mode == "ceil":
        return up
    if mode == "trunc":
        return np.where(x >= 0, down, up)
    if mode == "rna":
        # Past the largest finite value the next step would be 2^16 (IEEE 754 overflow rule).
        up64 = np.where(np.isinf(up) & ~np.isinf(x), 65536.0, up.astype(np.float64))
        down64 = np.where(np.isinf(down) & ~np.isinf(x), -65536.0, down.astype(np.float64))
        d_up, d_down = up64 - x, x - down64
        pick_up = (d_up < d_down) | ((d_up == d_down) & (x > 0))
        return np.where(pick_up, up, down)
    raise ValueError(mode)


def round_to_int(x32, mode, dtype):
    lo, hi = (-128, 127) if dtype == "i8" else (-(2**31), 2**31 - 1)
    x = x32.astype(np.float64)
    r = {"rne": np.rint, "trunc": np.trunc, "floor": np.floor, "ceil": np.ceil,
         "rna": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode](x)
    r = np.nan_to_num(r, nan=0.0, posinf=hi, neginf=lo)
    return np.clip(r, lo, hi).astype(NP_RAW[dtype])


def cast(case, raws):
    src = case["inputs"][0]["dtype"]
    dst = case["output"]["dtype"]
    mode = case["attrs"].get("round", "rne")
    x = widen(raws[0], src).numpy()
    if dst == "f16":
        return round_to_f16(x, mode).astype("<f2")
    if dst in ("i8", "i32"):
        return round_to_int(x, mode, dst)
    assert mode == "rne", "directed modes are tested for f16 and integer targets"
    return narrow(torch.from_numpy(x), dst)


# --- Float ops --------------------------------------------------------------------------------

def pred(name):
    return {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
            "ge": torch.ge}[name]


def reduce_op(op, x, attrs):
    axis = attrs.get("axis", -1)
    keep = attrs.get("keepdim", False)
    if op == "reduce_sum":
        return torch.sum(x, dim=axis, keepdim=keep)
    if op == "reduce_max":
        return torch.amax(x, dim=axis, keepdim=keep)
    return torch.amin(x, dim=axis, keepdim=keep)


def matmul(case, raws, xs):
    ta = case["attrs"].get("transpose_a", False)
    tb = case["attrs"].get("transpose_b", False)
    if case["inputs"][0]["dtype"] == "i8":  # exact: NumPy's int64 matmul
        a, b = raws[0].astype(np.int64), raws[1].astype(np.int64)
        a = np.swapaxes(a, -1, -2) if ta else a
        b = np.swapaxes(b, -1, -2) if tb else b
        return torch.from_numpy(np.matmul(a, b))
    a, b = xs[0], xs[1]
    if ta:
        a = a.transpose(-1, -2)
    if tb:
        b = b.transpose(-1, -2)
    return torch.matmul(a, b)


def rms_norm(xs, attrs):
    x = xs[0]
    eps = attrs.get("eps", 1e-6)
    y = x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)
    return y * xs[1] if len(xs) > 1 else y


def layer_norm(xs, attrs):
    x = xs[0]
    n = x.shape[-1]
    gamma = xs[1].expand(n) if len(xs) > 1 else None
    beta = xs[2].expand(n) if len(xs) > 2 else None
    return F.layer_norm(x, (n,), gamma, beta, eps=attrs.get("eps", 1e-5))


FLOAT_OPS = {
    "add": lambda xs, a: xs[0] + xs[1],
    "sub": lambda xs, a: xs[0] - xs[1],
    "mul": lambda xs, a: xs[0] * xs[1],
    "div": lambda xs, a: xs[0] / xs[1],
    "max": lambda xs, a: torch.maximum(xs[0], xs[1]),
    "min": lambda xs, a: torch.minimum(xs[0], xs[1]),
    "adds": lambda xs, a: xs[0] + np.float32(a["scalar"]),
    "subs": lambda xs, a: xs[0] - np.float32(a["scalar"]),
    "muls": lambda xs, a: xs[0] * np.float32(a["scalar"]),
    "divs": lambda xs, a: xs[0] / np.float32(a["scalar"]),
    "maxs": lambda xs, a: torch.clamp_min(xs[0], float(np.float32(a["scalar"]))),
    "mins": lambda xs, a: torch.clamp_max(xs[0], float(np.float32(a["scalar"]))),
    "exp": lambda xs, a: torch.exp(xs[0]),
    "log": lambda xs, a: torch.log(xs[0]),
    "sqrt": lambda xs, a: torch.sqrt(xs[0]),
    "rsqrt": lambda xs, a: torch.rsqrt(xs[0]),
    "reciprocal": lambda xs, a: torch.reciprocal(xs[0]),
    "abs": lambda xs, a: torch.abs(xs[0]),
    "neg": lambda xs, a: torch.neg(xs[0]),
    "relu": lambda xs, a: torch.relu(xs[0]),
    "sigmoid": lambda xs, a: torch.sigmoid(xs[0]),
    "tanh": lambda xs, a: torch.tanh(xs[0]),
    "gelu": lambda xs, a: F.gelu(xs[0], approximate="tanh"),
    "silu": lambda xs, a: F.silu(xs[0]),
    "reduce_sum": lambda xs, a: reduce_op("reduce_sum", xs[0], a),
    "reduce_max": lambda xs, a: reduce_op("reduce_max", xs[0], a),
    "reduce_min": lambda xs, a: reduce_op("reduce_min", xs[0], a),
    "softmax": lambda xs, a: torch.softmax(xs[0], dim=a.get("axis", -1)),
    "rms_norm": rms_norm,
    "layer_norm": layer_norm,
    "cmp": lambda xs, a: pred(a["pred"])(xs[0], xs[1]).float(),
    "cmps": lambda xs, a: pred(a["pred"])(xs[0], float(np.float32(a["scalar"]))).float(),
    "where": lambda xs, a: torch.where(xs[0] != 0, xs[1], xs[2]),
    "quantize": lambda xs, a: xs[0] / xs[1],
    "dequantize": lambda xs, a: xs[0] * xs[1],
}

# --- Layout ops (raw bits, exact) ----------------------------------------------------------------

def layout(case, raws):
    op, attrs, shape = case["op"], case["attrs"], case["output"]["shape"]
    x = raws[0] if raws else None
    if op == "reshape":
        return x.reshape(shape)
    if op == "transpose":
        return np.transpose(x, attrs.get("perm"))
    if op == "view":
        return x[tuple(slice(o, o + s) for o, s in zip(attrs["offsets"], attrs["sizes"]))]
    if op == "concat":
        return np.concatenate(raws, axis=attrs.get("axis", 0))
    if op == "broadcast":
        return np.broadcast_to(x, shape)
    if op == "topk":  # torch.topk's values; positions lower index first (stable sort)
        axis = attrs.get("axis", -1) % x.ndim
        largest = attrs.get("largest", True)
        dtype = case["inputs"][0]["dtype"]
        t = torch.from_numpy(x.astype(np.float64)) if dtype == "i32" else widen(x, dtype).double()
        idx = torch.sort(t, dim=axis, descending=largest, stable=True).indices
        idx = idx.narrow(axis, 0, attrs["k"])
        values = torch.topk(t, attrs["k"], dim=axis, largest=largest, sorted=True).values
        assert torch.equal(torch.gather(t, axis, idx), values)
        if attrs.get("indices"):
            return idx.numpy().astype(np.int32)
        return np.take_along_axis(x, idx.numpy(), axis)
    if op == "gather":  # torch.index_select on the raw bits, the index flattened then unfolded
        axis = attrs.get("axis", 0) % x.ndim
        bits = torch.from_numpy(np.ascontiguousarray(x).view(f"<i{x.dtype.itemsize}"))
        index = torch.from_numpy(raws[1].astype(np.int64)).flatten()
        y = bits.index_select(axis, index).reshape(shape).numpy()
        return y.view(x.dtype)
    raise ValueError(op)


# --- Accumulating index ops (precision rule of docs/PTO_LANGUAGE.md, exact) ----------------------

TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def scatter_add(case, raws):
    """torch.index_add in the op's dtype: contributions in index order, each one rounded once
    (torch's CPU index_add adds slice by slice; its f16/bf16 add computes in f32)."""
    dtype, axis = case["inputs"][0]["dtype"], case["attrs"].get("axis", 0)
    axis %= raws[0].ndim
    index = torch.from_numpy(raws[1].astype(np.int64)).flatten()
    src_shape = list(raws[0].shape)
    src_shape[axis] = index.numel()
    if dtype == "i32":  # exact in int64, then saturated
        base = torch.from_numpy(raws[0].astype(np.int64))
        src = torch.from_numpy(raws[2].astype(np.int64)).reshape(src_shape)
        out = base.clone()
        for j in range(index.numel()):  # saturate after every contribution
            out.select(axis, int(index[j])).add_(src.select(axis, j))
            out.clamp_(-(2**31), 2**31 - 1)
        return out.numpy().astype("<i4")
    t = TORCH_DTYPE[dtype]
    base = widen(raws[0], dtype).to(t)
    src = widen(raws[2], dtype).to(t).reshape(src_shape)
    return narrow(torch.index_add(base, axis, index, src), dtype)


def cumsum(case, raws):
    """NumPy's add.accumulate in float32 (a sequential f32 running sum), each element rounded
    once to the dtype; i32 exactly (int64) and saturated."""
    dtype = case["inputs"][0]["dtype"]
    axis = case["attrs"].get("axis", -1) % raws[0].ndim
    if dtype == "i32":
        y = np.cumsum(raws[0].astype(np.int64), axis=axis)
        return np.clip(y, -(2**31), 2**31 - 1).astype("<i4")
    x = widen(raws[0], dtype).numpy()
    y = np.add.accumulate(x, axis=axis, dtype=np.float32)
    return narrow(torch.from_numpy(np.ascontiguousarray(y)), dtype)


def evaluate(case):
    raws = [load_raw(s) for s in case["inputs"]]
    op, attrs, out = case["op"], case["attrs"], case["output"]
    if op in ("reshape", "transpose", "view", "concat", "broadcast", "gather", "topk"):
        return layout(case, raws)
    if op == "scatter_add":
        return scatter_add(case, raws)
    if op == "cumsum":
        return cumsum(case, raws)
    if op == "fill":
        return narrow(torch.full(out["shape"], float(np.float32(attrs["value"]))), out["dtype"])
    if op == "cast":
        return cast(case, raws)
    xs = [widen(r, s["dtype"]) for r, s in zip(raws, case["inputs"])]
    if op == "matmul":
        y = matmul(case, raws, xs)
        if y.dtype == torch.int64:  # exact integer result, saturated to the output dtype
            return np.clip(y.numpy(), -(2**31), 2**31 - 1).astype(NP_RAW[out["dtype"]])
        return narrow(y, out["dtype"])
    return narrow(FLOAT_OPS[op](xs, attrs), out["dtype"])


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    for case in cases:
        y = np.ascontiguousarray(evaluate(case))
        want = [int(d) for d in case["output"]["shape"]]
        assert list(y.shape) == want, f"{case['name']}: reference shape {y.shape} != {want}"
        y.astype(NP_RAW[case["output"]["dtype"]]).tofile(case["output"]["path"])


if __name__ == "__main__":
    main()
