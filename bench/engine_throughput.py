#!/usr/bin/env python3
"""Where a coverage-guided fuzz target's executions go (issue 22, part 1).

Grows a corpus with the libFuzzer target, then plays the *same inputs* three
ways, each in a child process whose CPU time (all threads: the in-process
server's too) is read from its rusage, so a loaded machine shifts all three
alike:
  pipeline  throughput_bench --corpus DIR (uninstrumented build, campaign::Player)
  entry     the fuzz target replaying the corpus files (-runs=K, no mutation):
            instrumentation + libFuzzer's per-execution bookkeeping
  fuzzing   the fuzz target fuzzing from the corpus (mutations, targeted
            replays, inputs it then rejects as too costly)
and prints exec per CPU second and the ratios, plus where the fuzzing run's
time went (the fuzz target's DUALFUZZ_TIMING=1 line: playing its inputs,
mutating, targeted replays, libFuzzer's own work), which compares fuzzing
with playing *the inputs it actually played*, plus the corpus's cost profile
(throughput_bench --costs) and the cost of 10-request generated scripts (the
pipeline figure the issue first compared with).

  bench/engine_throughput.py --fuzzer build-lf/tests/fuzz/http_inprocess_fuzzer \
      --bench build/bench/throughput_bench --grow 60 --seconds 30
  bench/engine_throughput.py ... --corpus DIR     # measure an existing corpus
  DUALFUZZ_KEEP_EXPLORED=0 bench/engine_throughput.py ...   # the fuzz target keeping
                                                            # every conclusive input
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None, timeout=None):
    """Runs cmd; returns (output, cpu seconds of the child, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", env=env, timeout=timeout)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, wall


def units(out):
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", out)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fuzzer", required=True, help="the libFuzzer fuzz target")
    ap.add_argument("--bench", required=True, help="build/bench/throughput_bench")
    ap.add_argument("--corpus", help="measure this corpus (else grow one from corpora/http)")
    ap.add_argument("--grow", type=float, default=60, help="seconds of fuzzing to grow it")
    ap.add_argument("--seconds", type=float, default=30, help="seconds per measure")
    ap.add_argument("--bug", default="", help="DUALFUZZ_BUG for every measure")
    a = ap.parse_args()

    env = dict(os.environ)
    if a.bug:
        env["DUALFUZZ_BUG"] = a.bug
    work = tempfile.mkdtemp(prefix="engine-throughput-")
    try:
        corpus = os.path.join(work, "corpus")
        if a.corpus:
            shutil.copytree(a.corpus, corpus)
        else:
            shutil.copytree(os.path.join(ROOT, "corpora", "http"), corpus)
            out, cpu, wall = run([a.fuzzer, f"-max_total_time={int(a.grow)}",
                                  "-print_final_stats=1", corpus], env)
            n = units(out)
            print(f"grown: {int(a.grow)} s of fuzzing from corpora/http, {n} executions, "
                  f"{n / cpu:.0f} per CPU second ({cpu:.1f} CPU s in {wall:.1f} s)")
        files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))
        size = sum(os.path.getsize(f) for f in files)
        print(f"corpus: {len(files)} inputs, {size / max(1, len(files)):.0f} bytes on average")
        out, _, _ = run([a.bench, "--corpus", corpus, "--costs"] +
                        (["--bug", a.bug] if a.bug else []), env)
        print("  " + "\n  ".join(out.strip().splitlines()))

        bug = ["--bug", a.bug] if a.bug else []
        # Pipeline: the same inputs through campaign::Player, uninstrumented.
        out, cpu, _ = run([a.bench, "--corpus", corpus, "--profile", "on",
                           "--seconds", str(a.seconds)] + bug, env)
        m = re.search(r"\((\d+) executions", out)
        pipeline = int(m.group(1)) / cpu
        # Generated 10-request scripts, the first comparison of the issue.
        out, cpu10, _ = run([a.bench, "--profile", "on", "--seconds", str(a.seconds)] + bug, env)
        m = re.search(r"\((\d+) executions", out)
        generated = int(m.group(1)) / cpu10
        # Entry point: the fuzz target replays the corpus files, as many
        # rounds as fill --seconds (one round timed first).
        _, cpu1, _ = run([a.fuzzer, "-runs=1"] + files, env)
        rounds = max(1, int(a.seconds / max(cpu1, 0.05)))
        _, cpu, _ = run([a.fuzzer, f"-runs={rounds}"] + files, env)
        entry = len(files) * rounds / cpu
        # Fuzzing from the corpus (a copy: the run adds to it).
        fcorpus = os.path.join(work, "fuzzing")
        shutil.copytree(corpus, fcorpus)
        out, cpu, _ = run([a.fuzzer, f"-max_total_time={int(a.seconds)}",
                           "-print_final_stats=1", fcorpus], dict(env, DUALFUZZ_TIMING="1"))
        fuzzing = units(out) / cpu
        timing = re.search(r"timing: ([\d.]+) s since start; playing (\d+) inputs ([\d.]+) s; "
                           r"mutating (\d+) times ([\d.]+) s \(targeted replays ([\d.]+) s\); "
                           r"rest ([-\d.]+) s", out)

        print("exec per CPU second on the corpus's inputs (all threads of each process):")
        print(f"  pipeline (throughput_bench --corpus):   {pipeline:8.0f}")
        print(f"  entry point (fuzz target, -runs={rounds}):  {entry:8.0f}   "
              f"ratio to pipeline {entry / pipeline:.2f}")
        print(f"  fuzzing (libFuzzer + custom mutator):   {fuzzing:8.0f}   "
              f"ratio to pipeline {fuzzing / pipeline:.2f}")
        print(f"  pipeline on generated 10-request scripts: {generated:6.0f}   "
              f"fuzzing / that {fuzzing / generated:.2f}")
        if timing:
            total, played, play, muts, mutate, targeted, rest = (
                float(x) for x in timing.groups())
            print(f"where the fuzzing run's {total:.1f} s went (wall clock inside the process):")
            print(f"  playing its {played:.0f} inputs     {play:7.2f} s  {100 * play / total:5.1f} %")
            print(f"  mutating ({muts:.0f} calls)       {mutate:7.2f} s  {100 * mutate / total:5.1f} %"
                  f"   of which targeted replays {targeted:.2f} s")
            print(f"  libFuzzer's own work        {rest:7.2f} s  {100 * rest / total:5.1f} %")
            print(f"  fuzzing / playing the same inputs: {play / total:.2f}   "
                  f"(x entry/pipeline {entry / pipeline:.2f} = {play / total * entry / pipeline:.2f} "
                  f"of the pipeline on the inputs fuzzing played)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
