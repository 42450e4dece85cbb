#!/usr/bin/python3
# Random hand-written Tile-level kernels with a loop through `pto run`, their outputs (the
# arguments they store into) compared with the float64 reference of reference.py within its
# propagated bound; and `pto diff --bisect` of each (no divergence). Two families: vector
# kernels (tload/tstore at offsets affine in the induction variable, tiles carried in iter_args,
# row broadcasts of the carried state) and cube kernels (L1 → L0A/L0B moves, whole or by
# sub-tile offsets, matmul and matmul_acc with the L0C accumulator carried over K blocks, or a
# loop over N blocks; stores from L0C in f32 or f16, and a vector epilogue through a GM
# workspace with casts).
import argparse
import collections
import concurrent.futures as cf
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen  # noqa: E402
import reference as R  # noqa: E402
import runner  # noqa: E402

SCALARS = [0.5, 2.0, -1.5, 0.125, 3.0]
WITH_W = ["add", "sub", "mul", "max", "min"]
UNARY = ["relu", "abs", "neg", "exp"]


def draw_inputs(args, seed, lo=-2.0, hi=2.0, index_rows=None):
    """Every argument drawn uniformly from [lo, hi) and rounded to its dtype (seed + 1); i32
    arguments of an index kernel are row indices in [0, index_rows)."""
    rng = np.random.default_rng(seed + 1)
    out = {}
    for n, d, sh in args:
        if d == "i32" and index_rows is not None:
            out[n] = rng.integers(0, index_rows, size=sh).astype(np.float64)
        else:
            out[n] = R.round_to(rng.uniform(lo, hi, size=sh), d)
    return out


def emit_chain(lines, ops, cur, prefix, indent):
    """Appends `ops` ((kind, scalar or None) each) applied in turn to value `cur`, results named
    prefix0, prefix1, …; returns the last value's name."""
    for j, (kind, sc) in enumerate(ops):
        rhs = f"{kind} {cur}" if sc is None else f"{kind} {cur}, {sc}"
        lines.append(f"{indent}{prefix}{j} = {rhs}")
        cur = f"{prefix}{j}"
    return cur


class Kernel:
    """The program text and what the reference needs: its shapes, ops and accumulators."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.dtype = str(rng.choice(["f32", "f16"]))
        while True:
            self.rows = int(rng.choice([8, 16, 32]))
            self.block = int(rng.choice([64, 128, 256]))
            if self.rows * self.block <= 4096:
                break
        self.trips = int(rng.integers(1, 13))
        self.down = bool(rng.integers(0, 3) == 0)  # blocks of rows, else of columns
        self.chain = []  # (kind, operand): operand "w", "acc", a scalar or None
        used_exp = False
        for _ in range(int(rng.integers(1, 4))):
            pick = rng.integers(0, 4)
            if pick == 0:
                self.chain.append((str(rng.choice(["muls", "adds"])), float(rng.choice(SCALARS))))
            elif pick == 1:
                self.chain.append((str(rng.choice(WITH_W)), "w"))
            elif pick == 2:
                kind = str(rng.choice(UNARY))
                if kind == "exp" and used_exp:
                    kind = "relu"
                used_exp |= kind == "exp"
                self.chain.append((kind, None))
            else:  # the carried state, broadcast along the row
                self.chain.append((str(rng.choice(["add", "sub", "mul", "max"])), "acc"))
        self.reduce = str(rng.choice(["reduce_sum", "reduce_max"]))
        self.acc_op = "add" if self.reduce == "reduce_sum" else "max"
        self.reduce_stored = bool(rng.integers(0, 2))  # reduce the stored tile, else the loaded

    def text(self):
        r, b, d, n = self.rows, self.block, self.dtype, self.trips
        shape = f"{r * n}x{b}" if self.down else f"{r}x{b * n}"
        at = f"[%i * {r}, 0]" if self.down else f"[0, %i * {b}]"
        init = "0.0" if self.acc_op == "add" else "-inf"
        lines = [f"func @kernel(%x: tensor<{shape}x{d}>, %w: tensor<{shape}x{d}>, "
                 f"%y: tensor<{shape}x{d}>, %s: tensor<{r}x1x{d}>) {{",
                 f"  %a0 = fill {{value = {init}}} : tile<{r}x1x{d}, UB>",
                 f'  %r = for "blk" %i = 0 to {n} step 1 iter_args(%acc = %a0) {{',
                 f"    %t = tload %x {{offset = {at}}} : tile<{r}x{b}x{d}, UB>",
                 f"    %u = tload %w {{offset = {at}}} : tile<{r}x{b}x{d}, UB>"]
        cur = "%t"
        for k, (kind, operand) in enumerate(self.chain):
            if operand is None:
                rhs = f"{kind} {cur}"
            elif operand == "w":
                rhs = f"{kind} {cur}, %u"
            elif operand == "acc":
                rhs = f"{kind} {cur}, %acc"
            else:
                rhs = f"{kind} {cur}, {operand}"
            lines.append(f"    %v{k} = {rhs}")
            cur = f"%v{k}"
        lines.append(f"    tstore {cur}, %y {{offset = {at}}}")
        red = cur if self.reduce_stored else "%t"
        lines += [f"    %m = {self.reduce} {red} {{axis = 1, keepdim}}",
                  f"    %acc1 = {self.acc_op} %acc, %m",
                  "    yield %acc1",
                  "  }",
                  "  tstore %r, %s {offset = [0, 0]}",
                  "  return",
                  "}"]
        return "\n".join(lines) + "\n"

    def args(self):
        """(name, dtype, shape) of each argument, in order."""
        shape = (self.rows * self.trips, self.block) if self.down else \
            (self.rows, self.block * self.trips)
        return [(n, self.dtype, sh) for n, sh in
                (("x", shape), ("w", shape), ("y", shape), ("s", (self.rows, 1)))]

    outputs = ("y", "s")

    def inputs(self, seed):
        return draw_inputs(self.args(), seed)

    def reference(self, ins):
        """(y, s) as reference Vals."""
        d, b, r = self.dtype, self.block, self.rows
        acc = R.Val(np.full((self.rows, 1), 0.0 if self.acc_op == "add" else -np.inf), 0.0, d)
        ys, es = [], []
        for i in range(self.trips):
            sl = np.s_[i * r:(i + 1) * r, :] if self.down else np.s_[:, i * b:(i + 1) * b]
            t = R.Val(ins["x"][sl], 0.0, d)
            u = R.Val(ins["w"][sl], 0.0, d)
            cur = t
            for kind, operand in self.chain:
                if operand is None:
                    cur = R.unary(kind, cur)
                elif operand == "w":
                    cur = R.binary(kind, cur, u)
                elif operand == "acc":
                    cur = R.binary(kind, cur, acc)
                else:
                    cur = R.scalar_op(kind, cur, operand)
            ys.append(cur.v)
            es.append(cur.e)
            m = R.reduce(self.reduce, cur if self.reduce_stored else t, 1, True)
            acc = R.binary(self.acc_op, acc, m)
        axis = 0 if self.down else 1
        return {"y": R.Val(np.concatenate(ys, axis), np.concatenate(es, axis), d), "s": acc}


EPILOGUE = [("relu", None), ("abs", None), ("neg", None), ("muls", 0.5), ("adds", -1.5),
            ("muls", 3.0)]


class CubeKernel:
    """A cube kernel: C = A·B (f16, bf16, or i8 into i32) over a loop of K blocks (the L0C accumulator carried through
    matmul_acc, the first block peeled) or of N blocks (A moved to L0A once); each L1 block
    moved to L0 whole or as two sub-tiles at offsets; C stored from L0C into %y (f32 or f16) and,
    optionally, through a GM workspace into UB, 1-2 vector ops and a cast, into %z."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.dtype = str(rng.choice(["f16", "bf16", "i8"]))
        self.m = int(rng.choice([16, 32, 64]))
        self.n = int(rng.choice([16, 32, 64, 128]))
        self.kb = int(rng.choice([16, 32, 64]))
        self.trips = int(rng.integers(1, 9))
        self.over_k = bool(rng.integers(0, 2))  # loop over K blocks, else over N blocks
        self.split = bool(rng.integers(0, 2))  # an L1 block is two L0 steps (tmove offsets)
        self.ydtype = str(rng.choice(["f32", "f16"]))
        self.epilogue = [EPILOGUE[int(i)] for i in rng.choice(len(EPILOGUE),
                                                               int(rng.integers(0, 3)))]
        self.zdtype = str(rng.choice(["f32", "f16"]))
        if self.dtype == "i8":  # exact in an i32 accumulator, stored as i32
            self.ydtype, self.epilogue = "i32", []

    def _shapes(self):
        steps = 2 if self.split else 1
        l1k = self.kb * steps  # K of one L1 block
        k = l1k * self.trips if self.over_k else l1k
        n = self.n if self.over_k else self.n * self.trips
        return l1k, k, n

    def args(self):
        _, k, n = self._shapes()
        out = [("a", self.dtype, (self.m, k)), ("b", self.dtype, (k, n)),
               ("y", self.ydtype, (self.m, n))]
        if self.epilogue:
            out.append(("z", self.zdtype, (self.m, n)))
        return out

    @property
    def outputs(self):
        return ("y", "z") if self.epilogue else ("y",)

    def inputs(self, seed):
        lo, hi = (-128, 128) if self.dtype == "i8" else (-2.0, 2.0)
        return draw_inputs(self.args(), seed, lo, hi)

    def _moves(self, lines, a1, b1, tag, indent):
        """tmoves of L1 tiles a1 (m x l1k) and b1 (l1k x n) into L0: [(a0, b0)] per step."""
        d, m, n, kb = self.dtype, self.m, self.n, self.kb
        pairs = []
        for s in range(2 if self.split else 1):
            at = f" {{offset = [0, {s * kb}]}}" if self.split else ""
            bt = f" {{offset = [{s * kb}, 0]}}" if self.split else ""
            lines.append(f"{indent}%a0{tag}{s} = tmove {a1}{at} : tile<{m}x{kb}x{d}, L0A>")
            lines.append(f"{indent}%b0{tag}{s} = tmove {b1}{bt} : tile<{kb}x{n}x{d}, L0B>")
            pairs.append((f"%a0{tag}{s}", f"%b0{tag}{s}"))
        return pairs

    def _epilogue(self, lines, c, at, indent):
        """Stores L0C tile c through a workspace into UB, the epilogue ops and a cast into %z."""
        m, n = self.m, self.n
        lines += [f"{indent}%ws = gm_tensor : tensor<{m}x{n}xf32>",
                  f"{indent}tstore {c}, %ws {{offset = [0, 0]}}",
                  f"{indent}%e = tload %ws {{offset = [0, 0]}} : tile<{m}x{n}xf32, UB>"]
        cur = emit_chain(lines, self.epilogue, "%e", "%p", indent)
        if self.zdtype != "f32":
            lines.append(f"{indent}%q = cast {cur} : tile<{m}x{n}x{self.zdtype}, UB>")
            cur = "%q"
        lines.append(f"{indent}tstore {cur}, %z {{offset = {at}}}")

    def text(self):
        d, m, n, t = self.dtype, self.m, self.n, self.trips
        l1k, _, _ = self._shapes()
        sig = ", ".join(f"%{nm}: tensor<{sh[0]}x{sh[1]}x{dt}>" for nm, dt, sh in self.args())
        lines = [f"func @cube({sig}) {{"]
        if self.over_k:
            lines += [f"  %a1 = tload %a {{offset = [0, 0]}} : tile<{m}x{l1k}x{d}, L1>",
                      f"  %b1 = tload %b {{offset = [0, 0]}} : tile<{l1k}x{n}x{d}, L1>"]
            pairs = self._moves(lines, "%a1", "%b1", "f", "  ")
            cur = "%c0"
            lines.append(f"  %c0 = matmul {pairs[0][0]}, {pairs[0][1]}")
            for j, (a0, b0) in enumerate(pairs[1:]):
                lines.append(f"  %c0{j} = matmul_acc {cur}, {a0}, {b0}")
                cur = f"%c0{j}"
            lines.append(f'  %r = for "k" %i = 1 to {t} step 1 iter_args(%acc = {cur}) {{')
            lines += [f"    %ai = tload %a {{offset = [0, %i * {l1k}]}} : tile<{m}x{l1k}x{d}, L1>",
                      f"    %bi = tload %b {{offset = [%i * {l1k}, 0]}} : tile<{l1k}x{n}x{d}, L1>"]
            acc = "%acc"
            for j, (a0, b0) in enumerate(self._moves(lines, "%ai", "%bi", "i", "    ")):
                lines.append(f"    %acc{j} = matmul_acc {acc}, {a0}, {b0}")
                acc = f"%acc{j}"
            lines += [f"    yield {acc}", "  }", "  tstore %r, %y {offset = [0, 0]}"]
            if self.epilogue:
                self._epilogue(lines, "%r", "[0, 0]", "  ")
        else:
            lines.append(f"  %a1 = tload %a {{offset = [0, 0]}} : tile<{m}x{l1k}x{d}, L1>")
            a_moves = []
            for s in range(2 if self.split else 1):
                at = f" {{offset = [0, {s * self.kb}]}}" if self.split else ""
                lines.append(f"  %a0{s} = tmove %a1{at} : tile<{m}x{self.kb}x{d}, L0A>")
                a_moves.append(f"%a0{s}")
            lines += [f'  for "n" %i = 0 to {t} step 1 {{',
                      f"    %bi = tload %b {{offset = [0, %i * {n}]}} : tile<{l1k}x{n}x{d}, L1>"]
            cur = None
            for s, a0 in enumerate(a_moves):
                bt = f" {{offset = [{s * self.kb}, 0]}}" if self.split else ""
                lines.append(f"    %b0{s} = tmove %bi{bt} : tile<{self.kb}x{n}x{d}, L0B>")
                rhs = f"matmul {a0}, %b0{s}" if cur is None else f"matmul_acc {cur}, {a0}, %b0{s}"
                lines.append(f"    %c{s} = {rhs}")
                cur = f"%c{s}"
            lines.append(f"    tstore {cur}, %y {{offset = [0, %i * {n}]}}")
            if self.epilogue:
                self._epilogue(lines, cur, f"[0, %i * {n}]", "    ")
            lines += ["    yield", "  }"]
        lines += ["  return", "}"]
        return "\n".join(lines) + "\n"

    def reference(self, ins):
        a = R.Val(ins["a"], 0.0, self.dtype)
        b = R.Val(ins["b"], 0.0, self.dtype)
        c = R.matmul(a, b, False, False, "f32")
        out = {"y": R.matmul(a, b, False, False, self.ydtype)}
        if self.epilogue:
            cur = c
            for kind, sc in self.epilogue:
                cur = R.unary(kind, cur) if sc is None else R.scalar_op(kind, cur, sc)
            out["z"] = R.cast(cur, self.zdtype) if self.zdtype != "f32" else cur
        return out


class IndexKernel:
    """A gather/scatter kernel: per iteration a slice of G row indices is loaded, those rows of
    %x gathered (columns [c, c + C)), 0-2 elementwise ops applied, the result stored into %y and
    added by tscatter_add into the same rows of %acc (duplicates and all, rows in order)."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.dtype = str(rng.choice(["f32", "f16"]))
        self.rows = int(rng.choice([4, 8, 16, 33]))  # rows of %x and %acc
        self.g = int(rng.choice([1, 3, 8, 16]))  # indices per iteration
        self.cols = int(rng.choice([16, 64, 128]))  # gathered columns
        self.col0 = int(rng.choice([0, 16])) if self.cols < 128 else 0
        self.trips = int(rng.integers(1, 7))
        self.chain = [EPILOGUE[int(i)] for i in rng.choice(len(EPILOGUE), int(rng.integers(0, 3)))]

    def _width(self):
        return self.col0 + self.cols + (16 if self.col0 else 0)

    def args(self):
        d, n = self.dtype, self.trips
        return [("x", d, (self.rows, self._width())), ("ix", "i32", (self.g * n,)),
                ("y", d, (self.g * n, self.cols)), ("acc", d, (self.rows, self.cols))]

    outputs = ("y", "acc")

    def inputs(self, seed):
        return draw_inputs(self.args(), seed, index_rows=self.rows)

    def text(self):
        d, g, c, n = self.dtype, self.g, self.cols, self.trips
        sig = ", ".join(f"%{nm}: tensor<{'x'.join(map(str, sh))}x{dt}>"
                        for nm, dt, sh in self.args())
        lines = [f"func @index({sig}) {{",
                 f'  for "g" %i = 0 to {n} step 1 {{',
                 f"    %iv = tload %ix {{offset = [%i * {g}]}} : tile<1x{g}xi32, UB>",
                 f"    %t = gather %x, %iv {{offset = [0, {self.col0}]}} : tile<{g}x{c}x{d}, UB>"]
        cur = emit_chain(lines, self.chain, "%t", "%h", "    ")
        lines += [f"    tstore {cur}, %y {{offset = [%i * {g}, 0]}}",
                  f"    tscatter_add {cur}, %acc, %iv {{offset = [0, 0]}}",
                  "    yield", "  }", "  return", "}"]
        return "\n".join(lines) + "\n"

    def reference(self, ins):
        d, c0, c = self.dtype, self.col0, self.cols
        rows = [int(v) for v in ins["ix"]]
        t = R.Val(ins["x"][rows, c0:c0 + c], 0.0, d)
        for kind, sc in self.chain:
            t = R.unary(kind, t) if sc is None else R.scalar_op(kind, t, sc)
        acc_v = np.array(ins["acc"], dtype=np.float64)
        acc_e = np.zeros_like(acc_v)
        for j, r in enumerate(rows):  # one add per gathered row, in order, rounded each time
            s = R.binary("add", R.Val(acc_v[r], acc_e[r], d), R.Val(t.v[j], t.e[j], d))
            acc_v[r], acc_e[r] = s.v, s.e
        return {"y": t, "acc": R.Val(acc_v, acc_e, d)}


FAMILIES = {"vector": Kernel, "cube": CubeKernel, "index": IndexKernel}


def make_kernel(seed, family):
    if family == "mixed":
        family = ["vector", "cube", "index"][seed % 3]
    return FAMILIES[family](seed)


# --- hostile kernels: a drawn kernel with a few random edits --------------------------------

SPACES = ["UB", "L1", "L0A", "L0B", "L0C"]
DTYPES = ["f32", "f16", "bf16", "i8", "i32"]


def mutate(text, rng):
    """`text` with 1-3 random edits of the kinds a hand-written kernel goes wrong by: a number
    changed (shapes, offsets, bounds, strides), a memory space or dtype swapped, a line dropped
    or repeated, an operand renamed, a trip bound made huge or negative."""
    lines = text.split("\n")
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(1, max(2, len(lines) - 2)))
        line = lines[i]
        kind = int(rng.integers(0, 7))
        if kind == 0:  # a number
            nums = [j for j, c in enumerate(line) if c.isdigit() and (j == 0 or not line[j - 1].isalnum())]
            if nums:
                j = nums[int(rng.integers(0, len(nums)))]
                end = j
                while end < len(line) and line[end].isdigit():
                    end += 1
                new = str(int(rng.choice([0, 1, 3, 7, 15, 17, 31, 33, 100, 4096, 65536, 1 << 31])))
                line = line[:j] + new + line[end:]
        elif kind == 1:
            for sp in SPACES:
                if sp in line:
                    line = line.replace(sp, str(rng.choice(SPACES)), 1)
                    break
        elif kind == 2:
            for dt in DTYPES:
                if "x" + dt in line:
                    line = line.replace("x" + dt, "x" + str(rng.choice(DTYPES)), 1)
                    break
        elif kind == 3:
            line = ""
        elif kind == 4:
            lines.insert(i, line)
        elif kind == 5 and "%" in line:
            j = line.rfind("%")
            line = line[:j] + "%" + str(rng.choice(["acc", "i", "a1", "r", "t", "nope"])) + \
                line[j + 2:]
        elif kind == 6 and " to " in line:
            line = line.replace(" to ", " to " + str(rng.choice(["-5", "100000", "0"])) + " + ", 1)
        lines[i] = line
    return "\n".join(lines)


def check_hostile(seed, pto, timeout, family, edits_seed):
    """A mutated kernel through `pto run`: it runs (and then `pto diff --bisect` finds the
    simulator agreeing with the Tile interpreter), is refused with a located message (exit 2),
    or the simulator reports a fault (exit 1); never a crash, a hang, an unlocated error or a
    divergence."""
    text = mutate(make_kernel(seed, family).text(), np.random.default_rng(edits_seed))
    work = tempfile.mkdtemp(prefix="pto-tileh-")
    try:
        src = os.path.join(work, "kernel.pto")
        with open(src, "w") as f:
            f.write(text)
        cmd = [pto, "run", src, "--trace", "none", "--seed", "1", "--max-instrs", "2000000"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"seed": seed, "class": "hang", "reason": f"no exit within {timeout} s"}
        err = proc.stderr.strip()
        if proc.returncode == 0:
            # Accepted: odd but valid, so the simulator must agree with the Tile interpreter.
            try:
                proc = subprocess.run([pto, "diff", "--bisect", src, "--seed", "1"],
                                      capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return {"seed": seed, "class": "hang", "reason": f"bisect: no exit in {timeout} s"}
            if proc.returncode == 0:
                return {"seed": seed, "class": "pass", "reason": ""}
            return {"seed": seed, "class": "diverged",
                    "reason": f"exit {proc.returncode}: {(proc.stderr + proc.stdout)[-500:]}"
                              f"\n--- kernel ---\n{text}"}
        if proc.returncode == 1:
            return {"seed": seed, "class": "faulted", "reason": err[-300:]}
        if proc.returncode == 2 and "kernel.pto" in err and "error" in err:
            return {"seed": seed, "class": "rejected", "reason": err[-300:]}
        return {"seed": seed, "class": "crash",
                "reason": f"exit {proc.returncode}: {err[-400:]}\n--- kernel ---\n{text}"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check(args):
    """Runs one kernel: {seed, class, reason}."""
    seed, pto, bisect, timeout, fault, family, hostile = args
    if hostile:
        return check_hostile(seed, pto, timeout, family, seed * 7919 + 13)
    k = make_kernel(seed, family)
    work = tempfile.mkdtemp(prefix="pto-tilek-")
    try:
        src = os.path.join(work, "kernel.pto")
        with open(src, "w") as f:
            f.write(k.text())
        ins = k.inputs(seed)
        files = []
        dtypes = {}
        for name, dtype, _ in k.args():
            files.append(os.path.join(work, f"{name}0.npy"))
            gen.save_npy(files[-1], ins[name], dtype)
            dtypes[name] = dtype
        cmd = [pto, "diff", "--bisect", src] if bisect else \
            [pto, "run", src, "--outputs", os.path.join(work, "out"), "--trace", "none",
             "--verify-each"]
        cmd += ["--inputs", ",".join(files)] + (["--fault", fault] if fault else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"seed": seed, "class": "hang", "reason": f"no exit within {timeout} s"}
        tail = (proc.stderr + proc.stdout).strip()[-600:]
        if proc.returncode != 0:
            # pto exits 1 for findings (a stage diverged; the simulator reported a fault such as
            # a hazard), 2 for an input error; anything else is a crash.
            found = "diverged" if bisect else "faulted"
            cls = {1: found, 2: "rejected"}.get(proc.returncode, "crash")
            return {"seed": seed, "class": cls, "reason": tail}
        if bisect:
            return {"seed": seed, "class": "pass", "reason": ""}
        ref = k.reference(ins)
        problems = []
        for name in k.outputs:
            path = os.path.join(work, "out", name + ".npy")
            if not os.path.exists(path):
                problems.append(f"{name}.npy not written")
                continue
            actual, dtype = gen.load_npy(path)
            ok, msg, _ = runner.compare(ref[name], actual)
            if dtype != dtypes[name] or not ok:
                problems.append(f"{name} ({dtype}): {msg}")
        if problems:
            return {"seed": seed, "class": "wrong", "reason": "; ".join(problems)[:600]}
        return {"seed": seed, "class": "pass", "reason": ""}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pto", default=os.environ.get("PTO", "build/dev/cli/pto"))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per program")
    ap.add_argument("--bisect", action="store_true", help="pto diff --bisect of each kernel")
    ap.add_argument("--fault", help="plant this compiler fault (pto --fault) in every kernel: "
                    "the self-check, where a pass is a miss")
    ap.add_argument("--min-caught", type=float, default=0.6,
                    help="with --fault: the share of kernels that must fail (default 0.6)")
    ap.add_argument("--family", choices=["vector", "cube", "index", "mixed"], default="vector",
                    help="vector, cube or gather/scatter kernels, or each by the seed modulo 3")
    ap.add_argument("--hostile", action="store_true",
                    help="edit each kernel at random first: it must run, be refused with a "
                    "located message or fault in the simulator, never crash or hang")
    ap.add_argument("--show", type=int, help="print the kernel of this seed and exit")
    a = ap.parse_args()
    if a.show is not None:
        text = make_kernel(a.show, a.family).text()
        if a.hostile:
            text = mutate(text, np.random.default_rng(a.show * 7919 + 13))
        print(text, end="")
        return 0
    if not os.access(a.pto, os.X_OK):
        print(f"error: pto binary '{a.pto}' not found (build it, or pass --pto)", file=sys.stderr)
        return 2
    work = [(s, a.pto, a.bisect, a.timeout, a.fault, a.family, a.hostile)
            for s in range(a.seed, a.seed + a.count)]
    with cf.ProcessPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(check, work))
    counts = collections.Counter(r["class"] for r in results)
    what = "hostile run of" if a.hostile else "bisect of" if a.bisect else "run of"
    print(f"{what} {a.count} {a.family} Tile-level kernels (seeds {a.seed}..{a.seed + a.count - 1}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    bad = [r for r in results if r["class"] != "pass"]
    if a.hostile:  # refusals and simulator faults are right answers to a broken kernel
        bad = [r for r in results if r["class"] in ("crash", "hang", "diverged")]
    if a.fault:
        # The self-check: the fault must show in most kernels as wrong outputs, a divergence or a
        # simulator fault; a rejected kernel is not a catch, a crash or a hang fails the check.
        caught = sum(counts[c] for c in ("wrong", "diverged", "faulted")) / max(1, a.count)
        print(f"fault {a.fault}: caught in {caught:.0%} (at least {a.min_caught:.0%} wanted)")
        for r in [r for r in results if r["class"] in ("crash", "hang", "rejected")][:10]:
            print(f"  seed {r['seed']}: {r['class']}: {r['reason']}")
        return 0 if caught >= a.min_caught and not counts["hang"] and not counts["crash"] else 1
    for r in bad[:10]:
        print(f"  seed {r['seed']}: {r['class']}: {r['reason']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
