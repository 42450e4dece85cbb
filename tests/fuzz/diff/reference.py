# The differential tester's reference: every op of a Program evaluated in float64 with PyTorch,
# rounded per op to its dtype at the toolchain's rounding points (docs/SIMULATOR_NUMERICS.md:
# f32 compute, one rounding to the result dtype; composites as decompose-composites expands
# them), together with a propagated absolute error bound per element.
#
# A value is (v, e, dtype): v the emulated result (exactly representable in dtype, float64
# array), e >= 0 a bound on |toolchain - v|. e is 0 where the toolchain must reproduce v bit for
# bit (exact inputs, an op correctly rounded in f32); it grows by each op's sensitivity to its
# inputs' error, by one ulp of the dtype where a rounding can land on the other neighbour, by
# 1 ulp of f32 for exp/log (glibc's expf/logf are faithful, not correctly rounded), and by
# gamma_K * sum|x| for sums and dot products of K terms in any order (Higham's bound).
import math

import numpy as np
import torch

from program import FLOATS

U32 = 2.0**-24
_P = {"f32": (23, -126), "f16": (10, -14), "bf16": (7, -126)}
MAX_FINITE = {"f32": float(np.finfo(np.float32).max), "f16": 65504.0,
              "bf16": float.fromhex("0x1.FEp127")}
INT_RANGE = {"i8": (-128, 127), "i32": (-(2**31), 2**31 - 1), "i1": (0, 1)}


class Unsupported(Exception):
    """The program uses something the reference does not model (a generator bug)."""


# --- rounding ---------------------------------------------------------------------------------

def _to_f32(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def _rne(x, dtype):
    """Round float64 values (already f32-representable or not) to dtype, RNE, via PyTorch."""
    x = np.asarray(x, dtype=np.float64)
    t = torch.from_numpy(np.ascontiguousarray(x).reshape(x.shape))
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    if dtype == "f32":
        return t.to(tdt).to(torch.float64).numpy().reshape(x.shape)
    # f64 -> f32 -> dtype: the toolchain holds an f32 and rounds that once.
    return t.to(torch.float32).to(tdt).to(torch.float64).numpy().reshape(x.shape)


def ulp(x, dtype):
    """ulp of |x| in dtype (msprobe's definition); 1 for integers."""
    if dtype not in _P:
        return np.ones_like(np.asarray(x, dtype=np.float64))
    p, emin = _P[dtype]
    ax = np.abs(np.asarray(x, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        ex = np.floor(np.log2(np.where(ax > 0, ax, 1.0)))
    ex = np.where(np.isfinite(ex), ex, emin)
    return np.exp2(np.maximum(ex, emin) - p)


def _next_away(r, dtype):
    """The neighbour of r (a dtype value) one ulp further from zero (toward +inf for 0)."""
    return r + np.sign(np.where(r == 0, 1.0, r)) * ulp_step(r, dtype, away=True)


def ulp_step(r, dtype, away):
    """Distance from r to its neighbour away from / toward zero in dtype."""
    p, emin = _P[dtype]
    ar = np.abs(r)
    with np.errstate(divide="ignore"):
        ex = np.floor(np.log2(np.where(ar > 0, ar, 1.0)))
    ex = np.maximum(np.where(ar > 0, ex, emin), emin)
    step = np.exp2(ex - p)
    if not away:
        # at a power of two the step down is half as large (above the subnormals)
        pow2 = (ar == np.exp2(ex)) & (ex > emin)
        step = np.where(pow2, step / 2, step)
    return step


def round_float(x, dtype, mode="rne"):
    """x (f32 values) rounded to a float dtype with a rounding mode."""
    r = _rne(x, dtype)
    if mode == "rne" or dtype == "f32":
        return r
    with np.errstate(invalid="ignore", over="ignore"):
        fin = np.isfinite(r) & np.isfinite(x)
        sgn = np.sign(np.where(r == 0, x, r))
        toward0 = r - sgn * ulp_step(r, dtype, away=False)
        away = r + np.where(r == 0, np.sign(x), sgn) * ulp_step(r, dtype, away=True)
        if mode == "trunc":
            out = np.where(np.abs(r) > np.abs(x), toward0, r)
        elif mode == "floor":
            out = np.where(r > x, np.where(r > 0, toward0, away), r)
        elif mode == "ceil":
            out = np.where(r < x, np.where(r < 0, toward0, away), r)
        elif mode == "rna":
            nb = np.where(np.abs(r) > np.abs(x), toward0, away)
            tie = np.abs(x - r) == np.abs(x - nb)
            out = np.where(tie & (np.abs(nb) > np.abs(r)), nb, r)
        else:
            raise Unsupported(f"rounding mode {mode}")
        # rounding toward zero never overflows to inf
        if mode in ("trunc", "floor", "ceil"):
            mf = MAX_FINITE[dtype]
            cap = np.isinf(r) & np.isfinite(x)
            if mode == "trunc":
                out = np.where(cap, np.sign(x) * mf, out)
            elif mode == "floor":
                out = np.where(cap & (x > 0), mf, out)
            else:
                out = np.where(cap & (x < 0), -mf, out)
        return np.where(fin, out, r)


def round_int(x, dtype, mode="rne"):
    with np.errstate(invalid="ignore"):
        if mode == "rne":
            y = np.rint(x)
        elif mode == "trunc":
            y = np.trunc(x)
        elif mode == "floor":
            y = np.floor(x)
        elif mode == "ceil":
            y = np.ceil(x)
        elif mode == "rna":
            y = np.sign(x) * np.floor(np.abs(x) + 0.5)
        else:
            raise Unsupported(f"rounding mode {mode}")
        lo, hi = INT_RANGE[dtype]
        y = np.where(np.isnan(y), 0.0, y)
        return np.clip(y, lo, hi)


def round_to(x, dtype, mode="rne"):
    """The precision rule's one rounding of an f32 result to dtype."""
    x = _to_f32(x)
    if dtype in FLOATS:
        return round_float(x, dtype, mode)
    if dtype == "i1":
        with np.errstate(invalid="ignore"):
            return np.where((x != 0) | np.isnan(x), 1.0, 0.0)
    return round_int(x, dtype, mode)


# --- values -----------------------------------------------------------------------------------

class Val:
    def __init__(self, v, e, dtype):
        self.v = np.asarray(v, dtype=np.float64)
        self.e = np.broadcast_to(np.asarray(e, dtype=np.float64), self.v.shape).copy()
        self.e[np.isnan(self.e)] = np.inf
        self.dtype = dtype

    @property
    def shape(self):
        return self.v.shape


def _finish(raw, prop, dtype, inexact=0, mode="rne"):
    """Rounds the f64 result `raw` to dtype (through f32, as the toolchain holds an f32) and
    bounds the error. The toolchain's f32 result lies in [raw - prop - w, raw + prop + w], with
    `prop` the propagated input error and w = `inexact` ulps of f32 for results its f32
    arithmetic does not round correctly (expf/logf are faithful; sums, dot products, rsqrt's
    two roundings); every rounding mode is monotone, so its result lies between the roundings
    of the two ends, and the bound is the larger distance of those from v: 0 when both round
    to v, one ulp of dtype when the interval straddles a rounding boundary."""
    v = round_to(raw, dtype, mode)
    prop = np.asarray(prop, dtype=np.float64)
    if dtype == "i1":
        return Val(v, np.where(prop > 0, 1.0, 0.0), dtype)
    with np.errstate(all="ignore"):
        w = np.asarray(inexact, dtype=np.float64) * ulp(np.abs(raw), "f32")
        lo = round_to(raw - prop - w, dtype, mode)
        hi = round_to(raw + prop + w, dtype, mode)
        e = np.maximum(np.abs(v - lo), np.abs(hi - v))
        # both ends round to v: exact, infinities too (−inf − x is −inf for any x in the
        # interval: online softmax's first block subtracts from −inf)
        e = np.where((lo == v) & (hi == v), 0.0, e)
        exact = (prop == 0) & (w == 0)
        e = np.where(exact, 0.0, e)
        e = np.where(np.isnan(e) & ~exact, np.inf, e)
    return Val(v, e, dtype)


def _t(x):
    x = np.asarray(x, dtype=np.float64)
    return torch.from_numpy(np.ascontiguousarray(x).reshape(x.shape))


def _bshape(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


# elementwise f64 functions through PyTorch
def _exp(x):
    return torch.exp(_t(x)).numpy()


def _log(x):
    with np.errstate(invalid="ignore", divide="ignore"):
        return torch.log(_t(x)).numpy()


def _sqrt(x):
    return torch.sqrt(_t(x)).numpy()


def binary(kind, a, b, dtype=None):
    dtype = dtype or a.dtype
    av, bv, ea, eb = a.v, b.v, a.e, b.e
    with np.errstate(all="ignore"):
        if kind == "add":
            raw, prop = _t(av).add(_t(bv)).numpy(), ea + eb
        elif kind == "sub":
            raw, prop = _t(av).sub(_t(bv)).numpy(), ea + eb
        elif kind == "mul":
            raw = _t(av).mul(_t(bv)).numpy()
            prop = np.abs(av) * eb + np.abs(bv) * ea + ea * eb
        elif kind == "div":
            raw = _t(av).div(_t(bv)).numpy()
            ab = np.abs(bv)
            prop = np.where(ab > eb, (ea * ab + np.abs(av) * eb) / (ab * (ab - eb)), np.inf)
            prop = np.where((ea == 0) & (eb == 0), 0.0, prop)
        elif kind == "max":
            raw, prop = torch.maximum(_t(av), _t(bv)).numpy(), np.maximum(ea, eb)
        elif kind == "min":
            raw, prop = torch.minimum(_t(av), _t(bv)).numpy(), np.maximum(ea, eb)
        else:
            raise Unsupported(kind)
    # the f32 compute of integer operands: exact below 2^24, so the f64 result rounded once
    return _finish(raw, prop, dtype)


_PRED = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}


def compare(pred, a, b):
    with np.errstate(all="ignore"):
        av, bv = np.broadcast_arrays(a.v, b.v)
        ea, eb = np.broadcast_arrays(a.e, b.e)
        res = _PRED[pred](av, bv).astype(np.float64)
        amb = ((ea + eb) > 0) & ~(np.abs(av - bv) > ea + eb)
    return Val(res, np.where(amb, 1.0, 0.0), "i1")


def scalar_op(kind, x, s):
    sv = Val(np.full((), float(_to_f32(s))), 0.0, x.dtype)
    if kind == "cmps":
        raise Unsupported("cmps goes through compare")
    return binary({"adds": "add", "subs": "sub", "muls": "mul", "divs": "div",
                   "maxs": "max", "mins": "min"}[kind], x, sv)


def unary(kind, x):
    v, e = x.v, x.e
    inexact = 0  # f32 ulps the toolchain's f32 result may be off
    with np.errstate(all="ignore"):
        if kind == "exp":
            raw = _exp(v)
            prop = np.where(e > 0, _exp(v) * np.expm1(e), 0.0)
            inexact = 1
        elif kind == "log":
            raw = _log(v)
            prop = np.where(v > e, -np.log1p(-e / np.where(v > 0, v, 1.0)), np.inf)
            prop = np.where(e == 0, 0.0, prop)
            inexact = 1
        elif kind == "sqrt":
            raw = _sqrt(v)
            prop = np.where(v >= e, _sqrt(v) - _sqrt(np.maximum(v - e, 0)), np.inf)
            prop = np.where(e == 0, 0.0, prop)
        elif kind == "rsqrt":
            s = _to_f32(_sqrt(v))
            raw = 1.0 / s
            prop = np.where(v > e, 1.0 / _sqrt(np.maximum(v - e, 1e-300)) - 1.0 / _sqrt(v),
                            np.inf)
            prop = np.where(e == 0, 0.0, prop)
            # two f32 roundings: sqrt, then 1/x (the second in _finish); with inexact
            # inputs the first one moves the result by up to two more ulps
            inexact = np.where(e > 0, 2, 0)
        elif kind == "reciprocal":
            raw = 1.0 / v
            av = np.abs(v)
            prop = np.where(av > e, e / (av * (av - e)), np.inf)
            prop = np.where(e == 0, 0.0, prop)
        elif kind == "abs":
            raw, prop = np.abs(v), e
        elif kind == "neg":
            raw, prop = -v, e
        elif kind == "relu":
            raw, prop = np.where(v > 0, v, np.where(np.isnan(v), v, v * 0.0)), e
            raw = np.where(v < 0, 0.0, raw)
        else:
            raise Unsupported(kind)
    return _finish(raw, prop, x.dtype, inexact=inexact)


def cast(x, dtype, mode="rne"):
    v = _to_f32(x.v)  # values are widened exactly to f32 (i32 beyond 2^24 rounds)
    if dtype == "i1":  # any non-zero value is 1: undecided where the interval holds 0
        with np.errstate(invalid="ignore"):
            amb = (x.e > 0) & ~(np.abs(v) > x.e)
        return Val(round_to(v, "i1"), np.where(amb, 1.0, 0.0), "i1")
    return _finish(v, x.e, dtype, mode=mode)


def reduce(kind, x, axis, keepdim, dtype=None):
    dtype = dtype or x.dtype
    v, e = x.v, x.e
    k = v.shape[axis]
    with np.errstate(all="ignore"):
        if kind == "reduce_sum":
            raw = torch.sum(_t(v), dim=axis, keepdim=True).numpy()
            mass = np.sum(np.abs(v) + e, axis=axis, keepdims=True)
            exact_ints = dtype not in FLOATS and np.all(mass < 2**24)
            gamma = 0.0 if exact_ints else (k - 1) * U32 / (1 - (k - 1) * U32) + k * 2.0**-52
            prop = np.sum(e, axis=axis, keepdims=True) + gamma * mass
            inexact = 1 if k > 1 and not exact_ints else 0
        elif kind in ("reduce_max", "reduce_min"):
            f = torch.amax if kind == "reduce_max" else torch.amin
            raw = f(_t(v), dim=axis, keepdim=True).numpy()
            raw = np.where(np.any(np.isnan(v), axis=axis, keepdims=True), np.nan, raw)
            prop = np.max(e, axis=axis, keepdims=True)
            inexact = 0
        else:
            raise Unsupported(kind)
    if not keepdim:
        raw, prop = np.squeeze(raw, axis=axis), np.squeeze(prop, axis=axis)
    return _finish(raw, prop, dtype, inexact=inexact)


def matmul(a, b, ta, tb, dtype):
    av, bv, ea, eb = a.v, b.v, a.e, b.e
    if ta:
        av, ea = np.swapaxes(av, -1, -2), np.swapaxes(ea, -1, -2)
    if tb:
        bv, eb = np.swapaxes(bv, -1, -2), np.swapaxes(eb, -1, -2)
    k = av.shape[-1]
    with np.errstate(all="ignore"):
        raw = torch.matmul(_t(av), _t(bv)).numpy()
        absprod = np.abs(av) @ np.abs(bv)
        prop = np.abs(av) @ eb + ea @ np.abs(bv) + ea @ eb
        if a.dtype == "i8":
            # exact int32 accumulation (wrapping; |a|,|b| <= 128 needs k > 131072 to wrap)
            gamma = 0.0
        else:
            gamma = k * U32 / (1 - k * U32) + k * 2.0**-52
        prop = prop + gamma * (absprod + np.abs(av) @ eb + ea @ np.abs(bv))
    if dtype == "i32":
        return Val(np.clip(raw, -(2**31), 2**31 - 1), np.where(prop > 0, np.ceil(prop) + 1, 0),
                   "i32")
    # i8: the exact i32 accumulator converted to the float result on the FIX pipe (RNE)
    return _finish(raw, prop, dtype, inexact=1 if a.dtype != "i8" and k > 1 else 0)


def where(c, a, b):
    with np.errstate(all="ignore"):
        shape = _bshape(c.shape, a.shape, b.shape)
        cv, ce = np.broadcast_to(c.v, shape), np.broadcast_to(c.e, shape)
        av, ea = np.broadcast_to(a.v, shape), np.broadcast_to(a.e, shape)
        bv, eb = np.broadcast_to(b.v, shape), np.broadcast_to(b.e, shape)
        v = np.where(cv != 0, av, bv)
        e = np.where(ce > 0, np.abs(av - bv) + np.maximum(ea, eb), np.where(cv != 0, ea, eb))
    return Val(v, e, a.dtype)


# --- layout -----------------------------------------------------------------------------------

def layout(fn, *xs, dtype=None):
    return Val(fn(*[x.v for x in xs]), fn(*[x.e for x in xs]), dtype or xs[0].dtype)


# --- composites (as compiler/passes/DecomposeComposites.cpp expands them) ---------------------

def _f32(x):
    return cast(x, "f32") if x.dtype != "f32" else x


def _sigmoid(xf):
    return unary("reciprocal", scalar_op("adds", unary("exp", unary("neg", xf)), 1.0))


def composite(kind, ops, attrs):
    x = _f32(ops[0])
    dtype = ops[0].dtype
    if kind == "sigmoid":
        y = _sigmoid(x)
    elif kind == "tanh":
        s = _sigmoid(scalar_op("muls", x, 2.0))
        y = scalar_op("adds", scalar_op("muls", s, 2.0), -1.0)
    elif kind == "gelu":
        p = scalar_op("adds", scalar_op("muls", binary("mul", x, x), 0.044715), 1.0)
        t = scalar_op("muls", binary("mul", x, p), -2.0 * math.sqrt(2.0 / math.pi))
        d = scalar_op("adds", unary("exp", t), 1.0)
        y = binary("div", x, d)
    elif kind == "silu":
        d = scalar_op("adds", unary("exp", unary("neg", x)), 1.0)
        y = binary("div", x, d)
    elif kind == "softmax":
        axis = int(attrs.get("axis", -1)) % x.v.ndim
        m = reduce("reduce_max", x, axis, True)
        ex = unary("exp", binary("sub", x, m))
        s = reduce("reduce_sum", ex, axis, True)
        y = binary("div", ex, s)
    elif kind == "rms_norm":
        n = x.v.shape[-1]
        ms = scalar_op("divs", reduce("reduce_sum", binary("mul", x, x), -1 % x.v.ndim, True), n)
        r = unary("rsqrt", scalar_op("adds", ms, float(attrs.get("eps", 1e-6))))
        y = binary("mul", x, r)
        if len(ops) == 2:
            y = binary("mul", y, _f32(ops[1]))
    elif kind == "layer_norm":
        n = x.v.shape[-1]
        ax = x.v.ndim - 1
        mean = scalar_op("divs", reduce("reduce_sum", x, ax, True), n)
        d = binary("sub", x, mean)
        var = scalar_op("divs", reduce("reduce_sum", binary("mul", d, d), ax, True), n)
        r = unary("rsqrt", scalar_op("adds", var, float(attrs.get("eps", 1e-5))))
        y = binary("mul", d, r)
        if len(ops) >= 2:
            y = binary("mul", y, _f32(ops[1]))
        if len(ops) == 3:
            y = binary("add", y, _f32(ops[2]))
    elif kind == "quantize":
        y = binary("div", x, _f32(ops[1]))
        return cast(y, "i8", "rne")
    elif kind == "dequantize":
        y = binary("mul", x, _f32(ops[1]))
        return cast(y, attrs["dtype"])
    else:
        raise Unsupported(kind)
    return cast(y, dtype) if dtype != "f32" else y
