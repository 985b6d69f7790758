#!/usr/bin/env python3
"""`dualfuzz fuzz --jobs N` at 1 and 2 (or more) workers, in one run.

    bench/eval_jobs.py [--jobs 1,2] [--seeds 2] [--seconds 30] [--clean-seconds 30]
                       [--bugs a,b] [--dualfuzz build/cli/dualfuzz] [--raw FILE]

Two measurements, the worker counts alternating so that the machine's load
falls on each alike:
  1. throughput: the correct reference server (inprocess, no bug) for
     --clean-seconds per worker count: executions, wall and CPU seconds
     (user + system of dualfuzz and its workers), executions per wall second
     and per CPU second, and the per-worker overhead (CPU not spent by one
     worker alone);
  2. time to each planted bug (`dualfuzz bugs`): --seeds seeds per bug and
     worker count, --seconds budget each; the wall time of the whole
     command until it stopped on the bug (start-up and the other workers'
     stop included), and whether it was found.
The concurrency bugs run with --stop-on-races (their findings are races),
as bench/eval_blackbox.py runs them. Prints a table per measurement and the
ratios; one JSON object per run goes to --raw.
"""
import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import ROOT, last_json  # noqa: E402
from eval_crashonly import list_bugs  # noqa: E402


def run(cmd):
    """cmd's --json line, its wall seconds and its CPU seconds (children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, last_json(p.stdout), wall, cpu


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--clean-seconds", type=float, default=30)
    ap.add_argument("--clean-rounds", type=int, default=2)
    ap.add_argument("--bugs", default="")
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/jobs.jsonl"))
    a = ap.parse_args()
    jobs = [int(j) for j in a.jobs.split(",")]
    os.makedirs(os.path.dirname(a.raw), exist_ok=True)
    raw = open(a.raw, "a")
    load = open("/proc/loadavg").read().split()[:3]
    print(f"machine: {os.cpu_count()} cores, load average before: {' '.join(load)}")

    # 1. Throughput on the correct server.
    clean = {j: [] for j in jobs}
    for rnd in range(a.clean_rounds):
        for j in (jobs if rnd % 2 == 0 else list(reversed(jobs))):
            rc, s, wall, cpu = run([a.dualfuzz, "fuzz", "--target", "inprocess",
                                    "--seconds", str(a.clean_seconds), "--seed", str(rnd + 1),
                                    "--connections", str(a.connections), "--jobs", str(j),
                                    "--json", "-q"])
            ex = s["executions"] if s else 0
            row = {"kind": "clean", "jobs": j, "round": rnd, "rc": rc, "executions": ex,
                   "wall": wall, "cpu": cpu, "violation": bool(s and s.get("violation"))}
            raw.write(json.dumps(row) + "\n")
            clean[j].append(row)
    print(f"\nthroughput, correct server, {a.clean_seconds:g} s x {a.clean_rounds} rounds:")
    print("| workers | executions | exec/s (wall) | exec per CPU s | CPU s per wall s | false alarms |")
    print("| --- | --- | --- | --- | --- | --- |")
    base = None
    for j in jobs:
        rows = clean[j]
        per_wall = median([r["executions"] / r["wall"] for r in rows])
        per_cpu = median([r["executions"] / r["cpu"] for r in rows if r["cpu"] > 0])
        busy = median([r["cpu"] / r["wall"] for r in rows])
        alarms = sum(r["violation"] or r["rc"] != 0 for r in rows)
        print(f"| {j} | {median([r['executions'] for r in rows]):.0f} | {per_wall:.0f} |"
              f" {per_cpu:.0f} | {busy:.2f} | {alarms} |")
        if base is None:
            base = (per_wall, per_cpu)
        else:
            print(f"|   | ×{per_wall / base[0]:.2f} of 1 worker | | "
                  f"overhead per extra worker: {100 * (1 - per_cpu / base[1]) / (j - 1):.1f} % of CPU | | |")

    # 2. Time to each planted bug.
    listed = list_bugs(a.dualfuzz)
    names = a.bugs.split(",") if a.bugs else [name for name, _ in listed]
    # (whose findings are races: run with --stop-on-races)
    racy = {name for name, cat in listed if cat == "concurrency"}
    found = {j: 0 for j in jobs}
    times = {j: [] for j in jobs}
    per_bug = []
    for name in names:
        row_bug = {"bug": name}
        for seed in range(1, a.seeds + 1):
            for j in (jobs if seed % 2 else list(reversed(jobs))):
                cmd = [a.dualfuzz, "fuzz", "--target", f"inprocess:{name}", "--seconds",
                       str(a.seconds), "--seed", str(seed), "--connections",
                       str(a.connections), "--jobs", str(j), "--json", "-q"]
                if name in racy:
                    cmd.append("--stop-on-races")
                rc, s, wall, cpu = run(cmd)
                hit = rc == 1 and bool(s and s.get("violation"))
                raw.write(json.dumps({"kind": "bug", "bug": name, "jobs": j, "seed": seed,
                                      "rc": rc, "found": hit, "wall": wall, "cpu": cpu,
                                      "executions": s.get("executions") if s else None}) + "\n")
                if hit:
                    found[j] += 1
                    times[j].append(wall)
                row_bug.setdefault(j, []).append(wall if hit else None)
        per_bug.append(row_bug)
        print(f"  {name}: " + "  ".join(
            f"{j}w " + ",".join("-" if t is None else f"{t:.1f}" for t in row_bug[j])
            for j in jobs), flush=True)
    runs = len(names) * a.seeds
    print(f"\ntime to each planted bug ({len(names)} bugs x {a.seeds} seeds, {a.seconds:g} s budget;"
          " wall seconds of the whole command):")
    print("| workers | found | median | mean | 90th percentile | max |")
    print("| --- | --- | --- | --- | --- | --- |")
    for j in jobs:
        t = sorted(times[j])
        p90 = t[math.ceil(0.9 * len(t)) - 1] if t else float("nan")  # (nearest rank)
        print(f"| {j} | {found[j]}/{runs} | {median(t):.2f} | "
              f"{(sum(t) / len(t) if t else float('nan')):.2f} | {p90:.2f} | "
              f"{(max(t) if t else float('nan')):.2f} |")
    # Per bug found by every seed at each count: the ratio of the sums.
    both = [b for b in per_bug if all(None not in b[j] for j in jobs)]
    if len(jobs) > 1 and both:
        sums = {j: sum(sum(b[j]) for b in both) for j in jobs}
        print(f"bugs every run found ({len(both)}): total wall " + ", ".join(
            f"{j} workers {sums[j]:.1f} s" for j in jobs) +
            f"; ratio {sums[jobs[0]] / sums[jobs[-1]]:.2f}")
    load = open("/proc/loadavg").read().split()[:3]
    print(f"load average after: {' '.join(load)}")


if __name__ == "__main__":
    sys.exit(main())
