#!/usr/bin/env python3
"""Runs the README's "Then try" commands in order, as a newcomer types them, and checks each
one works: exit 0 (or 1 for `pto report`, a finding that is a warning or worse, and for `pto
diff`, a divergence found: the README's bisect plants one).

Usage: readme_commands_test.py PTO_BINARY SOURCE_DIR

The commands run after the demo (.ci/demo), which leaves out/, in a scratch directory that sees the repository's samples/ and tests/ and
../shared through symlinks, so the outputs (out/, my.arch) never land in the source tree.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def readme_commands(source_dir):
    text = open(os.path.join(source_dir, "README.md"), encoding="utf-8").read()
    block = re.search(r"Then try:\s*```sh\n(.*?)```", text, re.S)
    if not block:
        sys.exit("README.md has no ```sh block after 'Then try:'")
    commands = []
    for line in block.group(1).splitlines():
        line = line.split("   #")[0].strip()  # the README's comments follow three spaces
        if line:
            commands.append(line)
    return commands


def main():
    pto, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="pto-readme-") as tmp:
        work = os.path.join(tmp, "repo")
        os.mkdir(work)
        for name in ("samples", "tests"):
            os.symlink(os.path.join(source_dir, name), os.path.join(work, name))
        os.symlink(os.path.join(source_dir, "..", "shared"), os.path.join(tmp, "shared"))
        os.mkdir(os.path.join(work, "out"))  # the demo before them leaves out/
        failures = []
        for command in readme_commands(source_dir):
            words = shlex.split(command)
            redirect = None
            if ">" in words:
                at = words.index(">")
                redirect, words = words[at + 1], words[:at]
            if words[0] != "build/dev/cli/pto":
                failures.append(f"{command}: not a pto command")
                continue
            args = [pto] + words[1:]
            out = open(os.path.join(work, redirect), "w") if redirect else subprocess.PIPE
            r = subprocess.run(args, cwd=work, stdout=out, stderr=subprocess.PIPE, text=True,
                               timeout=600)
            allowed = (0, 1) if words[1] in ("report", "diff") else (0,)
            status = "ok" if r.returncode in allowed else "FAILED"
            print(f"[{status}] exit {r.returncode}: {command}")
            if r.returncode not in allowed:
                failures.append(f"{command}: exit {r.returncode}\n{r.stderr.strip()}")
        if failures:
            print("\n".join(["README commands that do not work:"] + failures))
            return 1
    print("every README command worked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
