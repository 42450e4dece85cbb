#!/usr/bin/env python3
"""Bit-identity check of the samples: runs every samples/*.pto with --seed 1 (the README's flags,
e.g. --timing-only) and records each output's sha256, the total cycles (`pto info --json`) and a
digest of `pto report --format json`, or compares a new run against a saved manifest.

  identity.py record  --pto build/dev/cli/pto --manifest base.json [--only matmul,gelu]
  identity.py compare --pto build/dev/cli/pto --manifest base.json [--only ...] [--no-report]

compare exits 1 and lists every difference when a sample's outputs, cycles or report differ.
"""
import argparse
import hashlib
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[3]


def readme_flags(samples_dir: pathlib.Path) -> dict:
    """Flags of each sample's README command besides `-o NAME.db` (e.g. --timing-only)."""
    flags = {}
    readme = (samples_dir / "README.md").read_text()
    for m in re.finditer(r"`\./cli/pto run \.\./\.\./samples/(\w+)\.pto([^`]*)`", readme, re.S):
        args = shlex.split(m.group(2))
        if "-o" in args:
            i = args.index("-o")
            del args[i:i + 2]
        flags[m.group(1)] = args
    return flags


def run(cmd: list) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"identity.py: `{shlex.join(cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def normalised_report(text: str, db: pathlib.Path) -> dict:
    """The report with the trace's path (which names the temp folder) replaced by RUN.db."""
    return json.loads(text.replace(str(db), "RUN.db"))


def report_digest(report: dict) -> str:
    return hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()


def measure(pto: str, name: str, flags: list, work: pathlib.Path, with_report: bool) -> dict:
    db, outs = work / f"{name}.db", work / f"{name}_out"
    cmd = [pto, "run", str(REPO / "samples" / f"{name}.pto"), "--seed", "1", "-o", str(db),
           "--json", *flags]
    if "--timing-only" not in flags:
        cmd += ["--outputs", str(outs)]
    summary = json.loads(run(cmd).stdout)
    info = json.loads(run([pto, "info", str(db), "--json"]).stdout)
    entry = {
        "flags": flags,
        "total_cycles": int(info["meta"]["sim_total_cycles"]),
        "instructions": summary["instructions"],
        "flops": summary["flops"],
        "gm_bytes": summary["gm_bytes"],
        "outputs": {p.name: sha256(p) for p in sorted(outs.glob("*"))} if outs.exists() else {},
    }
    if with_report:
        report = normalised_report(
            run([pto, "report", str(db), "--format", "json", "--exit-zero", "--no-store"]).stdout,
            db)
        entry["report_sha256"] = report_digest(report)
        (work / f"{name}.report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    db.unlink()
    return entry


def differences(name: str, old: dict, new: dict) -> list:
    out = []
    for key in sorted(set(old) | set(new)):
        if key == "outputs":
            continue
        if key in old and key in new and old[key] != new[key]:
            out.append(f"{name}: {key} {old[key]} -> {new[key]}")
    o, n = old.get("outputs", {}), new.get("outputs", {})
    for f in sorted(set(o) | set(n)):
        if o.get(f) != n.get(f):
            out.append(f"{name}: output {f} {o.get(f, '(missing)')[:12]} -> "
                       f"{n.get(f, '(missing)')[:12]}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["record", "compare"])
    ap.add_argument("--pto", required=True, help="the pto binary")
    ap.add_argument("--manifest", required=True, help="manifest to write (record) or read")
    ap.add_argument("--only", default="", help="comma-separated sample names (default: all)")
    ap.add_argument("--skip", default="", help="comma-separated sample names not to run")
    ap.add_argument("--no-report", action="store_true", help="skip the pto report digest")
    ap.add_argument("--keep", default="", help="keep the report JSONs in this folder")
    a = ap.parse_args()

    samples_dir = REPO / "samples"
    flags = readme_flags(samples_dir)
    names = sorted(p.stem for p in samples_dir.glob("*.pto"))
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    if a.skip:
        names = [n for n in names if n not in a.skip.split(",")]
    baseline = json.loads(pathlib.Path(a.manifest).read_text()) if a.mode == "compare" else {}
    manifest, diffs = {}, []
    with tempfile.TemporaryDirectory(prefix="pto-identity-") as tmp:
        work = pathlib.Path(a.keep) if a.keep else pathlib.Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in names:
            entry = measure(a.pto, name, flags.get(name, []), work, not a.no_report)
            manifest[name] = entry
            print(f"{name}: {entry['total_cycles']} cycles, {len(entry['outputs'])} output(s)",
                  flush=True)
            if a.mode == "compare":
                if name not in baseline:
                    diffs.append(f"{name}: not in {a.manifest}")
                else:
                    diffs += differences(name, baseline[name], entry)
    if a.mode == "record":
        pathlib.Path(a.manifest).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        print(f"wrote {a.manifest} ({len(manifest)} samples)")
        return 0
    for d in diffs:
        print("DIFF " + d)
    print("identical" if not diffs else f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
