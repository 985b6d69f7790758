#!/usr/bin/env python3
"""The oracle and Porcupine side by side on the Jepsen histories, in one run.

    bench/porcupine_side_by_side.py [PORCUPINE_CHECKOUT] [--rounds N]
        [--jepsen-bench build/bench/jepsen_bench] [--baseline OTHER_JEPSEN_BENCH]
        [--online]

Each history set (the 102 etcd histories; each kv history alone) is checked by
one process per tool and round, the tools alternating within a round so that
the machine's load falls on both alike. A process's figures include its start
and parsing: Porcupine's own test binary (`go test -c`, run with -test.run on
its own test data, which is the data of ../shared/benchdata/jepsen) against
`jepsen_bench --quiet --only SET`. Both wall-clock and CPU seconds (user +
system, of the process and its threads: Go's collector and Porcupine's
partitions, dualfuzz's partitions, run beside the checker) are printed per
round, then the ranges and the ratios of the medians (wall and CPU).

The measurement protocol (docs/EVALUATION.md): a quiet machine, 5 alternating
rounds (the default), both ratios; the load average is printed before the
first round and after each, so that a figure taken under load says so.

Porcupine stays outside the repository: pass its checkout. Without one (or
without Go), the script prints dualfuzz's figures alone. --baseline times a
second jepsen_bench (e.g. main's) in the same rounds, for a before/after.
"""

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KV = ["c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"]
# Porcupine's test names for the kv histories (porcupine_test.go).
PORCUPINE_KV = {
    "c01-ok": "TestKv1ClientOk",
    "c01-bad": "TestKv1ClientBad",
    "c10-ok": "TestKv10ClientsOk",
    "c10-bad": "TestKv10ClientsBad",
    "c50-ok": "TestKv50ClientsOk",
    "c50-bad": "TestKv50ClientsBad",
}


def timed(cmd, cwd=None):
    """Runs cmd; returns (wall s, cpu s, returncode, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode, p.stdout


def build_porcupine(checkout, outdir):
    if not checkout:
        return None
    if not shutil.which("go"):
        print("(no Go toolchain: Porcupine is not timed)")
        return None
    binary = os.path.join(outdir, "porcupine.test")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GO111MODULE="on")
    p = subprocess.run(["go", "test", "-c", "-o", binary, "."], cwd=checkout, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       check=False)
    if p.returncode != 0:
        print("(Porcupine's tests did not build: Porcupine is not timed)\n" + p.stdout)
        return None
    rev = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         check=False).stdout.strip()
    go = subprocess.run(["go", "version"], stdout=subprocess.PIPE, text=True,
                        check=False).stdout.strip()
    print(f"Porcupine {rev or '?'} at {checkout}, {go}")
    return binary


def dualfuzz_verdicts(out, name):
    """'ok' when jepsen_bench reproduced every verdict of the set, else why not."""
    if "DISAGREES" in out or "parse error" in out:
        return "DISAGREES"
    if name == "etcd":
        m = re.search(r"etcd: (\d+) histories, (\d+) verdicts reproduced", out)
        return "ok" if m and m.group(1) == m.group(2) else "?"
    return "ok" if re.search(re.escape(name) + r"\.txt\s+\S+\s+(accept|reject)", out) else "?"


def fmt(xs):
    return f"{min(xs):.3f}-{max(xs):.3f}" if xs else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("porcupine", nargs="?", help="a Porcupine checkout (outside the repo)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jepsen-bench", default="build/bench/jepsen_bench")
    ap.add_argument("--baseline", help="another jepsen_bench, timed in the same rounds")
    ap.add_argument("--online", action="store_true",
                    help="dualfuzz's online oracle (event by event) instead")
    ap.add_argument("--sets", default="etcd," + ",".join(KV))
    args = ap.parse_args()

    tools = [("dualfuzz", args.jepsen_bench)]
    if args.baseline:
        tools.append(("baseline", args.baseline))
    with tempfile.TemporaryDirectory() as tmp:
        porcupine = build_porcupine(args.porcupine, tmp)
        if porcupine:
            tools.append(("porcupine", porcupine))
        sets = args.sets.split(",")
        # results[set][tool] = list of (wall, cpu)
        results = {s: {t: [] for t, _ in tools} for s in sets}
        problems = []
        loads = [os.getloadavg()]
        print(f"{os.cpu_count()} cores; load average before the first round: "
              + " ".join(f"{x:.2f}" for x in loads[0]))
        for r in range(args.rounds):
            for s in sets:
                order = tools if r % 2 == 0 else list(reversed(tools))
                for tool, path in order:
                    if tool == "porcupine":
                        pattern = "^TestEtcdJepsen" if s == "etcd" else f"^{PORCUPINE_KV[s]}$"
                        wall, cpu, rc, out = timed([path, "-test.run", pattern],
                                                   cwd=args.porcupine)
                        ok = "ok" if rc == 0 else "FAILED"
                    else:
                        cmd = [path, "--quiet", "--only", "etcd_" if s == "etcd" else s]
                        if args.online:
                            cmd.append("--online")
                        wall, cpu, rc, out = timed(cmd)
                        ok = dualfuzz_verdicts(out, s) if rc == 0 else "FAILED"
                    if ok != "ok":
                        problems.append(f"round {r + 1} {s} {tool}: {ok}\n{out[-2000:]}")
                    results[s][tool].append((wall, cpu))
            loads.append(os.getloadavg())
            print(f"round {r + 1} done, load average "
                  + " ".join(f"{x:.2f}" for x in loads[-1]), file=sys.stderr)

    mode = "online" if args.online else "whole-trace"
    print(f"\n{args.rounds} alternating rounds, dualfuzz {mode}; seconds per process "
          "(wall / CPU), ranges over the rounds")
    print("load average (1 min) before and after the rounds: "
          + " ".join(f"{l[0]:.2f}" for l in loads))
    header = f"{'set':<8}" + "".join(f" {t + ' wall':>15} {t + ' cpu':>15}" for t, _ in tools)
    if porcupine:
        header += f" {'ratio wall':>11} {'ratio cpu':>10}"
    print(header)
    for s in sets:
        line = f"{s:<8}"
        for t, _ in tools:
            line += f" {fmt([w for w, _ in results[s][t]]):>15}"
            line += f" {fmt([c for _, c in results[s][t]]):>15}"
        if porcupine:
            # Porcupine's time over dualfuzz's, medians: > 1 means dualfuzz is faster.
            pw = statistics.median(w for w, _ in results[s]["porcupine"])
            pc = statistics.median(c for _, c in results[s]["porcupine"])
            dw = statistics.median(w for w, _ in results[s]["dualfuzz"])
            dc = statistics.median(c for _, c in results[s]["dualfuzz"])
            line += f" {pw / dw:>10.2f}x {pc / max(dc, 1e-3):>9.2f}x"
        print(line)
    if porcupine:
        print("ratio = Porcupine's median / dualfuzz's median (> 1: dualfuzz faster)")
    print("\nper round (wall s / CPU s):")
    for s in sets:
        for t, _ in tools:
            print(f"  {s:<8} {t:<10} " +
                  " ".join(f"{w:.3f}/{c:.3f}" for w, c in results[s][t]))
    if problems:
        print("\nVERDICT PROBLEMS:\n" + "\n".join(problems))
        return 1
    print("\nevery verdict reproduced (dualfuzz: VERDICTS files; Porcupine: its tests pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
