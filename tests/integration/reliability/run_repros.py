#!/usr/bin/python3
# Runs every hostile-input reproducer of ../shared/repro/reliability (issue 13), plus a FIFO trace
# and a FIFO .npy made here, through the real `pto` (and `pto-studio --screenshot` for traces)
# and checks what a user must see: a result or a clean one-line error (exit 0 or 2, never a
# signal), within 10 s and 1 GiB, no temp files left behind, and the trace's bytes unchanged.
#
# usage: run_repros.py --pto PTO [--studio STUDIO] --repro-dir DIR --source-dir REPO
#                      [--only SUBSTRING] [--rss-only] [--time-limit SECONDS]
# Each case runs in a fresh directory holding copies of its inputs (mtimes kept, so layout-cache
# sidecars stay valid), with TMPDIR and the XDG config/cache dirs inside it. Exit 1 if any check
# fails; every failure is listed with the command and the reason.
import argparse
import hashlib
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

TIME_LIMIT_S = 10.0  # per command; --time-limit changes it (sanitizer builds run slower)
MEMORY_LIMIT = 1 << 30  # bytes, address space (RLIMIT_AS) and peak RSS
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# Phrases that mean a crash or a leaked internal error rather than a message for the user.
FORBIDDEN_STDERR = ["std::bad_alloc", "terminate called", "Sanitizer", "runtime error:",
                    "QUnhandledException", "Segmentation fault", "Aborted", "core dumped"]
# Files that only a crashed or careless writer leaves beside its output.
LEFTOVER = re.compile(r"(\.tmp-\d+|-journal|-wal|-shm)$")
# What opening a trace read-only must not create beside it, even for a moment.
SIDECAR_RW = re.compile(r"\.db-(wal|shm|journal)$")
RUNAWAY_SQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"


class Context:
    def __init__(self, args):
        self.pto = os.path.abspath(args.pto)
        self.studio = os.path.abspath(args.studio) if args.studio else None
        self.repro = os.path.abspath(args.repro_dir)
        self.source = os.path.abspath(args.source_dir)
        self.rss_only = args.rss_only
        self.only = args.only
        self.time_limit = args.time_limit
        self.failures = []
        self.sidecars_seen = set()  # -wal/-shm names that appeared beside a trace while a tool ran
        self.checked = 0


class Case:
    """One reproducer: the inputs copied into its directory and what runs on them."""

    def __init__(self, name, inputs=(), fifos=(), make=None, prepare=None):
        self.name = name
        self.inputs = list(inputs)  # paths to copy (files; with their sidecars)
        self.fifos = list(fifos)  # names of FIFOs to create in the case directory
        self.prepare = prepare  # callable(dir) that makes further inputs
        self.make = make  # callable(ctx, case, dir) that runs the commands and checks


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def limit_memory(rss_only):
    def apply():
        os.setsid()
        if not rss_only:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run(ctx, cwd, argv, timeout=None, kill_after=None):
    """Runs argv in cwd; returns (rc or -signal or None on timeout, stderr text, seconds, rss)."""
    env = dict(os.environ, TMPDIR=os.path.join(cwd, "tmpdir"), QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=os.path.join(cwd, ".config"),
               XDG_CACHE_HOME=os.path.join(cwd, ".cache"),
               XDG_RUNTIME_DIR=os.path.join(cwd, ".runtime"), HOME=cwd)
    for key in ("TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        os.makedirs(env[key], mode=0o700, exist_ok=True)
    timeout = timeout or ctx.time_limit
    before = set(os.listdir(cwd))
    with open(os.path.join(cwd, ".stderr"), "w+b") as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=limit_memory(ctx.rss_only))
        status, rss, timed_out, signalled = None, 0, False, False
        while status is None:
            ctx.sidecars_seen.update(n for n in set(os.listdir(cwd)) - before
                                     if SIDECAR_RW.search(n))
            pid, st, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status, rss = st, usage.ru_maxrss * 1024
                break
            elapsed = time.monotonic() - start
            if kill_after and not signalled and elapsed >= kill_after[0]:
                os.kill(proc.pid, kill_after[1])
                signalled = True
            if elapsed > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        proc.returncode = 0  # reaped above; keep Popen from waiting again
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if timed_out:
        return None, stderr, seconds, rss
    rc = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return rc, stderr, seconds, rss


def fail(ctx, case, what, reason, stderr=""):
    tail = " | ".join(line for line in stderr.strip().splitlines()[-3:])
    ctx.failures.append(f"{case.name}: {what}: {reason}" + (f"  [stderr: {tail}]" if tail else ""))


EXCERPT_LINE = re.compile(r"^(\d+| +) \| ")  # the source line and caret under a compile error


def is_clear_error(tool, stderr):
    """One line naming the problem: `error: ...` / `file:line:col: error: ...` from pto (a
    compile error followed by its source line and caret, which are not counted), `pto-studio:
    ...` from the GUI (which may print Qt's own warnings besides)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not EXCERPT_LINE.match(line)]
    if tool == "studio":
        return any(line.startswith("pto-studio: ") and len(line) > 20 for line in lines)
    return len(lines) == 1 and re.match(r"^(\S+: )?error: \S.{8,}", lines[0]) is not None


def check(ctx, case, cwd, tool, args, allowed=(EXIT_OK, EXIT_USAGE), must=None):
    """Runs one command and checks it; returns its exit code (None on timeout)."""
    binary = ctx.studio if tool == "studio" else ctx.pto
    what = " ".join([os.path.basename(binary)] + args)
    ctx.checked += 1
    rc, stderr, seconds, rss = run(ctx, cwd, [binary] + args)
    if rc is None:
        fail(ctx, case, what, f"still running after {ctx.time_limit:.0f} s (killed)", stderr)
        return None
    if rc < 0:
        fail(ctx, case, what, f"killed by signal {signal.Signals(-rc).name}", stderr)
        return rc
    if must is not None and rc != must:
        fail(ctx, case, what, f"exit {rc}, expected {must}", stderr)
    elif rc not in allowed:
        fail(ctx, case, what, f"exit {rc}, expected one of {list(allowed)}", stderr)
    if rc not in (EXIT_OK, EXIT_FINDINGS) and not is_clear_error(tool, stderr):
        fail(ctx, case, what, f"exit {rc} without a clear one-line error on stderr", stderr)
    bad = [p for p in FORBIDDEN_STDERR if p in stderr]
    if bad:
        fail(ctx, case, what, f"stderr shows an internal failure ({bad[0]})", stderr)
    if rss > MEMORY_LIMIT:
        fail(ctx, case, what, f"peak RSS {rss >> 20} MiB > {MEMORY_LIMIT >> 20} MiB", stderr)
    return rc


# ---- what runs on each kind of input ------------------------------------------------------

def trace_commands(ctx, case, cwd, trace):
    """What the README lists for a trace: every reading tool, and pto-studio offscreen."""
    check(ctx, case, cwd, "pto", ["info", trace])
    check(ctx, case, cwd, "pto", ["report", trace, "--no-store", "--exit-zero"])
    check(ctx, case, cwd, "pto", ["query", trace, "SELECT count(*) FROM slice"])
    for fmt, out in (("html", "x.html"), ("chrome", "x.json"), ("csv", "x.csv")):
        check(ctx, case, cwd, "pto", ["export", trace, "--format", fmt, "-o", out])
    if ctx.studio:
        check(ctx, case, cwd, "studio", ["--screenshot", "shots", trace])


def program_commands(ctx, case, cwd, program):
    """A .pto program: compile it and run it (a bad or oversized one is a clean exit 2)."""
    check(ctx, case, cwd, "pto", ["compile", program, "-o", "compiled.db"])
    check(ctx, case, cwd, "pto", ["run", program, "--seed", "1", "-o", "run.db"])


def listing_commands(ctx, case, cwd, listing):
    """A .ptoasm listing: run it; if it ran, its CSV export must hold no live formula."""
    if check(ctx, case, cwd, "pto", ["run", listing, "--seed", "1", "-o", "run.db"]) != EXIT_OK:
        return
    if check(ctx, case, cwd, "pto", ["export", "run.db", "--format", "csv", "-o", "run.csv"]) == 0:
        check_csv_neutral(ctx, case, os.path.join(cwd, "run.csv"))


def check_csv_neutral(ctx, case, path):
    """OWASP CSV injection: no cell may start with = + - @ TAB CR unless it is a number."""
    import csv
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row_no, row in enumerate(csv.reader(f), 1):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not is_number(cell):
                    fail(ctx, case, "export --format csv",
                         f"row {row_no}: cell {cell[:40]!r} would run as a spreadsheet formula")
                    return


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def npy_commands(ctx, case, cwd, npy, good):
    """A .npy file: `pto diff` must agree with NumPy on whether the file is valid."""
    import numpy as np
    try:
        np.load(os.path.join(cwd, npy), allow_pickle=False)
        numpy_accepts = True
    except Exception:  # noqa: BLE001 - any refusal by NumPy means the file is invalid
        numpy_accepts = False
    if numpy_accepts:
        check(ctx, case, cwd, "pto", ["diff", npy, good], allowed=(EXIT_OK, EXIT_FINDINGS))
    else:
        check(ctx, case, cwd, "pto", ["diff", npy, good], must=EXIT_USAGE)
        check(ctx, case, cwd, "pto", ["diff", good, npy], must=EXIT_USAGE)


def runaway_query(ctx, case, cwd):
    """c4_runaway_query.sh: an endless recursive CTE must hit pto query's time limit."""
    check(ctx, case, cwd, "pto", ["query", "c4_trace.db", RUNAWAY_SQL], must=EXIT_USAGE)


def killed_runs(ctx, case, cwd):
    """c6_sigkill_leftovers.sh: a run killed by SIGINT/SIGTERM removes its temp file at once; after
    a SIGKILL the next run writing the same trace removes the dead run's temp file; the trace is
    complete throughout (the old one, or the next run's)."""
    program = os.path.join(ctx.source, "samples", "gemm_4096.pto")
    args = ["run", program, "--timing-only", "--trace", "full", "-o", "t.db"]
    rc, stderr, _, _ = run(ctx, cwd, [ctx.pto] + args, timeout=120)
    if rc != 0:
        fail(ctx, case, "pto " + " ".join(args), f"making the first trace: exit {rc}", stderr)
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        what = f"pto run ... -o t.db, {sig.name} after 1.5 s"
        rc, stderr, _, _ = run(ctx, cwd, [ctx.pto] + args, kill_after=(1.5, sig))
        if rc is None:
            fail(ctx, case, what, f"still running {ctx.time_limit:.0f} s after {sig.name}", stderr)
        if sig == signal.SIGKILL:  # the next run writing t.db must clean up after the dead one
            check(ctx, case, cwd, "pto", ["run", os.path.join(ctx.source, "samples", "gelu.pto"),
                                          "--timing-only", "-o", "t.db"], must=EXIT_OK)
        left = sorted(n for n in os.listdir(cwd) if ".tmp-" in n)
        if left:
            fail(ctx, case, what, "left behind " + ", ".join(left))
            for name in left:
                os.remove(os.path.join(cwd, name))
        check(ctx, case, cwd, "pto", ["info", "t.db"], must=EXIT_OK)


def richtext_runs(ctx, case, cwd):
    """c5_gui_richtext/: traces whose program and arch names are HTML must open cleanly."""
    check(ctx, case, cwd, "pto", ["run", "prog.pto", "--arch", "arch.txt", "-o", "t.db",
                                  "--trace", "full"], must=EXIT_OK)
    check(ctx, case, cwd, "pto", ["run", "inj.ptoasm", "-o", "inj.db", "--trace", "full"],
          must=EXIT_OK)
    if ctx.studio:
        for trace in ("t.db", "inj.db"):
            check(ctx, case, cwd, "studio", ["--screenshot", "shots-" + trace, trace])


# ---- the cases --------------------------------------------------------------------------

SIDECAR = re.compile(r"\.db(-wal|-shm|\.layout-cache)$")


def file_case(ctx, path):
    """The case of one reproducer file, chosen by its extension (None: not a reproducer)."""
    name = os.path.basename(path)
    base = os.path.splitext(name)[0]
    if name == "c4_runaway_query.sh":
        return Case(name, [os.path.join(ctx.repro, "c4_trace.db")],
                    make=lambda c, k, d: runaway_query(c, k, d))
    if name == "c6_sigkill_leftovers.sh":
        return Case(name, make=lambda c, k, d: killed_runs(c, k, d))
    if name.endswith(".db"):
        return Case(name, [path], make=lambda c, k, d: trace_commands(c, k, d, name))
    if name.endswith(".pto"):
        return Case(name, [path], make=lambda c, k, d: program_commands(c, k, d, name))
    if name.endswith(".ptoasm"):
        return Case(name, [path], make=lambda c, k, d: listing_commands(c, k, d, name))
    if name.endswith(".npy") and base != "c3_good_a":
        good = os.path.join(ctx.repro, "c3_good_a.npy")
        return Case(name, [path, good],
                    make=lambda c, k, d: npy_commands(c, k, d, name, "c3_good_a.npy"))
    return None


def directory_case(ctx, path):
    name = os.path.basename(path) + "/"
    files = [os.path.join(path, n) for n in sorted(os.listdir(path))]
    if name == "c5_gui_richtext/":
        return Case(name, files, make=lambda c, k, d: richtext_runs(c, k, d))
    traces = [os.path.basename(f) for f in files if f.endswith(".db")]

    def run_all(c, k, d):
        for trace in traces:
            trace_commands(c, k, d, trace)
    return Case(name, files, make=run_all)


def make_wal_trace(cwd):
    """A read-only copy of c4_trace.db switched to WAL mode: opening it must create nothing."""
    import sqlite3
    path = os.path.join(cwd, "wal.db")
    os.rename(os.path.join(cwd, "c4_trace.db"), path)
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP)


def made_cases(ctx):
    """Inputs the reproducer directory cannot hold: FIFOs, and a trace in WAL mode."""
    good = os.path.join(ctx.repro, "c3_good_a.npy")
    return [
        Case("wal.db (WAL-mode copy of c4_trace.db)", [os.path.join(ctx.repro, "c4_trace.db")],
             prepare=make_wal_trace, make=lambda c, k, d: trace_commands(c, k, d, "wal.db")),
        Case("fifo.db (FIFO)", fifos=["fifo.db"],
             make=lambda c, k, d: trace_commands(c, k, d, "fifo.db")),
        Case("fifo.npy (FIFO)", [good], fifos=["fifo.npy"],
             make=lambda c, k, d: [check(c, k, d, "pto", ["diff", "fifo.npy", "c3_good_a.npy"],
                                         must=EXIT_USAGE),
                                   check(c, k, d, "pto", ["diff", "c3_good_a.npy", "fifo.npy"],
                                         must=EXIT_USAGE)]),
    ]


def all_cases(ctx):
    cases, unknown = [], []
    for name in sorted(os.listdir(ctx.repro)):
        path = os.path.join(ctx.repro, name)
        if name == "README.txt" or SIDECAR.search(name) or name == "c3_good_a.npy":
            continue
        case = directory_case(ctx, path) if os.path.isdir(path) else file_case(ctx, path)
        if case is None:
            unknown.append(name)
        else:
            cases.append(case)
    return cases + made_cases(ctx), unknown


def copy_input(src, dst_dir):
    """Copies src (and its layout-cache sidecar) read-only, as shared traces often are; the
    mtime is kept, so the sidecar stays valid for pto-studio."""
    for path in (src, src + ".layout-cache"):
        if os.path.exists(path):
            shutil.copy2(path, dst_dir)
            os.chmod(os.path.join(dst_dir, os.path.basename(path)), stat.S_IRUSR | stat.S_IRGRP)


def run_case(ctx, case):
    before = len(ctx.failures)
    with tempfile.TemporaryDirectory(prefix="pto-repro-") as cwd:
        for src in case.inputs:
            copy_input(src, cwd)
        for fifo in case.fifos:
            os.mkfifo(os.path.join(cwd, fifo))
        if case.prepare:
            case.prepare(cwd)
        # The bytes of every input trace, to compare after all tools have read it.
        traces = {n: sha256(os.path.join(cwd, n)) for n in os.listdir(cwd)
                  if n.endswith(".db") and stat.S_ISREG(os.lstat(os.path.join(cwd, n)).st_mode)}
        present = set(os.listdir(cwd))
        ctx.sidecars_seen = set()
        case.make(ctx, case, cwd)
        created = sorted(ctx.sidecars_seen - present)
        if created:
            fail(ctx, case, "while the tools ran", "created " + ", ".join(created) +
                 " beside the trace (a read-only open must not write)")
        for name, digest in traces.items():
            if sha256(os.path.join(cwd, name)) != digest:
                fail(ctx, case, name, "the trace's bytes changed")
        new = sorted(n for n in set(os.listdir(cwd)) - present if LEFTOVER.search(n))
        if new:
            fail(ctx, case, "after all commands", "left behind " + ", ".join(new))
        tmp = os.path.join(cwd, "tmpdir")
        if os.path.isdir(tmp) and os.listdir(tmp):
            fail(ctx, case, "after all commands", "left in TMPDIR: " + ", ".join(os.listdir(tmp)))
    return len(ctx.failures) == before


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pto", required=True)
    parser.add_argument("--studio", default="")
    parser.add_argument("--repro-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT_S,
                        help="seconds per command (default 10)")
    parser.add_argument("--rss-only", action="store_true",
                        help="check peak RSS but set no address-space limit (sanitizer builds)")
    ctx = Context(parser.parse_args())
    if not os.path.isdir(ctx.repro):
        print(f"no reproducer directory {ctx.repro}", file=sys.stderr)
        return 1
    cases, unknown = all_cases(ctx)
    for name in unknown:
        ctx.failures.append(f"{name}: no rule in run_repros.py says how to run this reproducer")
    for case in cases:
        if ctx.only not in case.name:
            continue
        start = time.monotonic()
        ok = run_case(ctx, case)
        print(f"{'PASS' if ok else 'FAIL'}  {case.name}  ({time.monotonic() - start:.1f} s)",
              flush=True)
    print(f"\n{ctx.checked} command(s) checked, {len(ctx.failures)} failure(s)")
    for line in ctx.failures:
        print("  " + line)
    return 1 if ctx.failures else 0


if __name__ == "__main__":
    sys.exit(main())
