#!/usr/bin/env python3
"""Planted bugs under libFuzzer, one process and `-fork=N`, and whether each
crash file replays: what ClusterFuzzLite does before it reports a crash.

    bench/eval_replay.py [--fuzzer build-fuzz/tests/fuzz/http_inprocess_fuzzer]
                         [--fork 2] [--seconds 30] [--reruns 5] [--bugs a,b]
                         [--raw FILE]

Per planted bug (`dualfuzz bugs`), with DUALFUZZ_BUG=<bug> (and
DUALFUZZ_STOP_ON_RACES=1 for the concurrency bugs, whose findings are races):
  1. the target alone for --seconds from corpora/fuzz/http_inprocess_fuzzer:
     found or not, wall seconds to the crash file; then the crash file run
     again --reruns times: how many re-runs abort again (the first one is
     ClusterFuzzLite's check);
  2. the same with -fork=N: found or not, wall seconds.
--fork-only skips 1 and re-runs -fork's crash file instead (a long budget per
bug, as issue 44's ten minutes, without paying it twice). $DUALFUZZ_ASSUME
and the rest of the environment pass through to the target.
Prints a table and the totals; one JSON object per bug goes to --raw.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import ROOT  # noqa: E402
from eval_crashonly import list_bugs  # noqa: E402


def fuzz(fuzzer, env, corpus, work, seconds, fork):
    """(found, wall seconds, crash file) of one libFuzzer session."""
    for f in glob.glob(os.path.join(work, "crash-*")):
        os.remove(f)
    cmd = [fuzzer, f"-max_total_time={int(seconds)}", "-max_len=4096",
           f"-artifact_prefix={work}/", "-print_final_stats=0"]
    if fork:
        cmd.append(f"-fork={fork}")
    cmd.append(corpus)
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, capture_output=True, cwd=work,
                   timeout=seconds + 120)
    wall = time.monotonic() - t0
    crashes = sorted(glob.glob(os.path.join(work, "crash-*")), key=os.path.getmtime)
    return bool(crashes), wall, (crashes[0] if crashes else None)


def rerun(fuzzer, env, work, crash, reruns):
    """(re-runs of `crash` that abort again, whether the first one did)."""
    replayed, first = 0, False
    if crash:
        for i in range(reruns):
            p = subprocess.run([fuzzer, crash], env=env, capture_output=True, cwd=work,
                               timeout=120)
            if p.returncode != 0:
                replayed += 1
                first = first or i == 0
    return replayed, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fuzzer",
                    default=os.path.join(ROOT, "build-fuzz/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--fork", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--reruns", type=int, default=5)
    ap.add_argument("--bugs", default="")
    ap.add_argument("--fork-only", action="store_true")
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/replay.jsonl"))
    a = ap.parse_args()
    a.fuzzer = os.path.abspath(a.fuzzer)  # (each session runs in its own folder)
    listed = list_bugs(a.dualfuzz)
    names = a.bugs.split(",") if a.bugs else [name for name, _ in listed]
    # (whose findings are races: DUALFUZZ_STOP_ON_RACES=1)
    racy = {name for name, cat in listed if cat == "concurrency"}
    os.makedirs(os.path.dirname(a.raw), exist_ok=True)
    raw = open(a.raw, "a")
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{os.cpu_count()} cores, load average {' '.join(load)}; {a.fuzzer}", flush=True)
    seeds = os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer")
    totals = {"crashes": 0, "found": 0, "fork_found": 0, "first": 0, "reruns": 0, "replayed": 0}
    print("| bug | alone: s | crash file re-runs that abort | -fork: s |")
    print("| --- | --- | --- | --- |")
    for name in names:
        env = dict(os.environ, DUALFUZZ_BUG=name)
        env.pop("DUALFUZZ_TARGET", None)
        if name in racy:
            env["DUALFUZZ_STOP_ON_RACES"] = "1"
        with tempfile.TemporaryDirectory() as work:
            corpus = os.path.join(work, "corpus")
            shutil.copytree(seeds, corpus)
            found, wall, crash, replayed, first = False, 0.0, None, 0, False
            if not a.fork_only:
                found, wall, crash = fuzz(a.fuzzer, env, corpus, work, a.seconds, 0)
                replayed, first = rerun(a.fuzzer, env, work, crash, a.reruns)
                shutil.rmtree(corpus)
                shutil.copytree(seeds, corpus)
            ffound, fwall, fcrash = fuzz(a.fuzzer, env, corpus, work, a.seconds, a.fork)
            if a.fork_only:
                crash = fcrash
                replayed, first = rerun(a.fuzzer, env, work, crash, a.reruns)
        row = {"bug": name, "found": found, "seconds": wall, "reruns": a.reruns if crash else 0,
               "replayed": replayed, "first_rerun": first, "fork": a.fork,
               "fork_found": ffound, "fork_seconds": fwall}
        raw.write(json.dumps(row) + "\n")
        raw.flush()
        totals["found"] += found
        totals["fork_found"] += ffound
        totals["first"] += first
        totals["crashes"] += bool(crash)
        totals["reruns"] += row["reruns"]
        totals["replayed"] += replayed
        print(f"| {name} | {f'{wall:.1f}' if found else '-'} | "
              f"{f'{replayed}/{a.reruns}' if crash else '-'} | "
              f"{f'{fwall:.1f}' if ffound else '-'} |", flush=True)
    n = len(names)
    print(f"\nfound alone {totals['found']}/{n}, with -fork={a.fork} {totals['fork_found']}/{n}; "
          f"crash files that abort again on the first re-run: {totals['first']}/{totals['crashes']}, "
          f"over all re-runs {totals['replayed']}/{totals['reruns']}")


if __name__ == "__main__":
    sys.exit(main())
