# The differential tester's generator: random valid Tensor-level programs (docs/PTO_LANGUAGE.md
# §5-6) over every op, dtype, rank 0-3, broadcast and directive form, deterministic from a seed;
# and the program inputs, drawn per argument role (the argument's name prefix).
import random

import numpy as np

import reference as R
from program import FLOATS, Func, Loop, Op, Program, Value

DIMS = [1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 37, 64, 100, 128, 256, 333, 512, 1000, 1023, 1024]
SCALARS = [0.5, 2.0, -1.5, 0.25, 3.0, -0.75, 1.5, 4.0]
PREDS = ["eq", "ne", "lt", "le", "gt", "ge"]
ROUNDS = ["rne", "trunc", "floor", "ceil", "rna"]
VEC_OPS = {"Binary", "Scalar", "Unary", "Composite", "Select", "Reduce"}
# layout ops the compiler also tiles with the vec_tile in scope (on their result), although the
# verifier does not check the directive's rank for them (see h12-findings)
TILED_LAYOUT = {"transpose", "broadcast", "concat", "view", "reshape", "fill"}
# argument roles by name prefix: x general, p positive, s a (de)quantisation scale, q int8 codes
ROLES = {"x", "p", "s", "q"}


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def op_class(kind):
    if kind in ("add", "sub", "mul", "div", "max", "min", "cmp"):
        return "Binary"
    if kind in ("adds", "subs", "muls", "divs", "maxs", "mins", "cmps"):
        return "Scalar"
    if kind in ("exp", "log", "sqrt", "rsqrt", "reciprocal", "abs", "neg", "relu", "cast"):
        return "Unary"
    if kind in ("reduce_sum", "reduce_max", "reduce_min"):
        return "Reduce"
    if kind == "where":
        return "Select"
    if kind in ("sigmoid", "tanh", "gelu", "silu", "softmax", "rms_norm", "layer_norm",
                "quantize", "dequantize"):
        return "Composite"
    return "Other"


class Gen:
    """One program from one seed. Tracks per value: shape, dtype, whether every element is > 0
    (`pos`) and a rough bound on |x| (`mag`), so log/sqrt/div get positive operands and exp
    does not overflow f16."""

    def __init__(self, seed, max_elems=1 << 16, min_elems=0):
        self.r = random.Random(seed)
        self.max_elems = max_elems
        self.min_elems = min_elems  # of the first argument (larger ones span several tiles)
        self.args, self.ops, self.types, self.info = [], [], {}, {}
        self.count = {}
        self.mode = self.r.choices(["none", "scoped", "per-op", "mixed"], [5, 2, 2, 1])[0]
        self.scope_shape = None  # the shape the vec_tile in scope was made for
        # the vec_tile in scope is not known (a loop body's first iteration follows the scope
        # before the loop, the others the body's last directive): ops then state their own
        self.scope_unknown = False
        self.funcs = []  # helper functions the program calls

    # --- values ---------------------------------------------------------------------------

    def fresh(self, prefix):
        n = self.count.get(prefix, 0)
        self.count[prefix] = n + 1
        return f"{prefix}{n}"

    def arg(self, shape, dtype, role="x"):
        name = self.fresh(role)
        self.args.append(Value(name, tuple(shape), dtype))
        self.types[name] = (tuple(shape), dtype)
        pos = role in ("p", "s")
        mag = {"x": 2.0, "p": 2.0, "s": 0.2, "q": 127.0}[role]
        if dtype == "i8" and role == "x":
            mag = 8.0
        if dtype == "i1":
            pos, mag = False, 1.0
        self.info[name] = {"pos": pos, "mag": mag}
        return name

    def emit(self, kind, operands, attrs=(), declared=None, shape=None, dtype=None, pos=False,
             mag=1.0):
        name = self.fresh("v")
        op = Op(kind, name, list(operands), list(attrs), declared)
        self.directive_for(op, shape)
        self.ops.append(op)
        self.types[name] = (tuple(shape), dtype)
        self.info[name] = {"pos": pos, "mag": min(mag, 1e30)}
        return name

    def shape(self, rank, cap=None):
        cap = cap or self.max_elems
        dims = []
        for _ in range(rank):
            left = cap // max(numel(dims), 1)
            choices = [d for d in DIMS if d <= left]
            dims.append(self.r.choice(choices))
        self.r.shuffle(dims)
        return tuple(dims)

    def rank(self):
        return self.r.choices([0, 1, 2, 3], [1, 5, 10, 4])[0]

    def dtype(self, allow_int=True):
        ds = ["f32", "f16", "bf16"] + (["i8"] if allow_int else [])
        return self.r.choices(ds, [4, 3, 2, 1] if allow_int else [4, 3, 2])[0]

    # --- directives -----------------------------------------------------------------------

    def tile_sizes(self, shape, dtype):
        """vec_tile sizes for `shape` that keep the documented tile rules (docs/PASSES.md, "Tile
        level"): consecutive rows (a leading size above 1 needs every later leading dim whole),
        rows a multiple of 32 B or the whole last dim, at most 16 KiB of f32 per tile."""
        n = len(shape)
        if n == 0:
            return []
        sizes = [1] * n
        last = shape[-1]
        sizes[-1] = self.r.choice([last, last] + [m for m in (32, 64, 128, 256, 512) if m < last])
        budget = 4096
        if sizes[-1] > budget:
            sizes[-1] = budget
        if n >= 2:
            j = self.r.randrange(n - 1)  # dims before j are 1, after j whole
            for i in range(j + 1, n - 1):
                sizes[i] = shape[i]
            room = budget // max(numel(sizes), 1)
            if room < 1:  # the whole later leading dims do not fit: tile rows one by one
                sizes = [1] * (n - 1) + [sizes[-1]]
                room = budget // sizes[-1]
                j = n - 2
            opts = [d for d in (shape[j], 1, 2, 4, 7, 16, shape[j] // 2) if 1 <= d <= shape[j]]
            sizes[j] = min(self.r.choice(opts), max(room, 1))
        return sizes

    def transpose_sizes(self, shape):
        """vec_tile sizes for a transpose's result: the 32 B row rule holds on both sides (the
        result's last two sizes are the source's rows and columns), leading sizes 1."""
        def pick(d):
            return self.r.choice([d, d] + [m for m in (32, 64, 128) if m < d])

        sizes = [1] * len(shape)
        sizes[-1], sizes[-2] = pick(shape[-1]), pick(shape[-2])
        while numel(sizes) > 4096:
            i = -1 if sizes[-1] >= sizes[-2] else -2
            sizes[i] = max(32, sizes[i] // 2 // 32 * 32)
        return sizes

    def cube_sizes(self):
        out = []
        for _ in range(3):
            l0 = self.r.choice([16, 32, 64])
            out.append([l0, l0 * self.r.choice([1, 2])])
        return out

    def sizes_for(self, op, tiled, dtype):
        if op.kind == "transpose" and len(tiled) >= 2:
            return self.transpose_sizes(tiled)
        return self.tile_sizes(tiled, dtype)

    def directive_for(self, op, shape):
        cls = op_class(op.kind)
        if self.mode == "none":
            return
        per_op = self.mode == "per-op" or (self.mode == "mixed" and self.r.random() < 0.5)
        if op.kind == "matmul":
            if per_op and self.r.random() < 0.6:
                op.attrs.append(("cube_tile", "[" + ", ".join(
                    str(x) for pair in self.cube_sizes() for x in pair) + "]"))
            elif not per_op and self.r.random() < 0.6:
                self.ops.append(Op("cube_tile", sizes=self.cube_sizes()))
            return
        if cls not in VEC_OPS and op.kind not in TILED_LAYOUT:
            return
        tiled = self.types[op.operands[0]][0] if cls == "Reduce" else shape
        dtype = self.types[op.operands[0]][1] if op.operands else "f32"
        if per_op:
            # an override, always when the scoped sizes were made for another shape (sizes that
            # suit one shape can break the 32 B row rule of another)
            if self.r.random() < 0.6 or self.scope_unknown or (
                    self.scope_shape is not None and self.scope_shape != tuple(tiled)):
                sizes = self.sizes_for(op, tiled, dtype)
                op.attrs.append(("vec_tile", "[" + ", ".join(str(s) for s in sizes) + "]"))
            return
        if op.kind == "transpose" and len(tiled) >= 2:
            # its own sizes (both sides keep the 32 B rule); the scope is restated after it
            self.ops.append(Op("vec_tile", sizes=self.transpose_sizes(tiled)))
            self.scope_shape = None
            self.scope_unknown = False
        elif self.scope_shape != tuple(tiled) or self.scope_unknown or self.r.random() < 0.3:
            self.ops.append(Op("vec_tile", sizes=self.tile_sizes(tiled, dtype)))
            self.scope_shape = tuple(tiled)
            self.scope_unknown = False

    # --- ops ------------------------------------------------------------------------------

    def operand_like(self, cur, role="x", bcast=True):
        """A new argument of cur's dtype whose shape broadcasts with cur's (cur's own, some
        dims set to 1, or a trailing suffix)."""
        shape, dtype = self.types[cur]
        s = list(shape)
        form = self.r.choice(["same", "same", "ones", "suffix"]) if bcast and s else "same"
        if form == "ones":
            s = [1 if self.r.random() < 0.5 else d for d in s]
        elif form == "suffix":
            s = s[self.r.randint(0, len(s)):]
        return self.arg(tuple(s), dtype, role)

    def positive(self, cur):
        """cur itself if positive, else |cur| + 0.5 (two ops)."""
        if self.info[cur]["pos"]:
            return cur
        shape, dtype = self.types[cur]
        a = self.emit("abs", [cur], shape=shape, dtype=dtype, mag=self.info[cur]["mag"])
        return self.emit("adds", [a], [("scalar", "0.5")], shape=shape, dtype=dtype, pos=True,
                         mag=self.info[cur]["mag"] + 0.5)

    def step(self, cur):
        shape, dtype = self.types[cur]
        rank = len(shape)
        info = self.info[cur]
        isf = dtype in FLOATS
        kinds = []

        def add(kind, w):
            kinds.append((kind, w))

        if dtype != "i1":
            add("binary", 6)
            add("scalar", 4)
            add("absnegrelu", 2)
            add("cmp_where", 2)
            add("cast", 3)
            if rank >= 1:
                add("reduce", 4)
        else:
            add("where", 5)
            add("cast", 3)
        if isf:
            add("unary", 4)
            add("act", 3)
            add("quantize", 1)
            if rank >= 1:
                add("softmax", 2)
                add("norm", 3)
        if dtype in ("i8", "i32"):
            add("dequantize", 2)
        if rank in (2, 3) and dtype in ("f32", "f16", "bf16", "i8"):
            add("matmul", 3)
        if rank >= 1 and dtype != "i1":
            add("layout", 3)
        kind = self.r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        return getattr(self, "op_" + kind)(cur)

    def op_binary(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["add", "sub", "mul", "div", "max", "min"])
        if kind == "div":
            other = self.operand_like(cur, "p")
        elif self.r.random() < 0.2 and self.types[cur][0] and 1 in shape:
            # cur is the broadcast operand: the other one is the full shape
            full = tuple(d if d != 1 else self.r.choice([3, 17, 37]) for d in shape)
            if numel(full) <= self.max_elems:
                other = self.arg(full, dtype)
            else:
                other = self.operand_like(cur)
        else:
            other = self.operand_like(cur)
        a, b = (cur, other) if self.r.random() < 0.8 or kind == "div" else (other, cur)
        out = tuple(np.broadcast_shapes(self.types[a][0], self.types[b][0]))
        ma, mb = self.info[a]["mag"], self.info[b]["mag"]
        mag = {"add": ma + mb, "sub": ma + mb, "mul": ma * mb, "div": ma * 2, "max": max(ma, mb),
               "min": max(ma, mb)}[kind]
        pos = kind in ("max",) and (self.info[a]["pos"] or self.info[b]["pos"])
        pos = pos or (kind in ("add", "mul", "min", "div") and self.info[a]["pos"]
                      and self.info[b]["pos"])
        return self.emit(kind, [a, b], shape=out, dtype=dtype, pos=pos, mag=mag)

    def op_scalar(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["adds", "subs", "muls", "divs", "maxs", "mins"])
        s = self.r.choice(SCALARS)
        info = self.info[cur]
        mag = {"adds": info["mag"] + abs(s), "subs": info["mag"] + abs(s),
               "muls": info["mag"] * abs(s), "divs": info["mag"] / abs(s),
               "maxs": max(info["mag"], abs(s)), "mins": max(info["mag"], abs(s))}[kind]
        pos = (kind == "maxs" and s > 0) or (info["pos"] and (
            (kind in ("adds", "muls", "divs") and s > 0) or (kind == "mins" and s > 0)))
        return self.emit(kind, [cur], [("scalar", repr(float(s)))], shape=shape, dtype=dtype,
                         pos=pos, mag=mag)

    def op_absnegrelu(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["abs", "neg", "relu"])
        return self.emit(kind, [cur], shape=shape, dtype=dtype, mag=self.info[cur]["mag"])

    def op_unary(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["exp", "log", "sqrt", "rsqrt", "reciprocal"])
        mag = self.info[cur]["mag"]
        if kind == "exp":
            if mag > 6:
                cur = self.emit("mins", [cur], [("scalar", "4.0")], shape=shape, dtype=dtype,
                                mag=mag)
                mag = mag  # the lower side stays; exp of it is small
            return self.emit("exp", [cur], shape=shape, dtype=dtype, pos=True,
                             mag=float(np.exp(min(mag, 6.0))))
        x = self.positive(cur)
        m = self.info[x]["mag"]
        out_mag = {"log": max(abs(np.log(max(m, 1e-3))), 3.0), "sqrt": np.sqrt(m) + 1,
                   "rsqrt": 4.0, "reciprocal": 4.0}[kind]
        return self.emit(kind, [x], shape=shape, dtype=dtype, pos=kind != "log", mag=out_mag)

    def op_act(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["sigmoid", "tanh", "gelu", "silu"])
        mag = {"sigmoid": 1.0, "tanh": 1.0}.get(kind, self.info[cur]["mag"])
        return self.emit(kind, [cur], shape=shape, dtype=dtype, pos=kind == "sigmoid", mag=mag)

    def op_cast(self, cur):
        shape, dtype = self.types[cur]
        targets = [d for d in ("f32", "f16", "bf16", "i8") if d != dtype]
        to = self.r.choice(targets)
        attrs = []
        if self.r.random() < 0.3:
            attrs.append(("round", '"' + self.r.choice(ROUNDS) + '"'))
        mag = min(self.info[cur]["mag"], 127.0) if to == "i8" else self.info[cur]["mag"]
        if dtype == "i1":
            mag = 1.0
        return self.emit("cast", [cur], attrs, declared=(shape, to), shape=shape, dtype=to,
                         pos=self.info[cur]["pos"] and to != "i8", mag=mag)

    def op_cmp_where(self, cur):
        shape, dtype = self.types[cur]
        pred = self.r.choice(PREDS)
        if self.r.random() < 0.5:
            c = self.emit("cmps", [cur], [("scalar", repr(self.r.choice([0.0, 0.5, -1.0]))),
                                          ("pred", f'"{pred}"')], shape=shape, dtype="i1")
        else:
            other = self.operand_like(cur)
            out = tuple(np.broadcast_shapes(shape, self.types[other][0]))
            c = self.emit("cmp", [cur, other], [("pred", f'"{pred}"')], shape=out, dtype="i1")
        if self.r.random() < 0.2:
            return c
        return self.op_where(c, value=cur)

    def op_where(self, cond, value=None):
        cshape = self.types[cond][0]
        if value is None:
            dtype = self.dtype()
            value = self.arg(cshape, dtype)
        vshape, dtype = self.types[value]
        other = self.operand_like(value)
        a, b = (value, other) if self.r.random() < 0.5 else (other, value)
        out = tuple(np.broadcast_shapes(cshape, self.types[a][0], self.types[b][0]))
        mag = max(self.info[a]["mag"], self.info[b]["mag"])
        return self.emit("where", [cond, a, b], shape=out, dtype=dtype, mag=mag)

    def op_reduce(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["reduce_sum", "reduce_max", "reduce_min"])
        axis = self.r.randrange(len(shape))
        keep = self.r.random() < 0.5
        written = axis - len(shape) if self.r.random() < 0.2 else axis
        attrs = [("axis", str(written))] + ([("keepdim", None)] if keep else [])
        out = tuple(1 if i == axis else d for i, d in enumerate(shape) if keep or i != axis)
        mag = self.info[cur]["mag"] * (shape[axis] if kind == "reduce_sum" else 1)
        pos = self.info[cur]["pos"]
        return self.emit(kind, [cur], attrs, shape=out, dtype=dtype, pos=pos, mag=mag)

    def op_softmax(self, cur):
        shape, dtype = self.types[cur]
        attrs = []
        if self.r.random() < 0.5:
            attrs.append(("axis", str(self.r.randrange(len(shape)))))
        return self.emit("softmax", [cur], attrs, shape=shape, dtype=dtype, pos=False, mag=1.0)

    def op_norm(self, cur):
        shape, dtype = self.types[cur]
        kind = self.r.choice(["rms_norm", "layer_norm"])
        nw = self.r.randint(0, 1 if kind == "rms_norm" else 2)
        ops = [cur]
        for _ in range(nw):
            wshape = shape[-1:] if self.r.random() < 0.7 else shape
            ops.append(self.arg(wshape, dtype))
        attrs = []
        if self.r.random() < 0.3:
            attrs.append(("eps", self.r.choice(["0.001", "1e-05"])))
        mag = 2.0 * float(np.sqrt(shape[-1])) * 4
        return self.emit(kind, ops, attrs, shape=shape, dtype=dtype, mag=mag)

    def op_quantize(self, cur):
        shape, dtype = self.types[cur]
        mag = self.info[cur]["mag"]
        if mag > 8:
            # bring the values to a few units first, so x / scale does not just saturate
            cur = self.emit("divs", [cur], [("scalar", repr(float(2 ** round(np.log2(mag / 4)))))],
                            shape=shape, dtype=dtype, mag=8.0)
        sshape = self.r.choice([shape, shape[-1:] if shape else shape,
                                tuple(shape[:-1]) + (1,) if shape else shape])
        s = self.arg(sshape, dtype, "s")
        return self.emit("quantize", [cur, s], shape=shape, dtype="i8", mag=127.0)

    def op_dequantize(self, cur):
        shape, dtype = self.types[cur]
        sdt = self.dtype(allow_int=False)
        sshape = self.r.choice([shape, shape[-1:] if shape else shape])
        s = self.arg(sshape, sdt, "s")
        declared = None
        out = "f16"
        if self.r.random() < 0.6:
            out = self.r.choice(["f32", "f16", "bf16"])
            declared = (shape, out)
        mag = self.info[cur]["mag"] * 0.2
        return self.emit("dequantize", [cur, s], declared=declared, shape=shape, dtype=out,
                         mag=mag)

    def op_matmul(self, cur):
        shape, dtype = self.types[cur]
        ta = self.r.random() < 0.2
        tb = self.r.random() < 0.2
        m, k = (shape[-1], shape[-2]) if ta else (shape[-2], shape[-1])
        batch = shape[:-2]
        if m * k * 64 > 1 << 24:
            return self.op_scalar(cur)
        n = self.r.choice([d for d in DIMS if d * k * m * max(numel(batch), 1) <= 1 << 23
                           and numel(batch + (k, d)) <= self.max_elems] or [1])
        bshape = batch + ((n, k) if tb else (k, n))
        b = self.arg(bshape, dtype)
        attrs = ([("transpose_a", None)] if ta else []) + ([("transpose_b", None)] if tb else [])
        declared = None
        out = "i32" if dtype == "i8" else "f32"
        if self.r.random() < 0.4:
            out = self.r.choice(["f32", "f16", "bf16"] + (["i32"] if dtype == "i8" else []))
            declared = (batch + (m, n), out)
        mag = self.info[cur]["mag"] * self.info[b]["mag"] * float(np.sqrt(k))  # typical
        if dtype == "i8":
            mag = 8.0 * 8.0 * k
        return self.emit("matmul", [cur, b], attrs, declared=declared, shape=batch + (m, n),
                         dtype=out, mag=mag)

    def op_layout(self, cur):
        shape, dtype = self.types[cur]
        info = self.info[cur]
        kind = self.r.choice(["reshape", "transpose", "view", "concat", "broadcast", "fill"])
        if kind == "fill":
            # a constant tensor of a broadcast-compatible shape, combined with cur
            fshape = tuple(d if self.r.random() < 0.5 else 1 for d in shape)
            value = self.r.choice(["1.5", "-0.5", "2.0", "0.25"])
            f = self.fresh("v")
            fop = Op("fill", f, [], [("value", value)], (fshape, dtype))
            self.directive_for(fop, fshape)
            self.ops.append(fop)
            self.types[f] = (fshape, dtype)
            self.info[f] = {"pos": not value.startswith("-"), "mag": 2.0}
            kind2 = self.r.choice(["add", "mul", "max", "sub"])
            return self.emit(kind2, [cur, f], shape=shape, dtype=dtype, mag=info["mag"] * 2 + 2)
        if kind == "transpose" and len(shape) >= 2:
            perm = list(range(len(shape)))
            while perm == sorted(perm):
                self.r.shuffle(perm)
            out = tuple(shape[p] for p in perm)
            return self.emit("transpose", [cur], [("perm", str(perm))], shape=out, dtype=dtype,
                             pos=info["pos"], mag=info["mag"])
        if kind == "view":
            sizes = [self.r.randint(1, d) for d in shape]
            offs = [self.r.randint(0, d - s) for d, s in zip(shape, sizes)]
            return self.emit("view", [cur], [("offsets", str(offs)), ("sizes", str(sizes))],
                             shape=tuple(sizes), dtype=dtype, pos=info["pos"], mag=info["mag"])
        if kind == "concat" and numel(shape) * 2 <= self.max_elems:
            axis = self.r.randrange(len(shape))
            oshape = tuple(self.r.choice([1, 3, 17]) if i == axis else d
                           for i, d in enumerate(shape))
            other = self.arg(oshape, dtype)
            operands = [cur, other] if self.r.random() < 0.5 else [other, cur]
            out = tuple(d + oshape[i] if i == axis else d for i, d in enumerate(shape))
            return self.emit("concat", operands, [("axis", str(axis))], shape=out, dtype=dtype,
                             mag=max(info["mag"], 2.0))
        if kind == "broadcast" and numel(shape) * 3 <= self.max_elems and len(shape) < 3:
            out = (3,) + tuple(shape)
            return self.emit("broadcast", [cur], declared=(out, dtype), shape=out, dtype=dtype,
                             pos=info["pos"], mag=info["mag"])
        # reshape: a random factorisation of the element count
        n = numel(shape)
        factors = [f for f in range(2, n + 1) if n % f == 0]
        rank = self.r.randint(1, 3)
        dims = []
        rest = n
        for _ in range(rank - 1):
            fs = [f for f in factors if rest % f == 0 and f < rest] or [1]
            f = self.r.choice(fs)
            dims.append(f)
            rest //= f
        dims.append(rest)
        out = tuple(dims)
        return self.emit("reshape", [cur], declared=(out, dtype), shape=out, dtype=dtype,
                         pos=info["pos"], mag=info["mag"])

    # --- program --------------------------------------------------------------------------

    def program(self):
        r = self.rank()
        dtype = self.dtype()
        shape = self.shape(r)
        while numel(shape) < self.min_elems:
            shape = self.shape(max(r, 2))
        cur = self.arg(shape, dtype)
        n_ops = self.r.randint(1, 6)
        values = []
        while len([o for o in self.ops if o.result]) < n_ops:
            cur = self.step(cur)
            values.append(cur)
        returns = [cur]
        if len(values) > 1 and self.r.random() < 0.15:
            extra = self.r.choice(values[:-1])
            returns.append(extra)
        return Program(self.args, self.ops, returns, self.types)


    # --- loop programs --------------------------------------------------------------------

    # what a loop carries: a running elementwise value, a reduced statistic, a matmul's
    # accumulator over K blocks (split-K), or online softmax's running max and sum
    CARRIED = ["elementwise", "stats", "matmul", "softmax"]
    TRIPS = [1, 2, 3, 4, 5, 7, 8, 13, 16, 64, 65, 71]

    def loop_program(self):
        """A program with one counted loop (docs/PTO_LANGUAGE.md, "Loops and calls") that walks
        blocks of an argument through views affine in the induction variable and carries
        values across iterations: named or not, any lower bound and step, the trip count
        written or bound at run time (`--bind`), a partial last block (`clip`) where the carried
        values reduce over it, ops before and after the loop."""
        r = self.r
        kind = r.choices(self.CARRIED, [4, 3, 3, 2])[0]
        dtype = r.choices(["f32", "f16", "bf16"], [4, 3, 2])[0]
        rows = r.choice([1, 2, 4, 8, 16, 32])
        blk = r.choice([16, 32, 48, 64, 100, 128, 256])
        trips = r.choices(self.TRIPS, [3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1])[0]
        trips = max(1, min(trips, self.max_elems // (rows * blk * 2)))
        lower, step = r.choice([0, 0, 0, 1, 3]), r.choice([1, 1, 1, 2, 3])
        coef_per_trip = r.choice([blk, blk, blk // 2, 2 * blk])  # adjacent, overlapping, gaps
        if coef_per_trip % step:
            step = 1
        coef = coef_per_trip // step
        first = r.choice([0, 0, 5])
        last_iv = lower + (trips - 1) * step
        span = coef * (last_iv - lower) + first + blk  # the columns one run of the loop reads
        # nested: an outer loop "rows" (%o) runs the loop over consecutive spans, the inner
        # loop starting from what the outer one carries (one accumulation over every block)
        outer_trips = r.choice([2, 3, 4]) if r.random() < 0.25 else 0
        outer_trips = min(outer_trips, self.max_elems // (rows * span * 2))
        length = span * max(outer_trips, 1)
        clip = kind != "elementwise" and trips > 1 and r.random() < 0.3
        if clip:
            length -= r.randint(1, blk - 1)
        offset = f"%i * {coef}" + (f" + {first - coef * lower}" if first - coef * lower > 0
                                   else f" - {coef * lower - first}" if coef * lower > first
                                   else "")
        if outer_trips > 1:
            offset = f"%o * {span} + " + offset
        upper = lower + (trips - 1) * step + r.randint(1, step)  # any bound past the last iv
        x = self.arg((rows, length), dtype, r.choice(["x", "x", "p"]))
        pre = self.r.random() < 0.3
        if pre:  # an op on the whole argument first: the loop then reads a computed tensor
            x = self.op_scalar(x)
        body = []
        outer = self.ops
        self.ops = body
        self.scope_unknown = True  # the body's first iteration follows the scope before the loop
        view_attrs = [("offsets", f"[0, {offset}]"), ("sizes", f"[{rows}, {blk}]")]
        if clip:
            view_attrs.append(("clip", None))
        xi = self.emit("view", [x], view_attrs, shape=(rows, blk), dtype=dtype,
                       pos=self.info[x]["pos"], mag=self.info[x]["mag"])
        inits, carried, yields = [], [], []
        total_trips = trips * max(outer_trips, 1)
        if kind == "softmax":
            carried, yields = self.softmax_body(xi, rows, outer, inits)
        else:
            steps = r.randint(0, 2)
            if steps and not clip and r.random() < 0.3:
                c = self.called(xi, steps)
            else:
                c = xi
                for _ in range(steps):
                    c = self.keep_shape_step(c, cut=clip)
            carried, yields = self.accumulate(kind, c, rows, blk, length, offset, clip,
                                              total_trips, outer, inits)
        self.ops = outer
        results = self.copies("r", yields)
        binds = {}
        bound = upper
        if r.random() < 0.2:
            bound = self.fresh("t")
            self.args.append(Value(bound, None, "index"))
            binds[bound] = upper
        name = r.choice([None, "blk", "kv"])
        loop = Op("for", operands=inits, results=results,
                  loop=Loop("i", lower, bound, step, carried, body, yields, name))
        if outer_trips > 1:
            loop = self.nested(loop, outer_trips)
        self.ops.append(loop)
        results = loop.results
        cur = results[0]
        values = [cur]
        for _ in range(r.randint(0, 2)):
            cur = self.step(cur)
            values.append(cur)
        returns = [cur] + ([results[1]] if len(results) > 1 and r.random() < 0.5 else [])
        return Program(self.args, self.ops, returns, self.types, binds, self.funcs)

    def copies(self, prefix, of):
        """Fresh values named `prefix`N with the types and bounds of the values `of`."""
        out = [self.fresh(prefix) for _ in of]
        for new, old in zip(out, of):
            self.types[new] = self.types[old]
            self.info[new] = dict(self.info[old])
        return out

    def nested(self, inner, trips):
        """An outer loop `%o` of `trips` iterations around `inner`, which starts from what the
        outer one carries (initially the inner loop's own initial values)."""
        running = self.copies("b", inner.loop.carried)
        inits, inner.operands = inner.operands, running
        results = self.copies("r", inner.results)
        return Op("for", operands=inits, results=results,
                  loop=Loop("o", 0, trips, 1, running, [inner], list(inner.results),
                            self.r.choice([None, "rows"])))

    def called(self, x, steps):
        """`steps` shape-keeping ops on x written as a helper function @h and called (inlined by
        inline-calls): `%v = call @h(%x)`."""
        hx = self.fresh("h")
        self.types[hx] = self.types[x]
        self.info[hx] = dict(self.info[x])
        caller, self.ops = self.ops, []
        self.scope_unknown = True  # the callee's ops follow the caller's scope at the call
        c = hx
        for _ in range(steps):
            c = self.keep_shape_step(c, cut=True)  # no operand but its argument
        self.funcs.append(Func("h", [Value(hx, *self.types[hx])], self.ops, [c]))
        self.ops = caller
        self.scope_unknown = True  # and its directives apply after the call
        res = self.fresh("v")
        self.types[res] = self.types[c]
        self.info[res] = dict(self.info[c])
        self.ops.append(Op("call", operands=[x], attrs=[("callee", "h")], results=[res]))
        return res

    def keep_shape_step(self, cur, cut=False):
        """An op that keeps cur's shape and dtype (what the carried value adds up); no operand
        of the block's full shape when the block may be `cut` (a clipped tail)."""
        kind = self.r.choice(["scalar", "absnegrelu", "unary", "act"] + ([] if cut else ["binary"]))
        out = getattr(self, "op_" + kind)(cur)
        if self.types[out] != self.types[cur]:  # a broadcast operand widened it: combine back
            return self.op_scalar(cur)
        return out

    def init_value(self, shape, dtype, fill, outer):
        """The loop's initial value, emitted before the loop: a fill or an argument."""
        body, self.ops = self.ops, outer
        if self.r.random() < 0.6:
            name = self.fresh("v")
            op = Op("fill", name, [], [("value", fill)], (shape, dtype))
            self.directive_for(op, shape)
            self.ops.append(op)
            self.types[name] = (shape, dtype)
            self.info[name] = {"pos": False, "mag": 1.0 if fill != "-inf" else 2.0}
        else:
            name = self.arg(shape, dtype)
        self.ops = body
        return name

    def accumulate(self, kind, c, rows, blk, length, offset, clip, trips, outer, inits):
        """The carried value of `kind` from the block's contribution `c`: (iter_args, yields)."""
        r = self.r
        shape, dtype = self.types[c]
        combine = r.choice(["add", "max", "min", "decay"])
        if kind == "stats":
            red = {"add": "reduce_sum", "decay": "reduce_sum", "max": "reduce_max",
                   "min": "reduce_min"}[combine]
            c = self.emit(red, [c], [("axis", "1"), ("keepdim", None)], shape=(rows, 1),
                          dtype=dtype, mag=self.info[c]["mag"] * (blk if red == "reduce_sum"
                                                                  else 1))
        elif kind == "matmul":
            n = r.choice([16, 32, 64, 128])
            w = self.arg((length, n), dtype)
            w_attrs = [("offsets", f"[{offset}, 0]"), ("sizes", f"[{blk}, {n}]")]
            if clip:
                w_attrs.append(("clip", None))
            wi = self.emit("view", [w], w_attrs, shape=(blk, n), dtype=dtype, mag=2.0)
            c = self.emit("matmul", [c, wi], shape=(rows, n), dtype="f32",
                          mag=self.info[c]["mag"] * 2.0 * float(np.sqrt(blk)))
            combine = r.choice(["add", "add", "decay"])
        shape, dtype = self.types[c]
        fill = {"max": "-inf", "min": "1000.0"}.get(combine, "0.0")
        init = self.init_value(shape, dtype, fill, outer)
        inits.append(init)
        acc = self.fresh("a")
        self.types[acc] = (shape, dtype)
        mag_c = self.info[c]["mag"]
        self.info[acc] = {"pos": False, "mag": max(self.info[init]["mag"], mag_c) * (
            trips + 1 if combine == "add" else 2)}
        if combine == "decay":  # acc * 0.5 + c stays within twice c
            half = self.emit("muls", [acc], [("scalar", "0.5")], shape=shape, dtype=dtype,
                             mag=self.info[acc]["mag"])
            out = self.emit("add", [half, c], shape=shape, dtype=dtype,
                            mag=self.info[acc]["mag"] + mag_c)
        else:
            out = self.emit(combine, [acc, c], shape=shape, dtype=dtype,
                            mag=self.info[acc]["mag"] + mag_c)
        return [acc], [out]

    def softmax_body(self, xi, rows, outer, inits):
        """Online softmax's running row max and sum of exponentials over the blocks."""
        shape, dtype = self.types[xi]
        stat = (rows, 1)
        body, self.ops = self.ops, outer
        for fill in ("-inf", "0.0"):
            name = self.fresh("v")
            op = Op("fill", name, [], [("value", fill)], (stat, "f32"))
            self.directive_for(op, stat)
            self.ops.append(op)
            self.types[name] = (stat, "f32")
            self.info[name] = {"pos": fill == "0.0", "mag": 4.0}
            inits.append(name)
        self.ops = body
        m, s = self.fresh("a"), self.fresh("a")
        for v in (m, s):
            self.types[v] = (stat, "f32")
        self.info[m] = {"pos": False, "mag": 4.0}
        self.info[s] = {"pos": True, "mag": 1e6}
        x = xi
        if dtype != "f32":
            x = self.emit("cast", [xi], declared=(shape, "f32"), shape=shape, dtype="f32",
                          mag=self.info[xi]["mag"])
        bm = self.emit("reduce_max", [x], [("axis", "1"), ("keepdim", None)], shape=stat,
                       dtype="f32", mag=4.0)
        mn = self.emit("max", [m, bm], shape=stat, dtype="f32", mag=4.0)
        a = self.emit("exp", [self.emit("sub", [m, mn], shape=stat, dtype="f32", mag=8.0)],
                      shape=stat, dtype="f32", pos=True, mag=1.0)
        e = self.emit("exp", [self.emit("sub", [x, mn], shape=shape, dtype="f32", mag=8.0)],
                      shape=shape, dtype="f32", pos=True, mag=1.0)
        es = self.emit("reduce_sum", [e], [("axis", "1"), ("keepdim", None)], shape=stat,
                       dtype="f32", pos=True, mag=float(shape[1]))
        sn = self.emit("add", [self.emit("mul", [s, a], shape=stat, dtype="f32", pos=True,
                                         mag=1e6), es], shape=stat, dtype="f32", pos=True,
                       mag=1e6)
        return [m, s], [mn, sn]

    # --- attention --------------------------------------------------------------------------

    def attention_program(self):
        """Flash attention as users write it: an online softmax over K/V blocks in a loop (the
        running row max, sum and output as iter_args), one head or several (rank 3), an
        optional additive bias per block, f16 or bf16, default tiles or the samples' kind of
        vec_tiles, any size fuse-cube-vector may or may not turn into cube-vector clusters."""
        r = self.r
        self.mode = "none"  # the directives are the ones below
        dt = r.choice(["f16", "f16", "bf16"])
        heads = r.choice([None, 1, 2, 4, 8])  # None: rank 2
        d = r.choice([32, 64, 128])
        blk = r.choice([64, 128, 256])
        rows = r.choice([16, 32, 64, 128, 256, 512, 1024, 2048])
        budget = 1 << 21  # elements per tensor
        h = heads or 1
        while h * rows * d > budget:
            rows //= 2
        trips = r.choice([1, 2, 3, 4, 5, 8, 16])
        while h * trips * blk * d > budget or rows * trips * blk > budget:
            trips = max(1, trips // 2)
            if trips == 1:
                break
        lead = (heads,) if heads else ()
        q = self.arg(lead + (rows, d), dt)
        k = self.arg(lead + (trips * blk, d), dt)
        v = self.arg(lead + (trips * blk, d), dt)
        bias = self.arg((rows, trips * blk), "f32") if r.random() < 0.3 else None
        tiles = r.random() < 0.6
        ax = len(lead) + 1  # the key axis of the scores
        stat, acc, score = lead + (rows, 1), lead + (rows, d), lead + (rows, blk)
        if tiles:
            self.ops.append(Op("vec_tile", sizes=[1] * len(lead) + [min(rows, 32), d]))
        inits = []
        for shape, fill in ((stat, "-inf"), (stat, "0.0"), (acc, "0.0")):
            name = self.fresh("v")
            self.ops.append(Op("fill", name, [], [("value", fill)], (shape, "f32")))
            self.types[name] = (shape, "f32")
            self.info[name] = {"pos": False, "mag": 4.0}
            inits.append(name)
        outer, body = self.ops, []
        self.ops = body
        m, l, o = self.fresh("a"), self.fresh("a"), self.fresh("a")
        for name, shape in ((m, stat), (l, stat), (o, acc)):
            self.types[name] = (shape, "f32")
            self.info[name] = {"pos": name == l, "mag": 1e4}
        if tiles:
            self.ops.append(Op("vec_tile", sizes=[1] * len(lead) + [min(rows, 16), blk]))
        offs = "[" + "0, " * len(lead) + "%j * " + str(blk) + ", 0]"
        kv_sizes = str(list(lead + (blk, d)))
        kj = self.emit("view", [k], [("offsets", offs), ("sizes", kv_sizes)],
                       shape=lead + (blk, d), dtype=dt, mag=2.0)
        vj = self.emit("view", [v], [("offsets", offs), ("sizes", kv_sizes)],
                       shape=lead + (blk, d), dtype=dt, mag=2.0)
        qk = self.emit("matmul", [q, kj], [("transpose_b", None)], shape=score, dtype="f32",
                       mag=4.0 * d)
        sc = self.emit("muls", [qk], [("scalar", repr(float(1 / np.sqrt(d))))], shape=score,
                       dtype="f32", mag=4.0 * np.sqrt(d))
        if bias is not None:
            bj = self.emit("view", [bias], [("offsets", f"[0, %j * {blk}]"),
                                            ("sizes", f"[{rows}, {blk}]")],
                           shape=(rows, blk), dtype="f32", mag=2.0)
            sc = self.emit("add", [sc, bj], shape=score, dtype="f32", mag=4.0 * np.sqrt(d) + 2)
        bm = self.emit("reduce_max", [sc], [("axis", str(ax)), ("keepdim", None)], shape=stat,
                       dtype="f32", mag=4.0 * np.sqrt(d) + 2)
        mj = self.emit("max", [m, bm], shape=stat, dtype="f32", mag=4.0 * np.sqrt(d) + 2)
        p = self.emit("exp", [self.emit("sub", [sc, mj], shape=score, dtype="f32", mag=100.0)],
                      shape=score, dtype="f32", pos=True, mag=1.0)
        rs = self.emit("reduce_sum", [p], [("axis", str(ax)), ("keepdim", None)], shape=stat,
                       dtype="f32", pos=True, mag=float(blk))
        pc = self.emit("cast", [p], declared=(score, dt), shape=score, dtype=dt, pos=True,
                       mag=1.0)
        pv = self.emit("matmul", [pc, vj], shape=acc, dtype="f32", mag=2.0 * blk)
        if tiles:
            self.ops.append(Op("vec_tile", sizes=[1] * len(lead) + [min(rows, 64), d]))
        a = self.emit("exp", [self.emit("sub", [m, mj], shape=stat, dtype="f32", mag=100.0)],
                      shape=stat, dtype="f32", pos=True, mag=1.0)
        lj = self.emit("add", [self.emit("mul", [l, a], shape=stat, dtype="f32", mag=1e4), rs],
                       shape=stat, dtype="f32", pos=True, mag=1e4)
        oj = self.emit("add", [self.emit("mul", [o, a], shape=acc, dtype="f32", mag=1e4), pv],
                       shape=acc, dtype="f32", mag=1e4)
        self.ops = outer
        results = [self.fresh("r") for _ in range(3)]
        for res, y in zip(results, (mj, lj, oj)):
            self.types[res] = self.types[y]
            self.info[res] = dict(self.info[y])
        self.ops.append(Op("for", operands=inits, results=results,
                           loop=Loop("j", 0, trips, 1, [m, l, o], body, [mj, lj, oj], "kv")))
        div = self.emit("div", [results[2], results[1]], shape=acc, dtype="f32", mag=4.0)
        out = self.emit("cast", [div], declared=(acc, dt), shape=acc, dtype=dt, mag=4.0)
        return Program(self.args, self.ops, [out], self.types)


def generate(seed, max_elems=1 << 16, min_elems=0, family="flat"):
    """The program of `seed`: flat (straight-line ops), loops (one counted loop), mixed (a
    quarter of the seeds loops, chosen from the seed) or attention (flash attention's loop)."""
    g = Gen(seed, max_elems, min_elems)
    if family == "attention":
        return g.attention_program()
    if family == "loops" or (family == "mixed" and random.Random(seed * 7919 + 1).random() < 0.25):
        return g.loop_program()
    return g.program()


# --- inputs -------------------------------------------------------------------------------------

def make_inputs(p, seed):
    """float64 arrays holding dtype values, one per argument, drawn per role."""
    rng = np.random.default_rng(seed)
    out = {}
    for a in p.args:
        if a.dtype == "index":  # a trip count, bound with --bind
            continue
        role = a.name[0]  # x general, p positive, s scale, q int8 codes
        n = a.shape
        if a.dtype == "i1":
            x = rng.integers(0, 2, size=n).astype(np.float64)
        elif a.dtype in ("i8", "i32"):
            hi = 127 if role == "q" else 8
            x = rng.integers(-hi, hi + 1, size=n).astype(np.float64)
        elif role == "p":
            x = rng.uniform(0.5, 2.0, size=n)
        elif role == "s":
            x = rng.uniform(0.05, 0.2, size=n)
        else:
            x = rng.uniform(-2.0, 2.0, size=n)
        if a.dtype in FLOATS:
            x = R.round_to(x, a.dtype)
        out[a.name] = np.asarray(x, dtype=np.float64).reshape(n)
    return out


def save_npy(path, x, dtype):
    """Writes x (float64 holding dtype values) as PTO reads it (bf16: <u2 + .dtype sidecar)."""
    if dtype == "bf16":
        bits = (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype("<u2")
        np.save(path, bits)
        with open(str(path) + ".dtype", "w") as f:
            f.write("bf16\n")
        return
    np_dtype = {"f32": "<f4", "f16": "<f2", "i8": "|i1", "i32": "<i4", "i1": "|b1"}[dtype]
    np.save(path, np.asarray(x).astype(np_dtype))


def load_npy(path):
    a = np.load(path)
    try:
        with open(str(path) + ".dtype") as f:
            true = f.read().strip()
    except OSError:
        true = ""
    if true == "bf16" or (a.dtype == np.uint16 and true == ""):
        bits = a.astype(np.uint32).reshape(-1) << 16
        return bits.view(np.float32).astype(np.float64).reshape(a.shape), "bf16"
    names = {np.float32: "f32", np.float16: "f16", np.int8: "i8", np.int32: "i32",
             np.bool_: "i1"}
    return a.astype(np.float64), names.get(a.dtype.type, str(a.dtype))
