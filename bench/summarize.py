#!/usr/bin/env python3
"""Prints the figures of docs/PERFORMANCE.md from Google Benchmark JSON files.

Usage: summarize.py FIGURES.json RESULTS_DIR
RESULTS_DIR holds one <bench>.json per benchmark binary (--benchmark_format=json with
repetitions). Each figure is the median over the repetitions; where a figure has a baseline
measured side by side, the ratio says how many times better ours is.
"""
import json
import statistics
import sys
from pathlib import Path


def base_name(run_name):
    """BM_X/arg:1/iterations:3/real_time -> BM_X/arg:1 (the options are not part of the name)."""
    parts = [p for p in run_name.split("/")
             if not p.startswith(("iterations:", "repeats:", "min_time:"))
             and p not in ("real_time", "manual_time", "process_time")]
    return "/".join(parts)


def load_runs(results_dir):
    """{bench: {run_name: [entries of the individual repetitions]}}"""
    runs = {}
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            print(f"{path}: unreadable benchmark output: {error}", file=sys.stderr)
            continue
        per_run = runs.setdefault(path.stem, {})
        for entry in data.get("benchmarks", []):
            if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
                continue
            per_run.setdefault(base_name(entry.get("run_name", entry["name"])), []).append(entry)
    return runs


def median_of(entries, key):
    values = [float(e[key]) for e in entries if key in e]
    return (statistics.median(values), len(values)) if values else (None, 0)


def human(value, unit):
    if value is None:
        return "n/a"
    if unit == "/s":
        for scale, suffix in ((1e9, " G/s"), (1e6, " M/s"), (1e3, " k/s")):
            if abs(value) >= scale:
                return f"{value / scale:.3g}{suffix}"
        return f"{value:.3g}/s"
    return f"{value:.4g} {unit}"


def ratio_of(value, base, better):
    if value is None or base is None or value == 0 or base == 0:
        return None
    return value / base if better == "higher" else base / value


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    figures = json.loads(Path(sys.argv[1]).read_text())["figures"]
    runs = load_runs(sys.argv[2])
    print(f"{'figure':58} {'median':>12} {'n':>2}  {'baseline':>12}  {'ratio':>6}  target")
    for fig in figures:
        entries = runs.get(fig["bench"], {}).get(fig["run"], [])
        value, count = median_of(entries, fig["value"])
        base_text, ratio_text = "", ""
        if "baseline" in fig:
            base = fig["baseline"]
            base_entries = runs.get(base.get("bench", fig["bench"]), {}).get(base["run"], [])
            base_value, _ = median_of(base_entries, base["value"])
            base_text = human(base_value, fig["unit"])
            ratio = ratio_of(value, base_value, fig.get("better", "higher"))
            ratio_text = f"{ratio:.2f}x" if ratio else "n/a"
        print(f"{fig['figure'][:58]:58} {human(value, fig['unit']):>12} {count:>2}  "
              f"{base_text:>12}  {ratio_text:>6}  {fig.get('target', '')}")
        if "baseline" in fig:
            print(f"{'':58} {'':>12} {'':>2}  ^ {fig['baseline']['label']}")


if __name__ == "__main__":
    main()
