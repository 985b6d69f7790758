#!/usr/bin/env python3
"""Whether each planted bug keeps one identity across seeds, and whether two
bugs ever share one: what a baseline (`--baseline`) matches findings by.

    bench/eval_identity.py [--dualfuzz build/cli/dualfuzz] [--seeds 5]
                           [--seconds 10] [--parallel 2] [--bugs a,b]
                           [--raw FILE]

Per planted bug (`dualfuzz bugs`) and seed: `dualfuzz fuzz --target
inprocess:<bug> --keep-going --json` for --seconds; the identities of its
findings (violations and deaths; races, findings classed not linearizable,
are reported apart by `dualfuzz fuzz` and counted apart here). Per bug it prints the identities every
seed found (the bug's own), those only some seeds found (what a baseline
recorded on one seed would miss on another), and whether the first finding
of every seed had one identity. Then the identities two bugs share. One JSON
object per run goes to --raw.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import ROOT, last_json  # noqa: E402
from eval_crashonly import list_bugs  # noqa: E402


def one_run(exe, bug, seed, seconds):
    cmd = [exe, "fuzz", "--target", f"inprocess:{bug}", "--seed", str(seed), "--seconds",
           str(seconds), "--keep-going", "--json", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 300)
    j = last_json(p.stdout) or {}
    found = []
    for key in ("violations", "findings"):
        for f in j.get(key, []):
            if f.get("identity"):
                found.append((f.get("first_seconds", 0.0), f["identity"]))
    found.sort()
    races = {f["identity"] for f in j.get("races", []) if f.get("identity")}
    return {"bug": bug, "seed": seed, "seconds": seconds, "exit": p.returncode,
            "executions": j.get("executions"), "identities": sorted({i for _, i in found}),
            "races": sorted(races), "first": found[0][1] if found else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--bugs", default="")
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/identity.jsonl"))
    a = ap.parse_args()
    names = a.bugs.split(",") if a.bugs else [n for n, _ in list_bugs(a.dualfuzz)]
    os.makedirs(os.path.dirname(a.raw), exist_ok=True)
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{os.cpu_count()} cores, load average {' '.join(load)}; {a.dualfuzz}; "
          f"{a.seeds} seeds x {a.seconds:g} s, {a.parallel} at a time", flush=True)
    jobs = [(b, s) for b in names for s in range(1, a.seeds + 1)]
    runs = collections.defaultdict(list)
    with open(a.raw, "a") as raw, \
            concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        for r in pool.map(lambda j: one_run(a.dualfuzz, j[0], j[1], a.seconds), jobs):
            raw.write(json.dumps(r) + "\n")
            raw.flush()
            runs[r["bug"]].append(r)
    print("| bug | seeds that found it | identities in every seed | in some seeds only "
          "| first finding's identity the same in every seed | race identities |")
    print("| --- | --- | --- | --- | --- | --- |")
    owners = collections.defaultdict(set)
    totals = collections.Counter()
    for bug in names:
        rs = runs[bug]
        sets = [set(r["identities"]) for r in rs]
        hit = [s for s in sets if s]
        every = set.intersection(*hit) if hit else set()
        some = set.union(*sets) - every if sets else set()
        firsts = {r["first"] for r in rs if r["first"]}
        races = set().union(*[set(r.get("races", [])) for r in rs])
        same_first = len(firsts) == 1 and len(hit) == len(rs)
        for i in set.union(*sets) if sets else set():
            owners[i].add(bug)
        totals["bugs"] += 1
        totals["found_every_seed"] += len(hit) == len(rs)
        totals["one_core"] += len(every) >= 1
        totals["noise"] += len(some)
        totals["same_first"] += same_first
        print(f"| {bug} | {len(hit)}/{len(rs)} | {len(every)} | {len(some)} | "
              f"{'yes' if same_first else 'no: ' + '; '.join(sorted(firsts))} | "
              f"{len(races)} |", flush=True)
        for i in sorted(some):
            print(f"|   | | | {i} | | |")
    shared = {i: b for i, b in owners.items() if len(b) > 1}
    print(f"\n{totals['found_every_seed']}/{totals['bugs']} bugs found by every seed; "
          f"{totals['one_core']}/{totals['bugs']} with an identity every seed found; "
          f"{totals['same_first']}/{totals['bugs']} whose first finding had one identity "
          f"in every seed; {totals['noise']} identities found by some seeds only; "
          f"{len(shared)} identities shared by two bugs or more")
    for i, b in sorted(shared.items()):
        print(f"  shared: {i}  <- {', '.join(sorted(b))}")


if __name__ == "__main__":
    sys.exit(main())
