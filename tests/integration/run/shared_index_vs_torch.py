#!/usr/bin/env python3
"""One index tensor read by a gather before a matmul and by a scatter_add after it, through
`pto run` (compile, simulate), against PyTorch.

usage: shared_index_vs_torch.py PTO

The program gathers rows of x by %tok, multiplies them by w and scatter-adds the products back
by the same %tok (out = zeros.index_add(0, tok, x[tok] @ w)). Where the gather's and the
scatter's index tiles cover the same elements, expand-tiles once shared one load of them, which
joined the chain before the cube and the chain after it into one task on both sides of the
matmul: the program was refused as a cycle of GM dependencies (lengths 8, 16, 48, 100, …).
Every length must compile and run. With small-integer x and w in quarters every product and
sum is exact in f32, so the result must equal PyTorch's bit for bit (duplicate indices
included); random normal inputs must agree within the f32 accumulation bound.
The MoE dispatch/combine sample's shape at 17 tokens (capacity 17 per expert, 68 slots), whose
dispatch gather and combine scatter_add share %tokens the same way, must run and match the
dense form of the routing (each token through its two experts, weighted); so must 2 048 tokens,
whose routing cumsum (4096x4 i32, a 64 KiB column strip) once did not fit UB.
Exit 1 on a failure.
"""
import sys
import tempfile

import numpy as np
import torch

from indexing_vs_torch import run_pto  # the same `pto run` of a text on .npy inputs

LENGTHS = [8, 16, 17, 48, 100, 130]
ROWS, HIDDEN = 64, 256


def gather_matmul_scatter(n):
    return (f"func @main(%x: tensor<{ROWS}x{HIDDEN}xf16>, %tok: tensor<{n}xi32>, "
            f"%w: tensor<{HIDDEN}x{HIDDEN}xf16>) -> tensor<{ROWS}x{HIDDEN}xf32> {{\n"
            f"  %y = matmul (gather %x, %tok {{axis = 0}}), %w\n"
            f"  %out = scatter_add (fill {{value = 0.0}} : tensor<{ROWS}x{HIDDEN}xf32>), %tok, %y "
            f"{{axis = 0}}\n"
            f"  return %out\n}}\n")


def index_add_reference(x, tok, w):
    t = torch.from_numpy(tok.astype(np.int64))
    y = torch.from_numpy(x.astype(np.float32))[t] @ torch.from_numpy(w.astype(np.float32))
    return torch.zeros(ROWS, HIDDEN).index_add(0, t, y).numpy()


def shared_index_case(pto, tmp, rng, n, exact):
    tok = rng.integers(0, ROWS, n).astype(np.int32)
    tok[: n // 4] = tok[0]  # duplicates: contributions accumulate in index order
    if exact:
        x = rng.integers(-2, 3, (ROWS, HIDDEN)).astype(np.float16)
        w = (rng.integers(-2, 3, (HIDDEN, HIDDEN)) / 4.0).astype(np.float16)
    else:
        x = rng.standard_normal((ROWS, HIDDEN)).astype(np.float16)
        w = (rng.standard_normal((HIDDEN, HIDDEN)) / 16).astype(np.float16)
    got = run_pto(pto, gather_matmul_scatter(n), [x, tok, w], tmp)["out"]
    want = index_add_reference(x, tok, w)
    if exact:
        return [] if np.array_equal(got.view(np.uint32), want.view(np.uint32)) else \
            ["differs from torch index_add (exact inputs, must be bit for bit)"]
    # f32 sums of HIDDEN products, then up to n contributions per row: each add rounds once
    bound = (HIDDEN + n) * 2.0**-24 * index_add_reference(np.abs(x), tok, np.abs(w)) + 1e-30
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return [] if np.all(err <= bound) else [f"differs from torch index_add by {err.max()}"]


def moe_program(t, h):
    """samples/moe_dispatch_combine.pto for t tokens of hidden size h (capacity t per expert)."""
    p, s = 2 * t, 4 * t
    return f"""func @moe(%x: tensor<{t}x{h}xf16>, %wg: tensor<{h}x4xf16>,
           %we: tensor<4x{h}x{h}xf16>) -> tensor<{t}x{h}xf32> {{
  %logits = matmul %x, %wg
  %p = softmax %logits
  %top = topk %p {{k = 2}}
  %ex = topk %p {{k = 2, indices}}
  %g = div %top, (reduce_sum %top {{axis = 1, keepdim}})
  %eid = subs (cumsum (fill {{value = 1}} : tensor<1x4xi32>) {{axis = 1}}), 1
  %pairs = broadcast (reshape %ex : tensor<{p}x1xi32>) : tensor<{p}x4xi32>
  %hot = cast (cmp %pairs, %eid {{pred = "eq"}}) : tensor<{p}x4xi32>
  %rank = cumsum %hot {{axis = 0}}
  %at = add %rank, (subs (muls %eid, {t}), 1)
  %slot = reduce_sum (mul %hot, %at) {{axis = 1}}
  %tid = subs (cumsum (fill {{value = 1}} : tensor<{t}x2xi32>) {{axis = 0}}), 1
  %tok = scatter_add (fill {{value = 0}} : tensor<{s}x1xi32>), %slot, (reshape %tid : tensor<{p}x1xi32>) {{axis = 0}}
  %gw = scatter_add (fill {{value = 0.0}} : tensor<{s}x1xf32>), %slot, (reshape %g : tensor<{p}x1xf32>) {{axis = 0}}
  %tokens = reshape %tok : tensor<{s}xi32>
  %xe = reshape (gather %x, %tokens {{axis = 0}}) : tensor<4x{t}x{h}xf16>
  %ye = reshape (matmul %xe, %we) : tensor<{s}x{h}xf32>
  %out = scatter_add (fill {{value = 0.0}} : tensor<{t}x{h}xf32>), %tokens, (mul %ye, %gw) {{axis = 0}}
  return %out
}}
"""


def moe_case(pto, tmp, rng, t, h):
    x = rng.standard_normal((t, h)).astype(np.float16)
    wg = (rng.standard_normal((h, 4)) / 16).astype(np.float16)
    we = (rng.standard_normal((4, h, h)) / 16).astype(np.float16)
    got = run_pto(pto, moe_program(t, h), [x, wg, we], tmp)["out"]
    xf, wef = (torch.from_numpy(a.astype(np.float32)) for a in (x, we))
    p = torch.softmax(xf @ torch.from_numpy(wg.astype(np.float32)), dim=-1)
    top, idx = torch.topk(p, 2, dim=-1)
    gate = torch.zeros(t, 4).scatter(1, idx, top / top.sum(dim=-1, keepdim=True))
    dense = torch.einsum("td,edf->tef", xf, wef)  # every token through every expert
    want = (dense * gate[:, :, None]).sum(dim=1).numpy()
    scale = (torch.einsum("td,edf->tef", xf.abs(), wef.abs()) * gate[:, :, None]).sum(dim=1)
    # f32 sums of h products and a gate within a few f32 roundings of torch's softmax
    bound = (h + 16) * 2.0**-24 * scale.numpy() + 1e-30
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return [] if np.all(err <= bound) else [f"differs from the dense routing by {err.max()}"]


def main():
    pto = sys.argv[1]
    rng = np.random.default_rng(4)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="pto-shared-index-") as tmp:
        cases = [(f"gather-matmul-scatter_add n={n} {'exact' if exact else 'normal'}",
                  lambda n=n, exact=exact: shared_index_case(pto, tmp, rng, n, exact))
                 for n in LENGTHS for exact in (True, False)]
        cases += [(f"moe_dispatch_combine tokens={t} hidden={h}",
                   lambda t=t, h=h: moe_case(pto, tmp, rng, t, h))
                  for t, h in [(17, 256), (64, 33), (2048, 32)]]
        for name, case in cases:
            try:
                problems = case()
            except RuntimeError as e:
                problems = [str(e)]
            for p in problems:
                print(f"FAIL {name}: {p}")
            failed += bool(problems)
        print(f"{len(cases) - failed}/{len(cases)} cases agree with PyTorch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
