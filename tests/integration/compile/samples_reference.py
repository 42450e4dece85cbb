"""Independent NumPy references of the samples: python3 samples_reference.py NAME OUT.npy IN.npy...

Each sample is written here from its definition (not from our interpreter): compute in
float32 (float64 for accumulations) and round once to the output dtype, as the PTO precision
rule says.
"""
import sys

import numpy as np


def gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    x = x.astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float16)


def matmul(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def rms_norm(x, w, eps=1e-6):
    x = x.astype(np.float64)
    y = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w.astype(np.float64)
    return y.astype(np.float16)


def gelu(x):
    return gelu_tanh(x).astype(np.float16)


def mlp_block(x, w, bias):
    h = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
    z = (h + bias).astype(np.float64)
    return (z / (1.0 + np.exp(-z))).astype(np.float16)


SAMPLES = {"matmul": matmul, "softmax": softmax, "rms_norm": rms_norm, "gelu": gelu,
           "mlp_block": mlp_block}

if __name__ == "__main__":
    name, out, *inputs = sys.argv[1:]
    np.save(out, SAMPLES[name](*[np.load(p) for p in inputs]))
