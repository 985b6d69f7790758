#!/usr/bin/env python3
"""Side-by-side throughput of two dualfuzz builds, in one run.

Runs each build's `throughput_bench` in alternating short rounds (the host's
speed drifts; alternating puts both builds under the same drift) and prints
each round's figures and the median ratio new/old:

  bench/compare_throughput.py OLD_BUILD_DIR NEW_BUILD_DIR [--rounds 5] [--seconds 2]

Each bench generates its scripts with its own build's generator from the same
seed, so a change to the generator changes the workload too (say so when
quoting the figures).
"""
import argparse
import re
import statistics
import subprocess
import sys

FIELDS = {
    "on": r"exec/s oracle on:\s+(\d+) per CPU second",
    "off": r"exec/s oracle off:\s+(\d+) per CPU second",
    "oracle_us": r"oracle alone: ([\d.]+) us/exec",
    "share": r"oracle share over all rounds: (-?[\d.]+)% \(1 - on/off\)",
}


def run(build, seconds):
    out = subprocess.run([f"{build}/bench/throughput_bench", "--seconds", str(seconds),
                          "--rounds", "1"], capture_output=True, text=True, check=True).stdout
    vals = {}
    for k, rx in FIELDS.items():
        m = re.search(rx, out)
        if not m:
            sys.exit(f"compare_throughput: no '{k}' in the output of {build}:\n{out}")
        vals[k] = float(m.group(1))
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2)
    a = ap.parse_args()
    rows = {"old": [], "new": []}
    for i in range(a.rounds):
        for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
            rows[name].append(run(getattr(a, name), a.seconds))
        o, n = rows["old"][-1], rows["new"][-1]
        print(f"round {i + 1}: exec/s oracle on {o['on']:.0f} -> {n['on']:.0f}, "
              f"off {o['off']:.0f} -> {n['off']:.0f}, oracle alone {o['oracle_us']:.1f} -> "
              f"{n['oracle_us']:.1f} us, share {o['share']:.1f}% -> {n['share']:.1f}%")
    med = {name: {k: statistics.median(r[k] for r in rs) for k in FIELDS}
           for name, rs in rows.items()}
    ratio = {k: statistics.median(n[k] / o[k] for o, n in zip(rows["old"], rows["new"]))
             for k in FIELDS}
    print(f"median of {a.rounds} rounds (old -> new, ratio new/old):")
    for k, label in (("on", "exec/s oracle on"), ("off", "exec/s oracle off"),
                     ("oracle_us", "oracle alone, us/exec"), ("share", "oracle share, %")):
        print(f"  {label:24s} {med['old'][k]:8.1f} -> {med['new'][k]:8.1f}   x{ratio[k]:.3f}")


if __name__ == "__main__":
    main()
