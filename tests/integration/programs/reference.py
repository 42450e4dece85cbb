# Inputs and a PyTorch float64 reference for a small Tensor-level .pto program.
#
#   reference.py PROGRAM.pto DIR [SEED]
#
# writes DIR/in0.npy, DIR/in1.npy, ... (the arguments in order: floats standard normal, i8
# uniform in [-128, 127]; an argument named in a `// POSITIVE %name` line is uniform in
# [0.5, 1.5)) and DIR/golden/<name>.npy for every returned value, named after it.
#
# The reference is independent of PTO Studio: a parser of the one-op-per-line subset of the
# language (docs/PTO_LANGUAGE.md §4-5) and torch ops in float64. A value of dtype f16, bf16,
# i8 or i32 is rounded to it where the program stores it (f32 values stay float64), and each
# output is rounded once to its dtype; `pto diff --golden` then applies the tolerance
# policy of docs/VALIDATE.md per output.
import os
import re
import sys

import numpy as np
import torch

F64 = torch.float64


def parse_type(text):
    m = re.fullmatch(r"tensor<(?:([0-9x]+)x)?(\w+)>", text.strip())
    if not m:
        raise SystemExit(f"cannot parse type {text!r}")
    shape = tuple(int(d) for d in m.group(1).split("x")) if m.group(1) else ()
    return shape, m.group(2)


def split_top(text, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[<(" and 1 or 0
        depth -= ch in "]>)" and 1 or 0
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_attrs(text):
    attrs = {}
    for item in split_top(text):
        if "=" not in item:
            attrs[item] = True
            continue
        k, v = (s.strip() for s in item.split("=", 1))
        if v.startswith("["):
            attrs[k] = [int(x) for x in split_top(v[1:-1])]
        elif v.startswith('"'):
            attrs[k] = v[1:-1]
        elif v in ("true", "false"):
            attrs[k] = v == "true"
        else:
            try:
                attrs[k] = int(v)
            except ValueError:
                attrs[k] = float(v)
    return attrs


def parse(path):
    text = open(path).read()
    positive = set(re.findall(r"//\s*POSITIVE\s+%(\w+)", text))
    body = "\n".join(line.split("//")[0] for line in text.splitlines())
    m = re.search(r"func\s+@\w+\s*\((.*?)\)\s*(?:->[^{]*)?\{(.*)\}", body, re.S)
    args = []
    for a in split_top(m.group(1)):
        name, ty = a.split(":", 1)
        args.append((name.strip()[1:], parse_type(ty)))
    stmts, results = [], []
    for line in m.group(2).splitlines():
        line = line.strip()
        if not line or line.startswith(("vec_tile", "cube_tile")):
            continue
        if line.startswith("return"):
            results = [r.strip()[1:] for r in line[len("return"):].split(",")]
            continue
        sm = re.fullmatch(r"%([\w.]+)\s*=\s*(\w+)\s*(.*)", line)
        if not sm:
            raise SystemExit(f"cannot parse statement {line!r}")
        name, op, rest = sm.groups()
        declared = None
        tm = re.search(r":\s*(tensor<[^>]*>)\s*$", rest)
        if tm:
            declared = parse_type(tm.group(1))
            rest = rest[: tm.start()]
        attrs = {}
        am = re.search(r"\{(.*)\}", rest)
        if am:
            attrs = parse_attrs(am.group(1))
            rest = rest[: am.start()]
        operands = split_top(rest)
        stmts.append((name, op, operands, attrs, declared))
    return args, stmts, results, positive


def rounded(t, dtype):
    if dtype == "f16":
        return t.to(torch.float16).to(F64)
    if dtype == "bf16":
        return t.to(torch.bfloat16).to(F64)
    if dtype in ("i8", "i32"):
        lo, hi = (-128, 127) if dtype == "i8" else (-(2**31), 2**31 - 1)
        return torch.clamp(torch.round(t), lo, hi)
    if dtype == "i1":
        return (t != 0).to(F64)
    return t


def reduce(x, op, axis, keepdim):
    if op == "reduce_sum":
        return x.sum(dim=axis, keepdim=keepdim)
    if op == "reduce_max":
        return x.amax(dim=axis, keepdim=keepdim)
    return x.amin(dim=axis, keepdim=keepdim)


UNARY = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "abs": torch.abs, "neg": torch.neg, "relu": torch.relu,
    "sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": torch.nn.functional.silu,
}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
          "max": torch.maximum, "min": torch.minimum}
PRED = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
        "ge": torch.ge}


def evaluate(op, xs, dts, attrs, declared):
    """(value, dtype) of one op on float64 operands xs of dtypes dts."""
    x, dt = (xs[0], dts[0]) if xs else (None, None)
    scalar = attrs.get("scalar", xs[1] if len(xs) > 1 and isinstance(xs[1], float) else None)
    if op in UNARY:
        return UNARY[op](x), dt
    if op == "gelu":
        return torch.nn.functional.gelu(x, approximate="tanh"), dt
    if op in BINARY:
        if isinstance(xs[1], float):
            return BINARY[op](x, torch.tensor(xs[1], dtype=F64)), dt
        return BINARY[op](x, xs[1]), dt
    if op.endswith("s") and op[:-1] in BINARY:
        return BINARY[op[:-1]](x, torch.tensor(float(scalar), dtype=F64)), dt
    if op == "cmp":
        return PRED[attrs["pred"]](x, xs[1]).to(F64), "i1"
    if op == "cmps":
        return PRED[attrs["pred"]](x, torch.tensor(float(scalar), dtype=F64)).to(F64), "i1"
    if op == "cast":
        return x, declared[1]
    if op.startswith("reduce_"):
        return reduce(x, op, attrs["axis"], attrs.get("keepdim", False)), dt
    if op == "softmax":
        return torch.softmax(x, dim=attrs.get("axis", -1)), dt
    if op == "rms_norm":
        y = x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + attrs.get("eps", 1e-6))
        return (y * xs[1] if len(xs) > 1 else y), dt
    if op == "layer_norm":
        d = x - x.mean(dim=-1, keepdim=True)
        y = d * torch.rsqrt((d * d).mean(dim=-1, keepdim=True) + attrs.get("eps", 1e-5))
        y = y * xs[1] if len(xs) > 1 else y
        return (y + xs[2] if len(xs) > 2 else y), dt
    if op == "matmul":
        a, b = xs
        if attrs.get("transpose_a"):
            a = a.transpose(-1, -2)
        if attrs.get("transpose_b"):
            b = b.transpose(-1, -2)
        out = declared[1] if declared else ("i32" if dt == "i8" else "f32")
        return a @ b, out
    if op == "transpose":
        return x.permute(*attrs["perm"]), dt
    if op == "reshape":
        return x.reshape(declared[0]), dt
    if op == "broadcast":
        return x.expand(declared[0]), dt
    if op == "fill":
        return torch.full(declared[0], float(attrs["value"]), dtype=F64), declared[1]
    if op == "view":
        idx = tuple(slice(o, o + s) for o, s in zip(attrs["offsets"], attrs["sizes"]))
        return x[idx], dt
    if op == "concat":
        return torch.cat(xs, dim=attrs["axis"]), dt
    if op == "where":
        return torch.where(x != 0, xs[1], xs[2]), dts[1]
    if op == "quantize":
        return x / xs[1], "i8"
    if op == "dequantize":
        return x * xs[1], declared[1] if declared else "f16"
    raise SystemExit(f"reference.py: op {op!r} is not modelled")


def draw(rng, shape, dtype, positive):
    if dtype == "i8":
        return rng.integers(-128, 128, shape, dtype=np.int8)
    if positive:
        x = rng.uniform(0.5, 1.5, shape)
    else:
        x = rng.standard_normal(shape)
    return x.astype({"f32": np.float32, "f16": np.float16}.get(dtype, np.float32))


def save(path, t, dtype):
    if dtype == "bf16":
        bits = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
        np.save(path, bits)
        with open(path + ".dtype", "w") as f:
            f.write("bf16")
        return
    kind = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32,
            "i1": np.bool_}[dtype]
    np.save(path, t.numpy().astype(kind))


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: reference.py PROGRAM.pto DIR [SEED]")
    path, out = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    args, stmts, results, positive = parse(path)
    rng = np.random.default_rng(seed)
    env = {}
    for i, (name, (shape, dtype)) in enumerate(args):
        a = draw(rng, shape, dtype, name in positive)
        save(os.path.join(out, f"in{i}.npy"), torch.from_numpy(np.asarray(a, np.float64)), dtype)
        env[name] = (rounded(torch.from_numpy(np.asarray(a, np.float64)), dtype), dtype)
    for name, op, operands, attrs, declared in stmts:
        xs, dts = [], []
        for o in operands:
            if o.startswith("%"):
                v, d = env[o[1:]]
                xs.append(v)
                dts.append(d)
            else:
                xs.append(float(o))
                dts.append(None)
        v, dt = evaluate(op, xs, dts, attrs, declared)
        env[name] = (rounded(v, dt), dt)
    os.makedirs(os.path.join(out, "golden"), exist_ok=True)
    for r in results:
        v, dt = env[r]
        save(os.path.join(out, "golden", f"{r}.npy"), v, dt)
    with open(os.path.join(out, "outputs"), "w") as f:
        f.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main()
