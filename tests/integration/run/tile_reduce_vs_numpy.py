#!/usr/bin/env python3
"""Hand-written Tile-level reductions through `pto run`, checked against NumPy (float64).

Usage: tile_reduce_vs_numpy.py PTO [--keep DIR]

Each case loads a whole tensor of rank 1 to 4 as one tile, reduces it over one axis (every
axis, negative ones too; with and without keepdim; sum, max and min) or takes its cumsum along
the axis, stores the result and,
where the result broadcasts back as a row or a column of the tile's 2-D view, the tile minus
it. One case is the reported kernel: a loop over the leading index of a 2x16x64 tensor that
reduces each 1x16x64 tile over axis 1. The program text is the user's way in: nothing is known
to the tester but the language. Exits 1 listing every failing case with its program.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np


def ttype(kind, shape, space=""):
    dims = "".join(f"{d}x" for d in shape)
    return f"{kind}<{dims}f32{space}>"


def zeros(rank):
    return "[" + ", ".join(["0"] * rank) + "]"


def view2d(shape):
    """The rows x cols view of a tile: leading dims folded into rows."""
    if not shape:
        return 1, 1
    return math.prod(shape[:-1]), shape[-1]


class Case:
    """One reduction of a whole-tensor tile, and its NumPy evaluation."""

    def __init__(self, shape, axis, keepdim, op):
        self.shape, self.axis, self.keepdim, self.op = tuple(shape), axis, keepdim, op
        if op == "cumsum":
            self.reduce = lambda x: np.cumsum(x, axis=axis)
        else:
            ref = getattr(np, {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min"}[op])
            self.reduce = lambda x: ref(x, axis=axis, keepdims=keepdim)
        self.rshape = self.reduce(np.zeros(self.shape)).shape
        # The tile minus the kept-dim result, when that is a row or column broadcast of the view.
        rows, cols = view2d(self.shape)
        rrows, rcols = view2d(self.rshape)
        self.subtract = keepdim and op != "cumsum" and ((rrows == rows and rcols == 1) or
                                     (rrows == 1 and rcols in (cols, 1)))
        self.name = "x".join(map(str, shape)) + f"_a{axis}{'_k' if keepdim else ''}_{op}"

    def program(self):
        n, rn = len(self.shape), len(self.rshape)
        keep = ", keepdim" if self.keepdim else ""
        args = f"%x: {ttype('tensor', self.shape)}, %y: {ttype('tensor', self.rshape)}"
        if self.subtract:
            args += f", %z: {ttype('tensor', self.shape)}"
        lines = [f"func @k({args}) {{",
                 f"  %t = tload %x {{offset = {zeros(n)}}} : {ttype('tile', self.shape, ', UB')}",
                 f"  %u = {self.op} %t {{axis = {self.axis}{keep}}}"]
        lines.append(f"  tstore %u, %y {{offset = {zeros(rn)}}}")
        if self.subtract:
            lines.append(f"  tstore (sub %t, %u), %z {{offset = {zeros(n)}}}")
        return "\n".join(lines + ["  return", "}", ""])

    def expected(self, x):
        y = self.reduce(x)
        return {"y": y, "z": x - y} if self.subtract else {"y": y}


class LoopCase:
    """The reported kernel: per leading index, the column sums of a 1x16x64 tile."""

    name = "loop_2x16x64_a1_k_reduce_sum"
    shape = (2, 16, 64)
    subtract = True

    def program(self):
        return """func @k(%x: tensor<2x16x64xf32>, %y: tensor<2x1x64xf32>, %z: tensor<2x16x64xf32>) {
  for "b" %i = 0 to 2 {
    %t = tload %x {offset = [%i, 0, 0]} : tile<1x16x64xf32, UB>
    %u = reduce_sum %t {axis = 1, keepdim}
    tstore %u, %y {offset = [%i, 0, 0]}
    %v = sub %t, %u
    tstore %v, %z {offset = [%i, 0, 0]}
  }
  return
}
"""

    def expected(self, x):
        s = x.sum(axis=1, keepdims=True)
        return {"y": s, "z": x - s}


def cases():
    out = [LoopCase()]
    shapes = [(256,), (16, 64), (1, 16, 64), (2, 16, 64), (4, 3, 8), (2, 3, 4, 16)]
    for shape in shapes:
        n = len(shape)
        for axis in list(range(n)) + [-1]:
            for keepdim in (True, False):
                if n == 1 and not keepdim:
                    continue  # a rank-0 result: not a tile a tstore takes
                for op in ("reduce_sum", "reduce_max", "reduce_min"):
                    out.append(Case(shape, axis, keepdim, op))
            out.append(Case(shape, axis, False, "cumsum"))
    return out


def run_case(pto, case, work, rng):
    d = os.path.join(work, case.name)
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "k.pto")
    with open(prog, "w") as f:
        f.write(case.program())
    x = rng.uniform(-2, 2, case.shape).astype(np.float32)
    want = case.expected(x.astype(np.float64))
    inputs = [os.path.join(d, "x.npy")]
    np.save(inputs[0], x)
    for name, ref in want.items():  # the outputs start as NaN: every element must be written
        inputs.append(os.path.join(d, f"{name}0.npy"))
        np.save(inputs[-1], np.full(ref.shape, np.nan, np.float32))
    out = os.path.join(d, "out")
    r = subprocess.run([pto, "run", prog, "--inputs", ",".join(inputs), "--outputs", out,
                        "--trace", "none"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"pto run failed ({r.returncode}): {r.stderr.strip()}"
    problems = []
    for name, ref in want.items():
        got = np.load(os.path.join(out, f"{name}.npy"))
        if got.shape != ref.shape:
            problems.append(f"{name}: shape {got.shape}, want {ref.shape}")
        elif not np.allclose(got, ref, rtol=1e-5, atol=1e-4):
            err = np.nanmax(np.abs(got - ref)) if np.isfinite(got).any() else float("nan")
            problems.append(f"{name}: max error {err} (nan: {int(np.isnan(got).sum())})")
    return "; ".join(problems)


def run_all(pto, work):
    rng = np.random.default_rng(3)
    failures = []
    all_cases = cases()
    for case in all_cases:
        problem = run_case(pto, case, work, rng)
        if problem:
            failures.append(f"{case.name}: {problem}\n{case.program()}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(all_cases) - len(failures)} of {len(all_cases)} cases match NumPy")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pto")
    ap.add_argument("--keep", help="directory to keep the programs and outputs in")
    a = ap.parse_args()
    if a.keep:
        return run_all(a.pto, a.keep)
    with tempfile.TemporaryDirectory(prefix="pto-tile-reduce-") as work:
        return run_all(a.pto, work)


if __name__ == "__main__":
    sys.exit(main())
