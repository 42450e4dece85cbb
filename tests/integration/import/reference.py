#!/usr/bin/env python3
"""Independent reference figures for the pto import tests, from the profiler's own files.

  reference.py kernels kernel_details.csv   -> {"count", "total_ns", "top_name", "top_ns", "names"}
  reference.py bounds kernel_details.csv    -> [{"name", "dur_ns", "bound"}]
  reference.py db ascend_pytorch_profiler.db -> {"count", "total_ns", "top_name", "top_ns", "names"}
  reference.py match kernel_details.csv TYPE SHAPE -> {"count", "median_us", "pipes"}: the kernels
      of that Type whose first output shape is SHAPE; pipes = duration-weighted busy fractions
  reference.py span kernel_details.csv      -> {"first_start_ns", "last_end_ns", "span_ns",
      "kernel_ns", "kernels"}: the run of the kernels, first start to last end (epoch ns), and their time
  reference.py ints kernel_details.csv      -> [{"name", "start_ns", KEY: int}] per kernel, KEY
      the integer columns (Step Id, Model ID, Task ID, Block Dim, aic/aiv_total_cycles) as args
  reference.py db_cycles profiler.db        -> {"aic_total_cycles", "aiv_total_cycles"}: sums
      over the compute tasks' TASK_PMU_INFO rows

  reference.py db_other_tasks profiler.db   -> {"count", "max_ns", "types"}: the TASK rows with no
      COMPUTE_TASK_INFO row (copies, waits, event records, …), their longest duration and count
      per task type name

Device kernels are the compute tasks: kernel_details.csv rows whose Accelerator Core is not
HCCL (those are communication ops), or the .db's COMPUTE_TASK_INFO rows. Durations are whole
nanoseconds (microseconds x 1000, rounded), as the trace stores them.
"""
import csv
import json
import sqlite3
import sys
from decimal import Decimal, ROUND_HALF_UP

THRESHOLD = 0.8  # kPipeThreshold, docs/PROFILER.md


def ns(text):
    return int((Decimal(text.strip()) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def compute_rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["Accelerator Core"] != "HCCL"]


def summary(pairs):
    top = max(pairs, key=lambda p: p[1])
    return {"count": len(pairs), "total_ns": sum(p[1] for p in pairs), "top_name": top[0],
            "top_ns": top[1], "names": sorted(p[0] for p in pairs)}


def ratio(row, key):
    try:
        return float(row.get(key, "0"))
    except ValueError:
        return 0.0


def pipe_ratios(row):
    """Busy fraction per pipe, S, MTE1, MTE2, MTE3, M, FIX, V (the profiler's order)."""
    return {
        "S": max(ratio(row, "aic_scalar_ratio"), ratio(row, "aiv_scalar_ratio")),
        "MTE1": ratio(row, "aic_mte1_ratio"),
        "MTE2": max(ratio(row, "aic_mte2_ratio"), ratio(row, "aiv_mte2_ratio")),
        "MTE3": ratio(row, "aiv_mte3_ratio"),
        "M": ratio(row, "aic_mac_ratio"),
        "FIX": ratio(row, "aic_fixpipe_ratio"),
        "V": ratio(row, "aiv_vec_ratio"),
    }


def bound(row):
    pipes = pipe_ratios(row)  # in the profiler's pipe order, which decides ties
    if any(abs(v - THRESHOLD) < 0.002 for v in pipes.values()):
        return None  # too close to the threshold to call
    busiest = max(pipes, key=lambda k: pipes[k])  # first of equals, like std::max_element
    if pipes[busiest] < THRESHOLD:
        return "latency (pipeline)"
    if busiest in ("M", "V"):
        return "compute"
    if busiest == "S":
        return "latency (compute)"
    return "memory"


def match(path, op_type, shape):
    rows = [r for r in compute_rows(path)
            if r["Type"] == op_type and r["Output Shapes"].strip('"').split(";")[0] == shape]
    durations = sorted(float(r["Duration(us)"]) for r in rows)
    n = len(durations)
    median = durations[n // 2] if n % 2 else (durations[n // 2 - 1] + durations[n // 2]) / 2
    total = sum(float(r["Duration(us)"]) for r in rows)
    pipes = {}
    for key in ("S", "MTE1", "MTE2", "MTE3", "M", "FIX", "V"):
        busy = sum(pipe_ratios(r)[key] * float(r["Duration(us)"]) for r in rows)
        if busy > 0:
            pipes[key] = busy / total
    return {"count": n, "median_us": median, "pipes": pipes}


INT_COLUMNS = {"Step Id": "step_id", "Model ID": "model_id", "Task ID": "task_id",
               "Block Dim": "block_dim", "Mix Block Dim": "mix_block_dim",
               "aic_total_cycles": "aic_total_cycles", "aiv_total_cycles": "aiv_total_cycles"}


def span(path):
    rows = compute_rows(path)
    starts = [ns(r["Start Time(us)"]) for r in rows]
    ends = [s + ns(r["Duration(us)"]) for s, r in zip(starts, rows)]
    return {"first_start_ns": min(starts), "last_end_ns": max(ends),
            "span_ns": max(ends) - min(starts),
            "kernel_ns": sum(ns(r["Duration(us)"]) for r in rows), "kernels": len(rows)}


def ints(path):
    out = []
    for r in compute_rows(path):
        row = {"name": r["Name"], "start_ns": ns(r["Start Time(us)"])}
        for column, key in INT_COLUMNS.items():
            text = r.get(column, "").strip()
            if text and text != "N/A":
                row[key] = int(text)
        out.append(row)
    return out


def db_cycles(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    out = {}
    for key in ("aic_total_cycles", "aiv_total_cycles"):
        out[key] = db.execute(
            "SELECT sum(p.value) FROM TASK_PMU_INFO p JOIN STRING_IDS s ON s.id = p.name "
            "JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = p.globalTaskId WHERE s.value = ?",
            (key,)).fetchone()[0]
    return out


def db_other_tasks(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    rows = db.execute("SELECT s.value, t.endNs - t.startNs FROM TASK t JOIN STRING_IDS s "
                      "ON s.id = t.taskType WHERE t.globalTaskId NOT IN "
                      "(SELECT globalTaskId FROM COMPUTE_TASK_INFO)").fetchall()
    types = {}
    for name, _ in rows:
        types[name] = types.get(name, 0) + 1
    return {"count": len(rows), "max_ns": max(d for _, d in rows), "types": types}


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "match":
        out = match(path, sys.argv[3], sys.argv[4])
    elif what == "span":
        out = span(path)
    elif what == "ints":
        out = ints(path)
    elif what == "db_cycles":
        out = db_cycles(path)
    elif what == "db_other_tasks":
        out = db_other_tasks(path)
    elif what == "kernels":
        out = summary([(r["Name"], ns(r["Duration(us)"])) for r in compute_rows(path)])
    elif what == "bounds":
        out = [{"name": r["Name"], "dur_ns": ns(r["Duration(us)"]), "bound": bound(r)}
               for r in compute_rows(path)]
    else:
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        strings = dict(db.execute("SELECT id, value FROM STRING_IDS"))
        rows = db.execute("SELECT c.name, t.endNs - t.startNs FROM COMPUTE_TASK_INFO c "
                          "JOIN TASK t ON t.globalTaskId = c.globalTaskId").fetchall()
        out = summary([(strings[n], d) for n, d in rows])
    json.dump(out, sys.stdout)


main()
