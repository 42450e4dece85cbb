#!/usr/bin/env python3
"""A compiled fused cube-vector program (issue 15 item 3) through `pto run`.

programs/fused_attention.pto (one head, an online-softmax loop) compiles to AIC+2 AIV clusters.
Checks, on the same random inputs: the fused outputs equal the --no-fuse outputs bit for bit and
match PyTorch's softmax(q kᵀ / √128) v (and the causal samples/flash_attention_loop.pto equals
its --no-fuse run bit for bit); the compiled listing holds clusters and cross-core
flags; and a cross-core wait removed by --fault drop-cross-wait:N is reported (exit 1, a
cross-core race naming the missing CROSS_WAIT_FLAG) for every N tried.
Usage: fused_vs_torch.py PTO"""
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "fused_attention.pto"
S, D = 2048, 128


def run(pto, args, check=True):
    r = subprocess.run([pto, "run", str(PROGRAM), *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"pto run {' '.join(args)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r


def main():
    pto = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory(prefix="pto-fused-") as tmp:
        tmp = pathlib.Path(tmp)
        rng = np.random.default_rng(15)
        names = []
        for n in "qkv":
            path = tmp / f"{n}.npy"
            np.save(path, (rng.random((S, D)) * 2 - 1).astype(np.float16))
            names.append(str(path))
        inputs = ["--inputs", ",".join(names)]
        run(pto, [*inputs, "-o", str(tmp / "f.db"), "--outputs", str(tmp / "fused")])
        run(pto, [*inputs, "-o", str(tmp / "u.db"), "--outputs", str(tmp / "unfused"),
                  "--no-fuse"])
        fused = (tmp / "fused" / "out.npy").read_bytes()
        unfused = (tmp / "unfused" / "out.npy").read_bytes()
        if fused != unfused:
            failures.append("fused and --no-fuse outputs differ")
        q, k, v = (torch.tensor(np.load(p).astype(np.float64)) for p in names)
        ref = torch.softmax(q @ k.T / np.sqrt(D), dim=-1) @ v
        out = torch.tensor(np.load(tmp / "fused" / "out.npy").astype(np.float64))
        err = (out - ref).abs().max().item()
        if err > 2e-3:  # f16 output of an f16-input attention: half an f16 ulp at 1 is 4.9e-4
            failures.append(f"fused output differs from PyTorch by {err}")

        listing = subprocess.run([pto, "compile", str(PROGRAM), "--print-after", "emit-pto"],
                                 capture_output=True, text=True).stdout
        for needle in ("CROSS_SET_FLAG", "CROSS_WAIT_FLAG", " cluster 0/1"):
            if needle not in listing:
                failures.append(f"the compiled listing has no '{needle}'")
        waits = listing.count("CROSS_WAIT_FLAG")
        for n in sorted({0, 1, waits // 2, waits - 1}):  # candidates count from 0
            r = run(pto, ["--seed", "1", "-o", str(tmp / f"fault{n}.db"), "--fault",
                          f"drop-cross-wait:{n}"], check=False)
            text = r.stdout + r.stderr
            if r.returncode != 1 or "cross-core race" not in text or \
                    "CROSS_WAIT_FLAG is missing" not in text:
                failures.append(f"drop-cross-wait:{n} of {waits} not reported as a cross-core "
                                f"race (exit {r.returncode}):\n{text[-600:]}")
        # The causal sample (8 heads, S = 1024): fully masked blocks and rows whose row max
        # must start at -inf make a misordered initial state visible (it once read 0).
        sample = HERE.parents[2] / "samples" / "flash_attention_loop.pto"
        outs = []
        for extra in ([], ["--no-fuse"]):
            d = tmp / f"causal{len(outs)}"
            r = subprocess.run([pto, "run", str(sample), "--seed", "1", "-o", str(d) + ".db",
                                "--outputs", str(d), *extra], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"flash_attention_loop {extra} failed:\n{r.stdout}{r.stderr}")
            outs.append(d / "out.npy")
        if all(o.exists() for o in outs) and outs[0].read_bytes() != outs[1].read_bytes():
            failures.append("flash_attention_loop: fused and --no-fuse outputs differ")
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
