#!/usr/bin/env python3
"""Random loop programs through `pto run`, checked against PyTorch (float64).

Usage: loops_vs_torch.py PTO [--cases N] [--seed S] [--keep DIR]

Each case is a `for` loop over column (or row) blocks of an input with two carried values: an
elementwise accumulator the size of a block and a per-row statistic. Shapes, dtypes, trip
counts (0, 1, odd, and >= 64 so the loop window compiles a few iterations and stretches them),
the body's ops, views along either axis, trip counts bound at run time (`--bind t=N`) and a
clipped tail block are drawn from the seed. The program text is the user's way in: nothing is
known to the tester but the language. Exits 1 listing every failing case with its program.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch

F32 = "f32"


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class Case:
    """One random loop program and the PyTorch evaluation of it."""

    def __init__(self, seed):
        r = random.Random(seed)
        self.seed = seed
        self.dtype = r.choice(["f32", "f16"])
        self.rows = r.choice([1, 3, 8, 16, 17, 33, 64, 128, 200])
        self.width = r.choice([8, 16, 37, 64, 100, 128, 256, 512, 1000])
        self.trips = r.choice([0, 1, 2, 3, 5, 7, 9, 16, 64, 70, 100])
        if self.trips >= 64:  # the loop window: keep the program small
            self.rows, self.width = r.choice([8, 16]), r.choice([16, 32, 64])
        self.bound = r.random() < 0.3
        # A clipped tail needs a bound trip count, columns, and a body that only reduces rows.
        self.clip = self.bound and self.trips > 0 and r.random() < 0.5
        self.by_rows = not self.clip and r.random() < 0.3
        self.tail = r.randint(1, self.width - 1) if self.clip and self.width > 1 else 0
        if self.clip:
            self.dtype = F32  # a cast declares its shape, which the tail block does not have
        self.elementwise = not self.clip
        # A cube body: the block times a weight slice, accumulated (f16 operands, f32 result).
        self.matmul = self.elementwise and r.random() < 0.25
        self.cols = r.choice([16, 64, 128, 256]) if self.matmul else None
        if self.matmul:
            self.dtype = "f16"
        self.pre = r.choice(["x", "mul w", "exp half", "relu", "abs", "muls"])
        self.fold = r.choice(["add", "max", "decay", "sub"])
        self.reduce = r.choice(["reduce_sum", "reduce_max", "reduce_min"])
        self.merge = r.choice(["add", "max", "min", "decay"])
        self.scale = r.choice([0.5, 2.0, -1.5, 0.25])

    # --- the program -----------------------------------------------------------------------
    def x_shape(self):
        n = max(self.trips, 1)
        if self.by_rows:
            return (n * self.rows, self.width)
        return (self.rows, n * self.width - self.tail)

    def block(self):
        return (self.rows, self.width)

    def acc_shape(self):
        return (self.rows, self.cols) if self.matmul else self.block()

    def program(self):
        R, W = self.block()
        trip = "%t" if self.bound else str(self.trips)
        args = [f"%x: {ttype(self.x_shape(), self.dtype)}"]
        if self.matmul:
            args.append(f"%w: {ttype((W, self.cols), 'f16')}")
        elif self.elementwise:
            args.append(f"%w: {ttype((R, W), F32)}")
        if self.bound:
            args.append("%t: index")
        results = ([ttype(self.acc_shape(), F32)] if self.elementwise else []) + \
            [ttype((R, 1), F32)]
        offsets = f"[%i * {R}, 0]" if self.by_rows else f"[0, %i * {W}]"
        clip = ", clip" if self.clip else ""
        view = f"view %x {{offsets = {offsets}, sizes = [{R}, {W}]{clip}}}"
        lines = [f"// loops_vs_torch case {self.seed}",
                 f"func @f({', '.join(args)}) -> ({', '.join(results)}) {{"]
        carried = []
        if self.elementwise:
            lines.append(f"  %a0 = fill {{value = 0.0}} : {ttype(self.acc_shape(), F32)}")
            carried.append("%a = %a0")
        init = {"reduce_sum": "0.0", "reduce_max": "-inf", "reduce_min": "inf"}[self.reduce]
        if self.merge == "decay":
            init = "0.0"
        lines.append(f"  %s0 = fill {{value = {init}}} : {ttype((R, 1), F32)}")
        carried.append("%s = %s0")
        n = len(carried)
        lines.append(f"  %r:{n} = for \"blk\" %i = 0 to {trip} step 1 "
                     f"iter_args({', '.join(carried)}) {{")
        if self.dtype == F32:
            lines.append(f"    %b = {view}")
        else:
            lines.append(f"    %v = {view}")
            lines.append(f"    %b = cast %v : {ttype((R, W), F32)}")
        if self.matmul:
            pre = "(matmul %v, %w)"
            fold = {"add": f"add %a, {pre}", "max": f"max %a, {pre}",
                    "decay": f"add (muls %a, 0.5), {pre}", "sub": f"sub %a, {pre}"}[self.fold]
            lines.append(f"    %a1 = {fold}")
        yields = ["%a1"] if self.matmul else []
        if self.elementwise and not self.matmul:
            pre = {"x": "%b", "mul w": "(mul %b, %w)", "exp half": "(exp (muls %b, 0.5))",
                   "relu": "(relu %b)", "abs": "(abs %b)",
                   "muls": f"(muls %b, {self.scale})"}[self.pre]
            fold = {"add": f"add %a, {pre}", "max": f"max %a, {pre}",
                    "decay": f"add (muls %a, 0.5), {pre}", "sub": f"sub %a, {pre}"}[self.fold]
            lines.append(f"    %a1 = {fold}")
            yields.append("%a1")
        red = f"({self.reduce} %b {{axis = 1, keepdim}})"
        merge = {"add": f"add %s, {red}", "max": f"max %s, {red}", "min": f"min %s, {red}",
                 "decay": f"add (muls %s, 0.75), {red}"}[self.merge]
        lines.append(f"    %s1 = {merge}")
        yields.append("%s1")
        lines.append(f"    yield {', '.join(yields)}")
        lines.append("  }")
        rets = [f"%r#{k}" for k in range(n)]
        lines.append(f"  return {', '.join(rets)}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    # --- the reference ---------------------------------------------------------------------
    def inputs(self):
        g = np.random.default_rng(self.seed)
        x = g.uniform(-1, 1, self.x_shape()).astype(np.float16 if self.dtype == "f16"
                                                    else np.float32)
        out = [x]
        if self.matmul:
            out.append(g.uniform(-1, 1, (self.width, self.cols)).astype(np.float16))
        elif self.elementwise:
            out.append(g.uniform(-1, 1, self.block()).astype(np.float32))
        return out

    def reference(self, inputs):
        x = torch.from_numpy(inputs[0].astype(np.float64))
        R, W = self.block()
        a = torch.zeros(self.acc_shape(), dtype=torch.float64)
        init = {"reduce_sum": 0.0, "reduce_max": -np.inf, "reduce_min": np.inf}[self.reduce]
        s = torch.full((R, 1), 0.0 if self.merge == "decay" else init, dtype=torch.float64)
        for i in range(self.trips):
            b = x[i * R:(i + 1) * R, :] if self.by_rows else x[:, i * W:(i + 1) * W]
            if self.elementwise:
                w = torch.from_numpy(inputs[1].astype(np.float64))
                pre = {"x": lambda: b, "mul w": lambda: b * w, "matmul": lambda: b @ w,
                       "exp half": lambda: torch.exp(b * 0.5), "relu": lambda: torch.relu(b),
                       "abs": lambda: b.abs(), "muls": lambda: b * self.scale}[
                           "matmul" if self.matmul else self.pre]()
                a = {"add": lambda: a + pre, "max": lambda: torch.maximum(a, pre),
                     "decay": lambda: a * 0.5 + pre, "sub": lambda: a - pre}[self.fold]()
            red = {"reduce_sum": lambda: b.sum(1, keepdim=True),
                   "reduce_max": lambda: b.amax(1, keepdim=True),
                   "reduce_min": lambda: b.amin(1, keepdim=True)}[self.reduce]()
            s = {"add": lambda: s + red, "max": lambda: torch.maximum(s, red),
                 "min": lambda: torch.minimum(s, red), "decay": lambda: s * 0.75 + red}[
                     self.merge]()
        return ([a] if self.elementwise else []) + [s]

    def tolerance(self):
        # f32 arithmetic over `trips` steps of sums of up to `width` terms of magnitude <= ~2.
        terms = max(self.trips, 1) * self.width
        return 4e-7 * terms + 1e-6


def run_case(pto, case, work):
    prog = os.path.join(work, f"case{case.seed}.pto")
    with open(prog, "w") as f:
        f.write(case.program())
    inputs = case.inputs()
    names = []
    for k, arr in enumerate(inputs):
        names.append(os.path.join(work, f"in{case.seed}_{k}.npy"))
        np.save(names[-1], arr)
    out = os.path.join(work, f"out{case.seed}")
    cmd = [pto, "run", prog, "--inputs", ",".join(names), "--outputs", out, "--trace", "none"]
    if case.bound:
        cmd += ["--bind", f"t={case.trips}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return f"pto exited {r.returncode}: {r.stderr.strip()[-400:]}"
    expected = case.reference(inputs)
    # named as returned (%r#k), whatever the trip count
    files = [f"r#{k}" for k in range(len(expected))]
    for name, ref in zip(files, expected):
        path = os.path.join(out, name + ".npy")
        if not os.path.exists(path):
            return f"no output {name}.npy (have {sorted(os.listdir(out))})"
        got = torch.from_numpy(np.load(path).astype(np.float64))
        if got.shape != ref.shape:
            return f"{name}: shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
        tol = case.tolerance()
        if not torch.allclose(got, ref, rtol=tol, atol=tol, equal_nan=True):
            err = (got - ref).abs().nan_to_num(posinf=1e300).max().item()
            return f"{name}: max abs error {err:.3g} > tolerance {tol:.3g}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pto")
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="pto-loops-")
    os.makedirs(work, exist_ok=True)
    failures, kinds = [], set()
    for seed in range(a.seed, a.seed + a.cases):
        case = Case(seed)
        kinds.update({"bound" if case.bound else "static", "clip" if case.clip else "",
                      "rows" if case.by_rows else "cols", "window" if case.trips >= 64 else "",
                      "zero" if case.trips == 0 else "", case.dtype,
                      "matmul" if case.matmul else ""})
        problem = run_case(a.pto, case, work)
        status = "ok" if problem is None else "FAIL " + problem
        print(f"case {seed}: {case.dtype} block {case.block()} trips {case.trips}"
              f"{' bound' if case.bound else ''}{' clip' if case.clip else ''}"
              f"{' rows' if case.by_rows else ''}{' matmul' if case.matmul else ''}: {status}")
        if problem:
            failures.append((seed, problem, case.program()))
    # The draw must have exercised every kind of loop it is there to test.
    wanted = {"bound", "static", "clip", "rows", "cols", "window", "zero", "f16", "f32", "matmul"}
    missing = wanted - kinds
    if missing:
        failures.append((None, f"the cases drew no {sorted(missing)}: raise --cases", ""))
    for seed, problem, text in failures:
        print(f"\n--- case {seed}: {problem}\n{text}")
    print(f"{a.cases - len([f for f in failures if f[0] is not None])}/{a.cases} cases agree "
          "with PyTorch")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
