#!/usr/bin/env python3
"""A matmul's K steps folded into counted loops (reroll-loops), through `pto run`.

programs/gemm_ksteps.pto holds two f16 GEMMs (one with B transposed) whose reduction takes 32
L1 blocks of K. Checks, on the same random inputs: the compiled listing has a counted loop
"matmul@L:C.k" per output block and fewer instructions than the --no-reroll listing; the trace
has far fewer instr rows than executed instructions, and a slice of K step 7 names its
iteration and reaches a tile op of that matmul and its source line; the outputs and cycles
equal the --no-reroll run bit for bit; the outputs match PyTorch's a @ b and a @ btᵀ.
Usage: kstep_reroll_vs_torch.py PTO"""
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "gemm_ksteps.pto"
M, K, N, NT = 128, 8192, 512, 256


def pto(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"pto {' '.join(args)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def cycles(out):
    m = re.search(r"cycles\s+([0-9]+)", out)
    return int(m.group(1)) if m else None


def instructions(listing):
    m = re.search(r"pto\s+([0-9]+) instructions", listing)
    return int(m.group(1)) if m else None


def main():
    binary = sys.argv[1]
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    folded_listing = pto(binary, "compile", str(PROGRAM), "--print-after", "emit-pto")
    flat_listing = pto(binary, "compile", str(PROGRAM), "--print-after", "emit-pto",
                       "--no-reroll")
    loops = re.findall(r'loop "(matmul@[0-9]+:[0-9]+\.k)" ([0-9]+) iter ([0-9]+) by ([0-9]+)',
                       folded_listing)
    check({name for name, _, _, _ in loops} == {"matmul@6:8.k", "matmul@7:8.k"},
          f"every matmul's K steps form counted loops: {sorted(set(loops))}")
    check('loop "' not in flat_listing, "--no-reroll writes every K step out")
    folded_n, flat_n = instructions(folded_listing), instructions(flat_listing)
    check(folded_n is not None and flat_n is not None and 3 * folded_n < flat_n,
          f"the listing shrinks to under a third: {folded_n} vs {flat_n} instructions")

    with tempfile.TemporaryDirectory(prefix="pto-kstep-") as tmp:
        tmp = pathlib.Path(tmp)
        rng = np.random.default_rng(17)
        arrays = {"a": (M, K), "b": (K, N), "bt": (NT, K)}
        paths = []
        for name, shape in arrays.items():
            arrays[name] = (rng.random(shape) * 2 - 1).astype(np.float16)
            paths.append(tmp / f"{name}.npy")
            np.save(paths[-1], arrays[name])
        inputs = ",".join(str(p) for p in paths)
        runs = {}
        for tag, extra in (("folded", []), ("flat", ["--no-reroll"])):
            out = pto(binary, "run", str(PROGRAM), "--inputs", inputs, "--outputs",
                      str(tmp / tag), "-o", str(tmp / f"{tag}.db"), "--trace", "instructions",
                      *extra)
            runs[tag] = (cycles(out), {n: np.load(tmp / tag / f"{n}.npy") for n in "cd"})
        (fc, fo), (uc, uo) = runs["folded"], runs["flat"]
        check(fc is not None and fc == uc, f"same cycles with and without rerolling: {fc} {uc}")
        check(all(fo[n].tobytes() == uo[n].tobytes() for n in "cd"),
              "same outputs bit for bit with and without rerolling")

        a = torch.from_numpy(arrays["a"]).double()
        refs = {"c": a @ torch.from_numpy(arrays["b"]).double(),
                "d": a @ torch.from_numpy(arrays["bt"]).double().T}
        # f16 products are exact in f32; the f32 sum of K of them errs by at most about
        # K · 2⁻²⁴ · Σ|aᵢ bᵢ| (sequential summation bound).
        abs_a = a.abs()
        bounds = {"c": abs_a @ torch.from_numpy(arrays["b"]).double().abs(),
                  "d": abs_a @ torch.from_numpy(arrays["bt"]).double().abs().T}
        for n in "cd":
            err = (torch.from_numpy(fo[n]).double() - refs[n]).abs()
            ok = bool((err <= K * 2.0**-24 * bounds[n] + 1e-6).all())
            check(ok, f"{n} matches PyTorch (max abs error {float(err.max()):.3g})")

        db = sqlite3.connect(tmp / "folded.db")
        q = lambda sql: db.execute(sql).fetchone()[0]
        rows = q("SELECT count(*) FROM instr")
        executed = q("SELECT count(*) FROM slice WHERE category = 'instr'")
        check(rows * 3 < executed, f"instr rows ≪ executed instructions: {rows} vs {executed}")
        # A slice of K step 7 of the first matmul: its instruction's tile op is round 0's (K step
        # 7 - a whole number of rounds), of that matmul, at its source line.
        first, period = next((int(f), int(p)) for n, _, f, p in loops if n == "matmul@6:8.k")
        step = first + (7 - first) % period
        hit = db.execute(
            "SELECT n.attrs, i.src_line FROM slice s JOIN args g ON g.arg_set_id = s.arg_set_id"
            " AND g.key = 'loop' AND g.string_value = 'matmul@6:8.k, iter 7'"
            " JOIN instr i ON i.id = s.instr_id"
            " JOIN node n ON n.stage_id = i.tile_stage_id AND n.id = i.tile_op_id"
            " WHERE i.opcode = 'TMATMUL_ACC' LIMIT 1").fetchone()
        check(hit is not None and f'"k_step":{step},' in hit[0] and hit[1] == 6,
              f"a slice of K step 7 reaches its tile op and line 6: {hit}")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
