# The differential tester's interpreter: runs a Program op by op on the reference (reference.py)
# and infers the value types the printer needs.
import re

import numpy as np

import reference as R
from program import SCALAR_OPS

COMPOSITES = {"sigmoid", "tanh", "gelu", "silu", "softmax", "rms_norm", "layer_norm"}
UNARY = {"exp", "log", "sqrt", "rsqrt", "reciprocal", "abs", "neg", "relu"}
BINARY = {"add", "sub", "mul", "div", "max", "min"}
REDUCE = {"reduce_sum", "reduce_max", "reduce_min"}


def _num(text):
    return float(text.strip('"'))


def _ints(text, ivs=None):
    """A list of integers; with `ivs` (induction variable -> value) each entry may be affine in
    them (`%i * 64 + 3`)."""
    out = []
    for x in text.strip("[]").split(","):
        if not x.strip():
            continue
        if "%" in x:
            expr = re.sub(r"%(\w+)", lambda m: str(ivs[m.group(1)]), x)
            if not re.fullmatch(r"[-+*0-9 ]+", expr):
                raise ValueError(f"bad offset {x!r}")
            out.append(int(eval(expr, {"__builtins__": {}})))  # digits and + - * only
        else:
            out.append(int(x))
    return out


def _str(text):
    return text.strip('"')


def apply_op(op, env, ivs=None):
    """The Val of `op` given the Vals of its operands in `env` (and the values of the enclosing
    loops' induction variables in `ivs`)."""
    xs = [env[o] for o in op.operands]
    a = {k: v for k, v in op.attrs}
    k = op.kind
    if k in BINARY:
        return R.binary(k, xs[0], xs[1])
    if k == "cmp":
        return R.compare(_str(a["pred"]), xs[0], xs[1])
    if k == "cmps":
        s = R.Val(np.full((), float(R._to_f32(_num(a["scalar"])))), 0.0, xs[0].dtype)
        return R.compare(_str(a["pred"]), xs[0], s)
    if k in SCALAR_OPS:
        return R.scalar_op(k, xs[0], _num(a["scalar"]))
    if k in UNARY:
        return R.unary(k, xs[0])
    if k == "cast":
        return R.cast(xs[0], op.declared[1], _str(a.get("round", '"rne"')))
    if k in REDUCE:
        axis = int(a["axis"]) % xs[0].v.ndim
        return R.reduce(k, xs[0], axis, "keepdim" in a)
    if k in COMPOSITES:
        return R.composite(k, xs, a)
    if k == "quantize":
        return R.composite(k, xs, a)
    if k == "dequantize":
        return R.composite(k, xs, {"dtype": op.declared[1] if op.declared else "f16"})
    if k == "where":
        return R.where(*xs)
    if k == "matmul":
        ad = xs[0].dtype
        dt = op.declared[1] if op.declared else ("i32" if ad == "i8" else "f32")
        return R.matmul(xs[0], xs[1], "transpose_a" in a, "transpose_b" in a, dt)
    if k == "reshape":
        shape = op.declared[0]
        return R.layout(lambda x: np.reshape(x, shape), xs[0])
    if k == "transpose":
        perm = _ints(a["perm"])
        return R.layout(lambda x: np.transpose(x, perm), xs[0])
    if k == "view":
        offs, sizes = _ints(a["offsets"], ivs), _ints(a["sizes"])
        if "clip" in a:  # cut where it leaves the tensor (a loop's tail)
            sizes = [min(s, d - o) for o, s, d in zip(offs, sizes, xs[0].v.shape)]
        sl = tuple(slice(o, o + s) for o, s in zip(offs, sizes))
        return R.layout(lambda x: x[sl], xs[0])
    if k == "concat":
        axis = int(a["axis"])
        return R.layout(lambda *ys: np.concatenate(ys, axis=axis), *xs)
    if k == "broadcast":
        shape = op.declared[0]
        return R.layout(lambda x: np.broadcast_to(x, shape).copy(), xs[0])
    if k == "fill":
        shape, dt = op.declared
        v = R.round_to(np.full(shape, _num(a["value"])), dt)
        return R.Val(v, 0.0, dt)
    raise R.Unsupported(k)


def run_ops(ops, env, ivs, seen, funcs):
    """Runs `ops` in `env` (updated in place); `seen` collects every value computed, loop bodies'
    and called functions' too (their last run's)."""
    for op in ops:
        if op.kind in ("vec_tile", "cube_tile"):
            continue
        if op.kind == "for":
            for name, val in zip(op.results, run_loop(op, env, ivs, seen, funcs)):
                env[name] = seen[name] = val
            continue
        if op.kind == "call":
            f = funcs[op.attr("callee")]
            inner = {a.name: env[o] for a, o in zip(f.args, op.operands)}
            run_ops(f.ops, inner, ivs, seen, funcs)
            for name, r in zip(op.results, f.returns):
                env[name] = seen[name] = inner[r]
            continue
        env[op.result] = seen[op.result] = apply_op(op, env, ivs)


def run_loop(op, env, ivs, seen, funcs):
    """The results of a counted loop: its iter_args start as the init operands, each iteration
    sees the previous one's yields."""
    lp = op.loop
    upper = lp.upper if isinstance(lp.upper, int) else ivs["@" + lp.upper]
    carried = [env[i] for i in op.operands]
    for i in range(lp.lower, upper, lp.step):
        inner = dict(env)
        inner.update(zip(lp.carried, carried))
        seen.update(zip(lp.carried, carried))
        run_ops(lp.body, inner, {**ivs, lp.iv: i}, seen, funcs)
        carried = [inner[y] for y in lp.yields]
    return carried


def evaluate(p, inputs):
    """Vals of every value of `p` for `inputs` (name -> float64 array holding dtype values)."""
    env = {a.name: R.Val(inputs[a.name], 0.0, a.dtype) for a in p.args if a.dtype != "index"}
    ivs = {"@" + k: v for k, v in p.binds.items()}
    seen = dict(env)
    run_ops(p.ops, env, ivs, seen, {f.name: f for f in p.funcs})
    return seen


def infer_types(p):
    """Fills p.types by evaluating on small stand-in data of the right shapes (zeros + 1)."""
    inputs = {a.name: np.ones(a.shape) for a in p.args if a.dtype != "index"}
    with np.errstate(all="ignore"):
        env = evaluate(p, inputs)
    p.types = {n: (tuple(v.shape), v.dtype) for n, v in env.items()}
    return p.types
