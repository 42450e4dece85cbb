#!/usr/bin/python3
"""Independent reference results for the scalar numerics test (ScalarTest.cpp).

Usage: numerics_reference.py OP INPUT OUTPUT

INPUT and OUTPUT are raw little-endian arrays. OP is one of
  f16_to_f32    INPUT u16 bit patterns -> OUTPUT u32: NumPy float16 -> float32
  bf16_to_f32   INPUT u16 bit patterns -> OUTPUT u32: PyTorch bfloat16 -> float32
  f32_to_f16    INPUT u32 float32 bits -> OUTPUT 6 blocks of u16, one per method:
                NumPy astype(float16) (round to nearest even), then exact rounding in the modes
                rne, trunc, floor, ceil, rna
  f32_to_bf16   as f32_to_f16, first block from PyTorch .to(torch.bfloat16)
  f32_to_int    INPUT u32 float32 bits -> OUTPUT 10 blocks of i32: int8 results in the modes
                rne, trunc, floor, ceil, rna, then int32 results in the same modes

The directed modes have no NumPy/PyTorch equivalent, so they are computed here by exact search:
every finite value of the 16-bit format is exact in float64, the positive ones increase with
their bit pattern, and np.searchsorted finds the two neighbours of each input. This shares no
code or method with the bit manipulation under test; the rne column of this search is checked
against NumPy/PyTorch before anything is written, which validates the search itself.
"""

import sys
import warnings

import numpy as np

MODES = ["rne", "trunc", "floor", "ceil", "rna"]


def exact_round(x32, exp_bits, man_bits):
    """Rounds float32 values to a 1/exp_bits/man_bits format in every mode; returns {mode: u16}."""
    inf_bits = ((1 << exp_bits) - 1) << man_bits
    quiet_nan = inf_bits | (1 << (man_bits - 1))
    max_finite = inf_bits - 1
    bias = (1 << (exp_bits - 1)) - 1

    # Value of every positive finite bit pattern 0..max_finite, computed from the definition.
    pattern = np.arange(max_finite + 1, dtype=np.int64)
    exp_field = pattern >> man_bits
    man = pattern & ((1 << man_bits) - 1)
    table = np.where(
        exp_field == 0,
        np.ldexp(man.astype(np.float64), 1 - bias - man_bits),
        np.ldexp((man + (1 << man_bits)).astype(np.float64), exp_field - bias - man_bits))
    assert np.all(np.diff(table) > 0)
    # Overflow threshold under the nearest modes: max_finite + half an ulp.
    half_ulp_above_max = table[-1] + (table[-1] - table[-2]) / 2

    x = x32.astype(np.float64)
    negative = np.signbit(x)
    mag = np.abs(x)
    nan = np.isnan(x)
    inf = np.isinf(x)
    finite = ~(nan | inf)
    safe = np.where(finite, mag, 0.0)

    lo = np.searchsorted(table, safe, side="right") - 1  # table[lo] <= mag
    exact = table[lo] == safe
    above_max = safe > table[-1]
    hi = np.minimum(lo + 1, max_finite)
    lo_val = table[lo]
    hi_val = np.where(above_max, np.inf, table[hi])
    dist_lo = safe - lo_val
    dist_hi = hi_val - safe

    out = {}
    for mode in MODES:
        if mode == "rne":
            up = (dist_hi < dist_lo) | ((dist_hi == dist_lo) & (lo % 2 == 1))
        elif mode == "rna":
            up = dist_hi <= dist_lo
        elif mode == "trunc":
            up = np.zeros_like(exact)
        elif mode == "floor":
            up = negative.copy()
        else:  # ceil
            up = ~negative
        up = up & ~exact
        res = np.where(up, lo + 1, lo).astype(np.int64)
        # Overflow: beyond max_finite the magnitude rounds either to max_finite or to infinity.
        if mode in ("rne", "rna"):
            to_inf = safe >= half_ulp_above_max
        else:
            to_inf = above_max & up
        res = np.where(to_inf, inf_bits, np.where(above_max, max_finite, res))
        res = np.where(inf, inf_bits, res)
        res = np.where(nan, quiet_nan, res)
        res = res | np.where(negative, 0x8000, 0)
        out[mode] = res.astype(np.uint16)
    return out


def check_rne(library_bits, exact_rne, x32, what):
    ok = np.isnan(x32) | (library_bits == exact_rne)
    if not np.all(ok):
        i = int(np.argmin(ok))
        sys.exit(f"reference self-check failed: {what} gives {library_bits[i]:#06x} but the exact "
                 f"search gives {exact_rne[i]:#06x} for f32 bits "
                 f"{x32.view(np.uint32)[i]:#010x}")


def round_int(x, mode):
    if mode == "rne":
        return np.rint(x)
    if mode == "trunc":
        return np.trunc(x)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    # rna: exact in float64 for float32 inputs (|x| >= 2^23 is already integral and 0.5 is then
    # at most half an ulp of float64, which rounds back to |x|).
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def main():
    op, src, dst = sys.argv[1:4]
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    if op == "f16_to_f32":
        bits = np.fromfile(src, dtype="<u2")
        out = bits.view(np.float16).astype(np.float32).view(np.uint32)
    elif op == "bf16_to_f32":
        import torch
        bits = np.fromfile(src, dtype="<u2")
        t = torch.from_numpy(bits.view(np.int16).copy()).view(torch.bfloat16)
        out = t.to(torch.float32).numpy().view(np.uint32)
    elif op == "f32_to_f16":
        x32 = np.fromfile(src, dtype="<u4").view(np.float32)
        library = x32.astype(np.float16).view(np.uint16)
        modes = exact_round(x32, 5, 10)
        check_rne(library, modes["rne"], x32, "numpy astype(float16)")
        out = np.concatenate([library] + [modes[m] for m in MODES])
    elif op == "f32_to_bf16":
        import torch
        x32 = np.fromfile(src, dtype="<u4").view(np.float32)
        t = torch.from_numpy(x32.copy()).to(torch.bfloat16)
        library = t.view(torch.int16).numpy().view(np.uint16)
        modes = exact_round(x32, 8, 7)
        check_rne(library, modes["rne"], x32, "torch .to(torch.bfloat16)")
        out = np.concatenate([library] + [modes[m] for m in MODES])
    elif op == "f32_to_int":
        x = np.fromfile(src, dtype="<u4").view(np.float32).astype(np.float64)
        blocks = []
        for lo, hi in ((-128, 127), (-(2**31), 2**31 - 1)):
            for mode in MODES:
                r = np.clip(round_int(x, mode), lo, hi)
                r = np.where(np.isnan(x), 0, r)
                blocks.append(r.astype(np.int64).astype(np.int32))
        out = np.concatenate(blocks)
    else:
        sys.exit(f"unknown op {op}")
    out.astype(out.dtype.newbyteorder("<")).tofile(dst)


if __name__ == "__main__":
    main()
