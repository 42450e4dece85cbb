# The differential tester's runner: one program through the real `pto run` (inputs written as
# .npy, outputs read back), compared with the reference within the propagated error bound, and
# classified as pass / wrong / crash / hang / rejected.
import os
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np

import gen
import interp
import reference as R
from program import print_program

# misnamed: the outputs are right but not written as <returned value>.npy (issue 12 item 2)
CLASSES = ["pass", "wrong", "crash", "hang", "rejected", "misnamed", "tester-error"]
TIMEOUT_S = 60  # per program; difftest.py --timeout sets it (a sanitizer build needs minutes)


class Outcome:
    def __init__(self, cls, reason="", detail="", seconds=0.0, checked=1.0):
        self.cls = cls  # one of CLASSES
        self.reason = reason  # short, stable text (rejections: the normalised message)
        self.detail = detail  # the full message / the first mismatches
        self.seconds = seconds
        self.checked = checked  # share of output elements the bound could check

    def signature(self):
        return (self.cls, self.reason)

    def to_json(self):
        return {"class": self.cls, "reason": self.reason, "detail": self.detail,
                "seconds": round(self.seconds, 3), "checked": round(self.checked, 4)}


def normalise_error(message):
    """A compile error as a class key: the text after 'error:', values, numbers and tile
    shapes replaced, so one defect gives one key whatever the program."""
    line = message.strip().splitlines()[0] if message.strip() else "(no message)"
    for ln in message.splitlines():
        if "error:" in ln:
            line = ln
            break
    line = line.split("error:", 1)[-1].strip()
    line = re.sub(r"^[a-z_]+ (%[A-Za-z0-9_.]+|\(op #\d+\)): ", "", line)  # the op: grouped
    line = re.sub(r"(\b|(?<=\dx))(f32|f16|bf16|i8|i32|i1)\b", "DT", line)
    line = re.sub(r"%[A-Za-z0-9_.]+", "%v", line)
    line = re.sub(r"#\d+", "#N", line)
    line = re.sub(r"_\d+\b", "_N", line)  # block names main_aiv_3
    line = re.sub(r"\d+(x\d+)+", "AxB", line)
    line = re.sub(r"\b\d+(\.\d+)?\b", "N", line)
    line = re.sub(r"\[[N, ]*\]", "[..]", line)
    line = re.sub(r"\(at N:N\)", "", line)
    return line[:200]


def compare(val, actual):
    """(ok, message, checked share): every element within the bound, NaN where the reference
    is NaN, the same infinity, or an overflow the bound allows."""
    v, e = np.broadcast_arrays(val.v, val.e)
    a = np.asarray(actual, dtype=np.float64)
    if a.shape != v.shape:
        return False, f"shape {a.shape} vs reference {v.shape}", 1.0
    with np.errstate(all="ignore"):
        unchecked = ~np.isfinite(e) | (np.isnan(v) & (e > 0)) | (np.isinf(v) & (e > 0))
        both_nan = np.isnan(a) & np.isnan(v)
        same = (a == v) | both_nan
        diff = np.abs(a - v)
        within = np.isfinite(v) & np.isfinite(a) & (diff <= e * (1 + 1e-9) + 1e-300)
        ok = same | within | unchecked
        if val.dtype in R.MAX_FINITE:
            mf = R.MAX_FINITE[val.dtype]
            overflow = np.isinf(a) & np.isfinite(v) & (np.abs(v) + e >= mf) & (
                np.sign(a) == np.sign(v))
            ok |= overflow
    n = max(v.size, 1)
    checked = 1.0 - float(np.count_nonzero(unchecked)) / n
    if np.all(ok):
        return True, "", checked
    bad = np.argwhere(~ok)
    lines = []
    for idx in bad[:3]:
        i = tuple(int(x) for x in idx)
        lines.append(f"[{', '.join(map(str, i))}] got {a[i]!r} want {v[i]!r} ± {e[i]:.3g}")
    return False, f"{len(bad)} of {v.size} elements outside the bound: " + "; ".join(lines), \
        checked


def program_files(program_text, p, inputs, workdir):
    """Writes the program and its inputs into `workdir`: (the .pto path, the arguments that pass
    the inputs and the bound trip counts to `pto run` or `pto diff --bisect`)."""
    src = os.path.join(workdir, "prog.pto")
    with open(src, "w") as f:
        f.write(program_text)
    files = []
    for a in p.args:
        if a.dtype == "index":
            continue
        path = os.path.join(workdir, f"in_{a.name}.npy")
        gen.save_npy(path, inputs[a.name], a.dtype)
        files.append(path)
    args = ["--inputs", ",".join(files)] if files else []
    for name, value in p.binds.items():
        args += ["--bind", f"{name}={value}"]
    return src, args


def run_pto(pto, program_text, p, inputs, workdir, fault=None, timeout=None):
    """Runs the program; returns (returncode or None on timeout, stderr, outputs dir)."""
    timeout = timeout or TIMEOUT_S
    src, args = program_files(program_text, p, inputs, workdir)
    outdir = os.path.join(workdir, "out")
    # Every pass verified: a broken invariant is reported by the pass that broke it.
    cmd = [pto, "run", src, "--outputs", outdir, "--trace", "none", "--verify-each"] + args
    if fault:
        cmd += ["--fault", fault]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", outdir
    return proc.returncode, proc.stderr + proc.stdout if proc.returncode else proc.stderr, outdir


def check_program(pto, p, seed, fault=None, timeout=None, keep_dir=None):
    """Runs `p` on the inputs of `seed` and classifies it."""
    text = print_program(p)
    inputs = gen.make_inputs(p, seed)
    timeout = timeout or TIMEOUT_S
    workdir = keep_dir or tempfile.mkdtemp(prefix="pto-diff-")
    t0 = time.time()
    try:
        rc, err, outdir = run_pto(pto, text, p, inputs, workdir, fault, timeout)
        secs = time.time() - t0
        if rc is None:
            return Outcome("hang", f"no exit within {timeout} s", "", secs)
        if rc == 2:
            return Outcome("rejected", normalise_error(err), err.strip()[:2000], secs)
        if rc != 0:
            what = f"signal {-rc}" if rc < 0 else f"exit {rc}"
            first = err.strip().splitlines()[-1] if err.strip() else ""
            return Outcome("crash", what + (": " + normalise_error(first) if rc == 1 else ""),
                           err.strip()[:2000], secs)
        with np.errstate(all="ignore"):
            env = interp.evaluate(p, inputs)
        checked, problems, misnamed = [], [], []
        written = sorted(f for f in os.listdir(outdir) if f.endswith(".npy")) \
            if os.path.isdir(outdir) else []
        unclaimed = [f for f in written if f[:-4] not in p.returns]
        for name in p.returns:
            path = os.path.join(outdir, name + ".npy")
            if not os.path.exists(path):
                misnamed.append(f"output {name}.npy missing (written: {', '.join(written)})")
                if len(unclaimed) != 1 or len(p.returns) != 1:
                    continue
                path = os.path.join(outdir, unclaimed[0])  # the one other file: check it
            actual, dtype = gen.load_npy(path)
            if dtype != env[name].dtype:
                problems.append(f"{name}: dtype {dtype}, want {env[name].dtype}")
                continue
            ok, msg, share = compare(env[name], actual)
            checked.append(share)
            if not ok:
                problems.append(f"{name}: {msg}")
        share = min(checked) if checked else 1.0
        if problems:
            return Outcome("wrong", "outside the bound", "\n".join(problems + misnamed), secs,
                           share)
        if misnamed:
            return Outcome("misnamed", "an output is not written as <returned value>.npy",
                           "\n".join(misnamed), secs, share)
        return Outcome("pass", "", "", secs, share)
    finally:
        if keep_dir is None:
            shutil.rmtree(workdir, ignore_errors=True)


def bisect_program(pto, p, seed, timeout=None):
    """`pto diff --bisect` of a correct program on the inputs of `seed`: "pass" when every stage
    agrees with the reference, "diverged" (a false divergence: the program is valid and the
    compiler right) with the report's first divergence, or crash / hang."""
    timeout = timeout or TIMEOUT_S
    workdir = tempfile.mkdtemp(prefix="pto-bisect-")
    try:
        src, args = program_files(print_program(p), p, gen.make_inputs(p, seed), workdir)
        cmd = [pto, "diff", "--bisect", src] + args
        t0 = time.time()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Outcome("hang", f"no exit within {timeout} s", "", time.time() - t0)
        secs = time.time() - t0
        if proc.returncode == 0:
            return Outcome("pass", "", "", secs)
        if proc.returncode == 1:
            first = [ln for ln in proc.stdout.splitlines()
                     if ln.startswith("first diverges") or ln.startswith("output")]
            return Outcome("diverged", normalise_error(first[0] if first else ""),
                           proc.stdout[-2000:], secs)
        return Outcome("crash", f"exit {proc.returncode}", (proc.stderr + proc.stdout)[-2000:],
                       secs)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
