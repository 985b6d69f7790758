#!/usr/bin/env python3
"""The fuzz-target API on a user's server: examples/beast_file_server.

Runs the example's libFuzzer target (a build with DUALFUZZ_BUILD_FUZZERS=ON)
for several seeds with the planted bug, checks each crash file (it aborts the
target; FILE_SERVER_FIXED=1 passes it), optionally runs the fixed server for a
while (no crash expected), and prints a markdown table:

  bench/eval_example.py --fuzzer build-lf/examples/beast_file_server/file_server_fuzzer \
      [--seeds 5] [--seconds 60] [--correct-seconds 600]
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "examples/beast_file_server/seeds")
PLAYED = re.compile(r"played since start: (\d+) scripts, (\d+) messages")


def fuzz(fuzzer, seed, seconds, fixed, work):
    corpus = os.path.join(work, f"corpus-{seed}-{int(fixed)}")
    shutil.copytree(SEEDS, corpus)
    env = dict(os.environ, FILE_SERVER_FIXED="1" if fixed else "0")
    start = time.monotonic()
    p = subprocess.run([fuzzer, f"-max_total_time={seconds}", f"-seed={seed}",
                        f"-artifact_prefix={corpus}/", corpus],
                       capture_output=True, text=True, env=env, timeout=seconds + 120)
    took = time.monotonic() - start
    runs = re.findall(r"^#(\d+)\s", p.stderr, re.M)
    crash = [f for f in os.listdir(corpus) if f.startswith("crash-")]
    row = {"seed": seed, "seconds": took, "rc": p.returncode,
           "executions": int(runs[-1]) if runs else 0, "crash": None}
    if m := PLAYED.search(p.stderr):
        row["executions"], row["messages"] = int(m.group(1)), int(m.group(2))
    if crash:
        path = os.path.join(corpus, crash[0])
        buggy = subprocess.run([fuzzer, path], capture_output=True,
                               env=dict(os.environ, FILE_SERVER_FIXED="0")).returncode
        clean = subprocess.run([fuzzer, path], capture_output=True,
                               env=dict(os.environ, FILE_SERVER_FIXED="1")).returncode
        row["crash"] = "planted bug" if buggy != 0 and clean == 0 else \
            f"other (rc {buggy}/{clean})"
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fuzzer", default=os.path.join(
        ROOT, "build-lf/examples/beast_file_server/file_server_fuzzer"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--correct-seconds", type=int, default=0)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="eval-example-")
    print("| seed | time to crash (s) | scripts played | crash |")
    print("| ---: | ---: | ---: | --- |")
    for s in range(1, a.seeds + 1):
        r = fuzz(a.fuzzer, s, a.seconds, False, work)
        t = f"{r['seconds']:.1f}" if r["crash"] else f"none in {a.seconds}"
        print(f"| {s} | {t} | {r['executions']} | {r['crash'] or '-'} |", flush=True)
    if a.correct_seconds:
        r = fuzz(a.fuzzer, 11, a.correct_seconds, True, work)
        print(f"\nFixed server (FILE_SERVER_FIXED=1), {a.correct_seconds} s, seed 11: "
              f"{r['executions']} executions, "
              f"{'crash: ' + r['crash'] if r['crash'] else 'no crash'} (exit {r['rc']})")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
