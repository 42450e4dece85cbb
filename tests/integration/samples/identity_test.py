#!/usr/bin/env python3
"""The bit-identity check checks: a manifest recorded by identity.py compares identical with a
second run, and a manifest whose cycles or output hash differ makes `compare` fail naming it."""
import json
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).with_name("identity.py")


def identity(pto: str, mode: str, manifest: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), mode, "--pto", pto, "--manifest",
                           str(manifest), "--only", "matmul"], capture_output=True, text=True)


def main() -> int:
    pto = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="pto-identity-test-") as tmp:
        manifest = pathlib.Path(tmp) / "m.json"
        r = identity(pto, "record", manifest)
        assert r.returncode == 0, r.stdout + r.stderr
        entry = json.loads(manifest.read_text())["matmul"]
        assert entry["total_cycles"] > 0 and len(entry["outputs"]) == 1, entry
        r = identity(pto, "compare", manifest)
        assert r.returncode == 0 and "identical" in r.stdout, r.stdout + r.stderr

        entry["total_cycles"] += 1
        entry["outputs"] = {name: "0" * 64 for name in entry["outputs"]}
        manifest.write_text(json.dumps({"matmul": entry}))
        r = identity(pto, "compare", manifest)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "DIFF matmul: total_cycles" in r.stdout, r.stdout
        assert "DIFF matmul: output" in r.stdout, r.stdout
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
