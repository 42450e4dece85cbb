# Seeded inputs and PyTorch reference outputs of the flagship samples (samples/*.pto).
#
#   reference.py SAMPLE DIR [SEED]
#
# writes DIR/in0.npy, DIR/in1.npy, ... (the program's arguments in order) and
# DIR/golden/<output>.npy (one per returned value, named as `pto run --outputs` names them).
# The references are computed independently of PTO Studio with torch on the CPU, in f32 from
# the same low-precision inputs, rounding to the output dtype once at the points where the
# program itself stores a narrower dtype (docs/SIMULATOR_NUMERICS.md, precision rule).
# A sample whose output is a whole attention (softmax, then P in f16 through a matmul) also
# gets DIR/diff_flags: the policy's composite class (docs/VALIDATE.md) for its dtype, because
# `pto diff` would take the plain f16 class from the final cast.
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F


def f16(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float16)


def t32(a):
    return torch.from_numpy(np.ascontiguousarray(a)).float()


def causal_mask(s):
    m = np.zeros((s, s), np.float32)
    m[np.triu_indices(s, 1)] = -np.inf
    return m


def matmul(rng):
    a, b = f16(rng, (512, 256)), f16(rng, (256, 512))
    return [a, b], {"c": (t32(a) @ t32(b)).numpy()}


def gemm_4096(rng):
    return None  # timing only: 4096³ has no numerics in the test


def softmax(rng):
    x = f16(rng, (64, 1024), 2.0)
    return [x], {"yh": torch.softmax(t32(x), dim=1).half().numpy()}


def rms_norm(rng):
    x, w = f16(rng, (128, 4096)), f16(rng, (4096,))
    xf = t32(x)
    y = xf * torch.rsqrt((xf * xf).mean(dim=1, keepdim=True) + 1e-6) * t32(w)
    return [x, w], {"y": y.half().numpy()}


def gelu_of(shape):
    def gen(rng):
        x = f16(rng, shape, 2.0)
        return [x], {"y": F.gelu(t32(x), approximate="tanh").half().numpy()}

    return gen


def silu_mlp(rng):
    x = f16(rng, (4096, 11008), 2.0)
    return [x], {"y": F.silu(t32(x)).half().numpy()}


def layer_norm(rng):
    x = f16(rng, (1024, 4096), 2.0) + np.float16(0.5)
    g, b = f16(rng, (4096,)), f16(rng, (4096,))
    y = F.layer_norm(t32(x), (4096,), t32(g), t32(b), eps=1e-5)
    return [x, g, b], {"y": y.half().numpy()}


def int8_gemm_of(m):
    def gen(rng):
        a = rng.integers(-128, 128, (m, 4096), dtype=np.int8)
        b = rng.integers(-128, 128, (4096, 4096), dtype=np.int8)
        scale = (rng.uniform(0.5, 1.5, 4096) * 1e-4).astype(np.float32)
        # int8 products summed exactly (f64 holds every partial sum of this size exactly),
        # then the i32 → f32 conversion, the per-channel scale in f32 and one rounding to f16.
        acc = torch.from_numpy(a).double() @ torch.from_numpy(b).double()
        c = (acc.float() * torch.from_numpy(scale)).half()
        return [a, b, scale], {"c": c.numpy()}

    return gen


def attention_inputs(rng):
    q, k, v = (f16(rng, (8, 1024, 128)) for _ in range(3))
    return q, k, v, causal_mask(1024)


SCALE = 1.0 / math.sqrt(128.0)


def attention(rng):
    q, k, v, mask = attention_inputs(rng)
    s = (t32(q) @ t32(k).transpose(1, 2)) * SCALE + t32(mask)
    p = torch.softmax(s, dim=-1).half().float()  # the program feeds P to the cube in f16
    return [q, k, v, mask], {"oh": (p @ t32(v)).half().numpy()}, "composite"


def flash_attention(rng):
    q, k, v, mask = attention_inputs(rng)
    qf, kf, vf, mf = t32(q), t32(k), t32(v), t32(mask)
    m = l = o = None
    for j in range(4):  # online softmax over K/V blocks of 256 keys
        ks = slice(256 * j, 256 * (j + 1))
        s = (qf @ kf[:, ks].transpose(1, 2)) * SCALE + mf[:, ks]
        bm = s.amax(dim=-1, keepdim=True)
        mn = bm if m is None else torch.maximum(m, bm)
        p = torch.exp(s - mn)
        pv = p.half().float() @ vf[:, ks]  # P_j reaches the cube in f16
        if m is None:
            l, o = p.sum(dim=-1, keepdim=True), pv
        else:
            a = torch.exp(m - mn)
            l, o = l * a + p.sum(dim=-1, keepdim=True), o * a + pv
        m = mn
    out = (o / l).half()
    # Sanity of the reference itself: it is attention (plain softmax, no f16 P) to f16 accuracy.
    plain = torch.softmax((qf @ kf.transpose(1, 2)) * SCALE + mf, dim=-1) @ vf
    assert torch.allclose(out.float(), plain, rtol=1e-2, atol=1e-2), "flash reference is off"
    return [q, k, v, mask], {"out": out.numpy()}, "composite"


def online_attention(q, k, v, blocks):
    """The online softmax of the loop samples over `blocks` K/V blocks of 256 keys, in f32 with
    P rounded to f16 before P·V (where the programs store it), leading dims batched."""
    qf, kf, vf = t32(q), t32(k), t32(v)
    m = torch.full(qf.shape[:-1] + (1,), -math.inf)
    l = torch.zeros_like(m)
    o = torch.zeros(qf.shape[:-1] + (vf.shape[-1],))
    for j in range(blocks):
        ks = slice(256 * j, 256 * (j + 1))
        s = (qf @ kf[..., ks, :].transpose(-1, -2)) * SCALE
        mn = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - mn)
        a = torch.exp(m - mn)
        l = l * a + p.sum(dim=-1, keepdim=True)
        o = o * a + p.half().float() @ vf[..., ks, :]
        m = mn
    out = (o / l).half()
    plain = torch.softmax((qf @ kf[..., : 256 * blocks, :].transpose(-1, -2)) * SCALE, dim=-1)
    plain = plain @ vf[..., : 256 * blocks, :]
    assert torch.allclose(out.float(), plain, rtol=1e-2, atol=1e-2), "online reference is off"
    return out.numpy()


def flash_attention_long_of(s):
    def gen(rng):  # one head, non-causal; the twin of flash_attention_long.pto at S = s
        q, k, v = (f16(rng, (s, 128)) for _ in range(3))
        return [q, k, v], {"out": online_attention(q, k, v, s // 256)}, "composite"

    return gen


def flash_attention_short(rng):
    """Split-KV attention of flash_attention_short.pto: each half of the 1024 keys an online
    softmax over 2 blocks of 256 keys (P in f16 before P·V), the halves combined with
    w_p = exp(m_p − max m_p): out = Σ w_p·o_p / Σ w_p·l_p."""
    q, k, v = (f16(rng, (1024, 128)) for _ in range(3))
    qf, kf, vf = t32(q), t32(k), t32(v)
    parts = []
    for half in range(2):
        m = torch.full((1024, 1), -math.inf)
        l, o = torch.zeros(1024, 1), torch.zeros(1024, 128)
        for j in range(2):
            ks = slice(512 * half + 256 * j, 512 * half + 256 * (j + 1))
            s = (qf @ kf[ks].T) * SCALE
            mn = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - mn)
            a = torch.exp(m - mn)
            l, o = l * a + p.sum(dim=-1, keepdim=True), o * a + p.half().float() @ vf[ks]
            m = mn
        parts.append((m, l, o))
    mx = torch.maximum(parts[0][0], parts[1][0])
    w = [torch.exp(m - mx) for m, _, _ in parts]
    lsum = parts[0][1] * w[0] + parts[1][1] * w[1]
    osum = parts[0][2] * w[0] + parts[1][2] * w[1]
    out = (osum / lsum).half()
    plain = torch.softmax((qf @ kf.T) * SCALE, dim=-1) @ vf
    assert torch.allclose(out.float(), plain, rtol=1e-2, atol=1e-2), "split-KV reference is off"
    return [q, k, v], {"out": out.numpy()}, "composite"


def decode_attention_of(s):
    def gen(rng):  # 8 heads, one query row each, a KV cache of s keys
        q = f16(rng, (8, 1, 128))
        k, v = (f16(rng, (8, s, 128)) for _ in range(2))
        return [q, k, v], {"out": online_attention(q, k, v, s // 256)}, "composite"

    return gen


def rope(rng):
    x = f16(rng, (1024, 32, 128))
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, 128, 2, dtype=np.float64) / 128))
    ang = np.arange(1024, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.concatenate([ang, ang], axis=-1)[:, None, :]  # [1024, 1, 128]
    cos, sin = np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)
    xf = t32(x)
    rot = torch.cat([-xf[..., 64:], xf[..., :64]], dim=-1)
    y = xf * t32(cos) + rot * t32(sin)
    return [x, cos, sin], {"yh": y.half().numpy()}


def topk_lower_index_first(x, k):
    # torch.topk's values; the positions in the documented tie order (lower index first), which
    # torch.topk does not promise for equal values: a stable descending sort gives it.
    values = torch.topk(x, k, dim=-1, sorted=True).values
    idx = torch.sort(x, dim=-1, descending=True, stable=True).indices[..., :k]
    assert torch.equal(torch.gather(x, -1, idx), values)
    return values, idx.to(torch.int32)


def moe_gating(rng):
    x, w = f16(rng, (1024, 4096)), f16(rng, (4096, 64), 1.0 / 64)
    p = torch.softmax(t32(x) @ t32(w), dim=-1)
    top, idx = topk_lower_index_first(p, 2)
    return [x, w], {"g": (top / top.sum(dim=-1, keepdim=True)).numpy(), "experts": idx.numpy()}


def lightning_indexer(rng):
    # Small integers (q, k in -2..2, w in quarters): every score is exact in f32 whatever the
    # summation order, so the simulated top-2048 positions must equal the reference's exactly,
    # ties (many) included — broken by the lower key index.
    q = rng.integers(-2, 3, (256, 128)).astype(np.float16)
    k = rng.integers(-2, 3, (8192, 128)).astype(np.float16)
    w = (rng.integers(0, 5, (256, 1)) / 4.0).astype(np.float32)
    scores = (torch.relu(t32(q) @ t32(k).T) * t32(w)).reshape(4, 64, 8192).sum(dim=1)
    top, idx = topk_lower_index_first(scores, 2048)
    return [q, k, w], {"top": top.numpy(), "idx": idx.numpy()}


def rope_half(x, cos, sin):
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:], x[..., :h]], dim=-1) * sin


def mla_prolog(rng):
    # Inputs that make every sum exact, so the int8 latent must match bit for bit whatever the
    # summation order: hidden states ±1 (RMSNorm then gives ±gamma exactly after the f16
    # rounding), gamma 1..3, weights in quarters from -0.5 to 0.5: each kv element is a sum of
    # 7168 quarters, exact in f32. cos/sin are real angles (the RoPE math is elementwise).
    x = rng.choice([-1.0, 1.0], (256, 7168)).astype(np.float16)
    gamma = rng.integers(1, 4, 7168).astype(np.float16)
    w = (rng.integers(-2, 3, (7168, 576)) / 4.0).astype(np.float16)
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, 64, 2, dtype=np.float64) / 64))
    ang = np.arange(256, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.concatenate([ang, ang], axis=-1)
    cos, sin = np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)
    xf = t32(x)
    xn = (xf * torch.rsqrt((xf * xf).mean(dim=1, keepdim=True) + 1e-6) * t32(gamma)).half()
    kv = xn.float() @ t32(w)  # the normalised rows reach the cube in f16
    c = kv[:, :512]
    scale = torch.clamp(c.abs().amax(dim=1, keepdim=True), min=1e-4) / 127.0
    cq = torch.round(c / scale).clamp(-128, 127).to(torch.int8)
    kpe = rope_half(kv[:, 512:], t32(cos), t32(sin)).half()
    return [x, gamma, w, cos, sin], {"cq": cq.numpy(), "scale": scale.numpy(),
                                     "kpe": kpe.numpy()}


def sparse_flash_attention(rng):
    q, kv = f16(rng, (4, 16, 576)), f16(rng, (8192, 576))
    # the indexer's selection: 2048 distinct keys per token, in no particular order
    idx = np.stack([rng.permutation(8192)[:2048] for _ in range(4)]).astype(np.int32)
    k = t32(kv)[torch.from_numpy(idx.astype(np.int64))]  # [4, 2048, 576]
    s = (t32(q) @ k.transpose(1, 2)) * (1.0 / math.sqrt(192.0))
    m = l = o = None
    for j in range(4):  # the program's online softmax over blocks of 512 selected keys
        sj = s[..., 512 * j:512 * (j + 1)]
        mn = sj.amax(dim=-1, keepdim=True) if m is None else torch.maximum(
            m, sj.amax(dim=-1, keepdim=True))
        p = torch.exp(sj - mn)
        pv = p.half().float() @ k[:, 512 * j:512 * (j + 1), :512]  # P_j reaches the cube in f16
        if m is None:
            l, o = p.sum(dim=-1, keepdim=True), pv
        else:
            a = torch.exp(m - mn)
            l, o = l * a + p.sum(dim=-1, keepdim=True), o * a + pv
        m = mn
    out = (o / l).half()
    plain = torch.softmax(s, dim=-1) @ k[..., :512]  # the reference is attention to f16 accuracy
    assert torch.allclose(out.float(), plain, rtol=1e-2, atol=1e-2), "sparse reference is off"
    return [q, kv, idx], {"out": out.numpy()}, "composite"


def moe_dispatch_combine(rng):
    x, wg = f16(rng, (64, 256)), f16(rng, (256, 4), 1.0 / 16)
    we = f16(rng, (4, 256, 256), 1.0 / 16)
    p = torch.softmax(t32(x) @ t32(wg), dim=-1)
    top, idx = topk_lower_index_first(p, 2)
    g = top / top.sum(dim=-1, keepdim=True)
    # every token through its two experts, weighted: the dense form of dispatch + combine; the
    # f32 sum of its two contributions in slot order (the expert of lower index first)
    y = torch.einsum("td,edf->tef", t32(x), t32(we))  # [64, 4, 256]
    w = torch.zeros(64, 4).scatter(1, idx.long(), g)
    out = torch.zeros(64, 256)
    for e in range(4):
        out = out + y[:, e, :] * w[:, e:e + 1]
    return [x, wg, we], {"out": out.numpy()}


def quant_prolog(rng):
    x = f16(rng, (1024, 7168))
    x[::7, ::97] *= np.float16(20.0)  # a few outliers per row, as activations have
    xf = t32(x)
    scale = torch.clamp(xf.abs().amax(dim=1, keepdim=True), min=1e-4) / 127.0
    q = torch.round(xf / scale).clamp(-128, 127).to(torch.int8)
    return [x], {"qi": q.numpy(), "scale": scale.numpy()}


def conv2d_im2col(rng):
    x = f16(rng, (1, 64, 56, 56))
    w = f16(rng, (64, 64, 3, 3), 1.0 / 24)
    packed = np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(576, 64))
    y = F.conv2d(t32(x), t32(w), padding=1)
    return [x, packed], {"out": y.half().numpy()}


def composite_flags(goldens):
    # Composite class of the policy for f16: rtol max(1e-3, 10·T), atol 1e-5 + T·rms(golden),
    # T = 2^-10 (Ascend precision standard). P is rounded to f16 in both computations, but
    # where f32 sums in another order put an element of P on the other side of an f16 rounding
    # boundary, a near-zero output moves by up to about T·|v|, above the f16 class's atol.
    (g,) = goldens.values()
    t = 2.0**-10
    rms = float(np.sqrt(np.mean(g.astype(np.float64) ** 2)))
    return f"--rtol {max(1e-3, 10 * t)!r} --atol {1e-5 + t * rms!r}"


SAMPLES = {
    "matmul": matmul,
    "gemm_4096": gemm_4096,
    "softmax": softmax,
    "rms_norm": rms_norm,
    "gelu": gelu_of((256, 2048)),
    "gelu_mlp": gelu_of((4096, 11008)),
    "silu_mlp": silu_mlp,
    "layer_norm": layer_norm,
    "int8_gemm": int8_gemm_of(1024),
    "int8_gemm_m128": int8_gemm_of(128),
    "attention": attention,
    "flash_attention": flash_attention,
    "flash_attention_loop": flash_attention,  # the same math written with a loop
    "flash_attention_long_2048": flash_attention_long_of(2048),
    "decode_attention_2048": decode_attention_of(2048),
    "flash_attention_short": flash_attention_short,
    "rope": rope,
    "moe_gating": moe_gating,
    "lightning_indexer": lightning_indexer,
    "quant_prolog": quant_prolog,
    "mla_prolog": mla_prolog,
    "sparse_flash_attention": sparse_flash_attention,
    "moe_dispatch_combine": moe_dispatch_combine,
    "conv2d_im2col": conv2d_im2col,
}


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in SAMPLES:
        sys.exit(f"usage: reference.py {{{'|'.join(SAMPLES)}}} DIR [SEED]")
    name, out = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    torch.set_num_threads(1)
    made = SAMPLES[name](np.random.default_rng(seed))
    if made is None:
        return
    inputs, goldens = made[0], made[1]
    os.makedirs(os.path.join(out, "golden"), exist_ok=True)
    for i, a in enumerate(inputs):
        np.save(os.path.join(out, f"in{i}.npy"), a)
    for key, a in goldens.items():
        np.save(os.path.join(out, "golden", f"{key}.npy"), a)
    if len(made) > 2:
        with open(os.path.join(out, "diff_flags"), "w") as f:
            f.write(composite_flags(goldens))


if __name__ == "__main__":
    main()
