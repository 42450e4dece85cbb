#!/usr/bin/python3
"""NumPy side of the .npy unit test (NpyTest.cpp).

Usage:
  npy_reference.py make DIR    write .npy files with NumPy into DIR, and for each NAME.npy the
                               expected element bytes (C order, little-endian) as NAME.raw;
                               DIR/manifest.txt lists "NAME;canonical descr;dims" per line
                               (dims space-separated, empty for a scalar)
  npy_reference.py check DIR   load every file listed in DIR/manifest.txt (written by the C++
                               side, same format) with np.load and compare it with NAME.raw;
                               also check the layout np.save would have written
  npy_reference.py verdicts DIR
                               np.load every DIR/*.npy and write DIR/verdicts.txt, one line per
                               file: "NAME accept DIMS" (dims comma-separated) or "NAME reject"
  npy_reference.py bf16 FILE EXPECTED
                               FILE holds bf16 bits as '<u2' with a "bf16" sidecar; compare the
                               values PyTorch sees with the float32 values in EXPECTED (raw)
Exit status 0 when everything matches; otherwise a message per problem and status 1.
"""

import io
import os
import sys

import numpy as np

DTYPES = ["<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"]


def sample(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = rng.integers(info.min, info.max, n, dtype=np.int64 if dt.kind == "i" else np.uint64,
                            endpoint=True).astype(dt)
        flat = vals.reshape(-1)
        if n >= 2:
            flat[0], flat[1] = info.min, info.max
        return vals.reshape(shape)
    vals = (rng.standard_normal(n) * 1000).astype(dt)
    specials = [np.nan, np.inf, -np.inf, -0.0]
    vals[: min(n, len(specials))] = specials[: min(n, len(specials))]
    return vals.reshape(shape)


def canonical(dtype):
    return np.dtype(dtype).newbyteorder("<").str


def make(out_dir):
    manifest = []

    def emit(name, arr, writer=None):
        path = os.path.join(out_dir, name + ".npy")
        with open(path, "wb") as f:
            if writer is None:
                np.save(f, arr)
            else:
                writer(f, arr)
        expected = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"))
        expected.tofile(os.path.join(out_dir, name + ".raw"))
        dims = " ".join(str(d) for d in arr.shape)
        manifest.append(f"{name};{canonical(arr.dtype)};{dims}")

    for i, dt in enumerate(DTYPES):
        tag = dt[1:]
        emit(f"v1_{tag}", sample(dt, (2, 3, 4), i))
        emit(f"v2_{tag}", sample(dt, (5, 7), 100 + i),
             lambda f, a: np.lib.format.write_array(f, a, version=(2, 0)))
        emit(f"v3_{tag}", sample(dt, (6,), 200 + i),
             lambda f, a: np.lib.format.write_array(f, a, version=(3, 0)))
        emit(f"fortran_{tag}", np.asfortranarray(sample(dt, (3, 4, 5), 300 + i)))
        if np.dtype(dt).itemsize > 1:
            emit(f"bigendian_{tag}", sample(dt, (4, 3), 400 + i).astype(np.dtype(dt).newbyteorder(">")))
    emit("fortran_bigendian_f8", np.asfortranarray(sample(">f8", (2, 3, 2), 500)))
    emit("fortran_2d_i2", np.asfortranarray(sample("<i2", (7, 9), 501)))
    emit("scalar_f8", np.array(3.5, dtype="<f8"))
    emit("scalar_b1", np.array(True))
    emit("empty_f4", np.zeros((0,), dtype="<f4"))
    emit("empty_3d_i4", np.zeros((2, 0, 3), dtype="<i4"))
    emit("empty_fortran_f2", np.asfortranarray(np.zeros((3, 0), dtype="<f2")))
    emit("vector_i8", np.arange(10, dtype="<i8"))
    emit("big_f4", sample("<f4", (64, 100), 502))
    emit("many_dims_u1", sample("|u1", (1, 2, 1, 3, 1, 2, 1, 2), 503))

    # Two arrays in one file (np.save appended twice): np.load reads the first.
    first, second = sample("<f4", (3, 3), 600), sample("<i4", (2,), 601)
    emit("appended_f4", first,
         lambda f, a: (np.save(f, a), np.save(f, second)))

    # Unsupported dtype, for the error test (not in the manifest).
    np.save(os.path.join(out_dir, "complex64.npy"), np.zeros((2,), dtype="<c8"))

    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")


def read_manifest(dir_):
    with open(os.path.join(dir_, "manifest.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                name, descr, dims = line.split(";")
                shape = tuple(int(d) for d in dims.split()) if dims else ()
                yield name, descr, shape


def check(dir_):
    problems = []
    checked = 0
    for name, descr, shape in read_manifest(dir_):
        path = os.path.join(dir_, name + ".npy")
        try:
            arr = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any failure is a finding
            problems.append(f"{name}: np.load failed: {e}")
            continue
        expected = np.fromfile(os.path.join(dir_, name + ".raw"), dtype=descr).reshape(shape)
        if arr.dtype.str != descr:
            problems.append(f"{name}: dtype {arr.dtype.str}, expected {descr}")
        if arr.shape != shape:
            problems.append(f"{name}: shape {arr.shape}, expected {shape}")
        # Compare the bits, so that NaNs compare equal.
        bits = np.dtype(f"<u{arr.dtype.itemsize}")
        if arr.shape == shape and not np.array_equal(arr.view(bits), expected.view(bits)):
            problems.append(f"{name}: values differ")
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(f)
            else:
                header = np.lib.format.read_array_header_2_0(f)
            offset = f.tell()
        if offset % 64 != 0:
            problems.append(f"{name}: data starts at {offset}, not a multiple of 64")
        if version != (1, 0):
            problems.append(f"{name}: format version {version}, expected (1, 0)")
        if header[1]:
            problems.append(f"{name}: written in Fortran order")
        # Byte for byte what np.save writes (the writer generation with growth padding).
        if hasattr(np.lib.format, "GROWTH_AXIS_MAX_DIGITS"):
            buf = io.BytesIO()
            np.save(buf, arr)
            with open(path, "rb") as f:
                ours = f.read()
            if ours != buf.getvalue():
                problems.append(f"{name}: bytes differ from np.save's: ours start "
                                f"{ours[:offset]!r}, numpy's {buf.getvalue()[:offset]!r}")
        checked += 1
    for p in problems:
        print(p)
    if checked == 0:
        print("no files checked")
        return 1
    return 1 if problems else 0


def verdicts(dir_):
    lines = []
    for name in sorted(os.listdir(dir_)):
        if not name.endswith(".npy"):
            continue
        try:
            arr = np.load(os.path.join(dir_, name), allow_pickle=False)
            lines.append(f"{name[:-4]} accept {','.join(str(d) for d in arr.shape)}")
        except Exception:  # noqa: BLE001 - any failure is a rejection
            lines.append(f"{name[:-4]} reject")
    with open(os.path.join(dir_, "verdicts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


def bf16(path, expected_path):
    import torch
    with open(path + ".dtype") as f:
        if f.read().strip() != "bf16":
            print("sidecar does not say bf16")
            return 1
    arr = np.load(path, allow_pickle=False)
    if arr.dtype.str != "<u2":
        print(f"stored as {arr.dtype.str}, expected <u2")
        return 1
    values = torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16).float().numpy()
    expected = np.fromfile(expected_path, dtype="<f4").reshape(values.shape)
    if not np.array_equal(values.view(np.uint32), expected.view(np.uint32)):
        print(f"torch sees {values}, expected {expected}")
        return 1
    return 0


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
        return 0
    if cmd == "check":
        return check(sys.argv[2])
    if cmd == "verdicts":
        return verdicts(sys.argv[2])
    if cmd == "bf16":
        return bf16(sys.argv[2], sys.argv[3])
    print(f"unknown command {cmd}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
