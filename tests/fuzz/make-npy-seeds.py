#!/usr/bin/python3
# Writes the .npy seed corpus of the npy fuzz harness (tests/fuzz/corpus/npy) with NumPy itself:
# one small array per dtype and layout the readers handle. Run once; the outputs are checked in.
import os

import numpy as np
from numpy.lib import format as npformat

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(13)


def save(name, array, version=None):
    with open(os.path.join(out, name), "wb") as f:
        if version is None:
            np.save(f, array)
        else:
            npformat.write_array(f, array, version=version)


save("f32_2x3.npy", rng.standard_normal((2, 3)).astype(np.float32))
save("f16_4.npy", rng.standard_normal(4).astype(np.float16))
save("f64_2x2.npy", rng.standard_normal((2, 2)))
save("i8_3x2.npy", rng.integers(-128, 127, (3, 2), dtype=np.int8))
save("i32_5.npy", rng.integers(-1000, 1000, 5, dtype=np.int32))
save("u16_bits_2x2.npy", rng.integers(0, 65535, (2, 2), dtype=np.uint16))
save("bool_3.npy", np.array([True, False, True]))
save("f32_scalar.npy", np.float32(1.5))
save("f32_empty_0x4.npy", np.zeros((0, 4), dtype=np.float32))
save("f32_fortran_2x3.npy", np.asfortranarray(rng.standard_normal((2, 3)).astype(np.float32)))
save("f32_bigendian_3.npy", rng.standard_normal(3).astype(">f4"))
save("f32_v2_1x2x2.npy", rng.standard_normal((1, 2, 2)).astype(np.float32), version=(2, 0))
save("f32_v3_2.npy", rng.standard_normal(2).astype(np.float32), version=(3, 0))
