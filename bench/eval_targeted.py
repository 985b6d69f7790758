#!/usr/bin/env python3
"""Effect of the Z3-targeted mutation: for each bug and seed, one libFuzzer run
with it and one without (DUALFUZZ_TARGETED=0), alternately, through
eval_libfuzzer.run_libfuzzer (same seeds corpus, crash replayed); then
`dualfuzz fuzz` with and without --no-targeted. Prints found k/n and medians
(a miss counts as infinite) of seconds and executions to the first violation,
and appends every run to --raw as one JSON line.

  bench/eval_targeted.py --bugs if-match-weak,etag-from-length --seeds 5 --seconds 60
"""
import argparse
import json
import os
import subprocess
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_libfuzzer as lf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_blackbox(dualfuzz, bug, seed, seconds, targeted):
    cmd = ["nice", "-n", "10", dualfuzz, "fuzz", "--target", "inprocess:" + bug,
           "--seconds", str(seconds), "--seed", str(seed), "--json", "-q"]
    if not targeted:
        cmd.append("--no-targeted")
    p = subprocess.run(cmd, capture_output=True, text=True)
    last = [l for l in p.stdout.splitlines() if l.startswith("{")]
    rec = json.loads(last[-1]) if last else {"error": p.stderr[-500:]}
    rec.update({"engine": "dualfuzz-fuzz", "bug": bug, "seed": seed, "targeted": targeted,
                "exit": p.returncode})
    return rec


def table(runs, n, key_time, key_exec):
    s = lf.summarize(runs, key_time, key_exec)
    fmt = lambda v: "—" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))
    return f"{s['found']}/{n} | {fmt(s['seconds'])} | {fmt(s['executions'])}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuzzer", default=os.path.join(ROOT, "build-lf/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--bugs", default="if-match-first-only,ius-after-if-match,etag-from-length,if-match-weak")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--blackbox-seconds", type=float, default=30)
    ap.add_argument("--skip-libfuzzer", action="store_true")
    ap.add_argument("--skip-blackbox", action="store_true")
    ap.add_argument("--raw", default="/tmp/eval_targeted.jsonl")
    a = ap.parse_args()
    args = types.SimpleNamespace(fuzzer=a.fuzzer, corpus=a.corpus, nice=10, extra="",
                                 keep="", replay_with=a.dualfuzz, dualfuzz=a.dualfuzz)
    bugs = a.bugs.split(",")
    results = {}
    with open(a.raw, "a") as raw:
        def log(rec):
            raw.write(json.dumps(rec) + "\n")
            raw.flush()
            print(json.dumps({k: rec.get(k) for k in (
                "engine", "bug", "seed", "targeted", "violation", "seconds", "executions",
                "mutator_replays", "targeted_rewrites", "scripts_played", "replay_exit")}),
                file=sys.stderr, flush=True)
        for bug in bugs:
            for seed in range(1, a.seeds + 1):
                # Alternate which mode goes first, so both see the same load.
                modes = (True, False) if seed % 2 else (False, True)
                for targeted in modes:
                    if not a.skip_libfuzzer:
                        if targeted:
                            os.environ.pop("DUALFUZZ_TARGETED", None)
                        else:
                            os.environ["DUALFUZZ_TARGETED"] = "0"
                        rec = lf.run_libfuzzer(args, bug, seed, a.seconds)
                        os.environ.pop("DUALFUZZ_TARGETED", None)
                        rec.update({"engine": "libfuzzer", "targeted": targeted})
                        log(rec)
                        results.setdefault(("libfuzzer", bug, targeted), []).append(rec)
                    if not a.skip_blackbox:
                        rec = run_blackbox(a.dualfuzz, bug, seed, a.blackbox_seconds, targeted)
                        log(rec)
                        results.setdefault(("dualfuzz-fuzz", bug, targeted), []).append(rec)
    print("| engine | bug | with: found / s / ex | without: found / s / ex |")
    print("| --- | --- | --- | --- |")
    for engine in ("libfuzzer", "dualfuzz-fuzz"):
        for bug in bugs:
            if (engine, bug, True) not in results:
                continue
            print(f"| {engine} | `{bug}` | "
                  f"{table(results[(engine, bug, True)], a.seeds, 'seconds', 'executions')} | "
                  f"{table(results[(engine, bug, False)], a.seeds, 'seconds', 'executions')} |")


if __name__ == "__main__":
    main()
