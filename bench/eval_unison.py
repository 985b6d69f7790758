#!/usr/bin/env python3
"""Evaluation of the file-synchronizer plug-in (issue 18, thesis §6.2).

  1. planted bugs: every bug of the reference synchronizer
     (`dualfuzz bugs --spec unison`) x seeds, each with a time budget;
  2. false alarms: the correct reference synchronizer fuzzed for a while;
  3. the real Unison, -fastcheck false and true: `fuzz --keep-going`, every
     distinct disagreement with its minimized script;
  4. the cost of one Unison run (a process start per `sync`).

Writes the results as markdown into docs/evaluation-journal.md, section
"## File synchronizer (Unison, issue 18)" (the rest of the file is kept);
raw results (one JSON object per run) go to --raw. Runs are sequential.

  bench/eval_unison.py                                  # all of it (~25 min)
  bench/eval_unison.py --seeds 2 --bug-seconds 20 --false-alarm-seconds 60 \
      --unison-seconds 60                                # a quick look
  bench/eval_unison.py --skip-false-alarm --skip-unison  # planted bugs only
  bench/eval_unison.py --skip-bugs --skip-false-alarm --jobs 3   # real Unison only

Needs python3, a built `dualfuzz` (default build/cli/dualfuzz) and, for
3 and 4, `unison` on PATH.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (sh, last_json, write_section)
from eval_blackbox import last_json, sh  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "## File synchronizer (Unison, issue 18)"


def machine():
    return {
        "nproc": sh("nproc"),
        "cpu": sh("lscpu | grep 'Model name' | sed 's/.*: *//'") or "unknown CPU",
        "commit": sh(f"git -C {ROOT} rev-parse --short HEAD"),
        "unison": sh("unison -version 2>/dev/null") or "not installed",
        "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
    }


def fuzz(dualfuzz, target, seconds, seed, keep_going=False):
    cmd = [dualfuzz, "fuzz", "--spec", "unison", "--target", target, "--connections", "1",
           "--seconds", str(seconds), "--seed", str(seed), "--json", "-q"]
    if keep_going:
        cmd.append("--keep-going")
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds * 3 + 120)
    summary = last_json(p.stdout) or {}
    summary.update({"target": target, "seed": seed, "budget": seconds, "exit": p.returncode,
                    "wall": time.time() - start})
    if p.returncode == 1 and not keep_going:
        summary["finding"] = p.stdout.split("\n{")[0]
    return summary


def unison_cost(runs):
    """Milliseconds per `unison A B -batch` run on a two-file replica pair
    (the harness's command line), first sync and no-change re-syncs."""
    if not shutil.which("unison"):
        return None
    with tempfile.TemporaryDirectory() as d:
        a, b, home = (os.path.join(d, x) for x in ("A", "B", "home"))
        for x in (a, b, home):
            os.mkdir(x)
        for name in ("a", "b"):
            with open(os.path.join(a, name), "w") as f:
                f.write("x")
        env = dict(os.environ, HOME=home, UNISON=os.path.join(home, ".unison"))
        cmd = ["unison", a, b, "-batch", "-silent", "-confirmbigdel=false", "-fastcheck",
               "false", "-log=false", "-contactquietly"]
        times = []
        for i in range(runs):
            if i % 2:
                with open(os.path.join(a, "a"), "w") as f:
                    f.write(str(i))
            t = time.perf_counter()
            subprocess.run(cmd, env=env, capture_output=True)
            times.append((time.perf_counter() - t) * 1000)
        return {"runs": runs, "median_ms": statistics.median(times),
                "min_ms": min(times), "max_ms": max(times)}


def section(args, m, bugs, false_alarm, real, cost):
    out = [SECTION, ""]
    out.append(f"`bench/eval_unison.py` on {m['date']}, commit {m['commit']}, "
               f"{m['nproc']} cores ({m['cpu']}, shared), {m['unison']}. "
               "Every run: `dualfuzz fuzz --spec unison --connections 1` (one client: "
               "the tester's steps run one at a time).")
    out.append("")
    if bugs:
        out.append(f"### Planted bugs ({args.seeds} seeds x {args.bug_seconds} s each)")
        out.append("")
        out.append("| bug | found | median s | max s | median executions | minimized steps |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for name in sorted(bugs):
            runs = bugs[name]
            found = [r for r in runs if r.get("violation")]
            secs = [r["seconds"] for r in found]
            execs = [r["executions"] for r in found]
            steps = sorted({r.get("min_steps") for r in found})
            out.append(f"| {name} | {len(found)}/{len(runs)} | "
                       f"{statistics.median(secs):.2f} | {max(secs):.2f} | "
                       f"{int(statistics.median(execs))} | {', '.join(map(str, steps))} |"
                       if found else f"| {name} | 0/{len(runs)} | - | - | - | - |")
        out.append("")
    if false_alarm:
        r = false_alarm
        verdict = "**no violation**" if not r.get("violation") else "**VIOLATION**"
        out.append("### False alarms (correct reference synchronizer)")
        out.append("")
        out.append(f"{r.get('seconds', 0):.0f} s, seed {r['seed']}: {verdict}, "
                   f"{r.get('executions', 0)} executions "
                   f"({r.get('executions', 0) / max(r.get('seconds', 1), 1e-9):.0f}/s), "
                   f"{r.get('messages', 0)} messages, {r.get('inconclusive', 0)} inconclusive, "
                   f"{r.get('internal_errors', 0)} internal errors.")
        out.append("")
    for (target, seed), r in real.items():
        out.append(f"### Real Unison: `--target inprocess:{target}` "
                   f"({r.get('seconds', 0):.0f} s, seed {seed}, --keep-going, "
                   f"{args.jobs} run(s) at once)")
        out.append("")
        execs = r.get("executions", 0)
        out.append(f"{execs} executions ({execs / max(r.get('seconds', 1), 1e-9):.1f}/s), "
                   f"{r.get('messages', 0)} messages, {len(r.get('violations', []))} distinct "
                   f"disagreement(s), {r.get('internal_errors', 0)} internal errors.")
        out.append("")
        for v in r.get("violations", []):
            out.append(f"- `{v['signature']}`: first after {v['first_seconds']:.1f} s, seen "
                       f"{v['count']} time(s), minimized to {v.get('min_steps')} steps:")
            out.append("")
            out.append("  ```")
            for line in v["script"].strip().splitlines():
                out.append("  " + line)
            out.append("  ```")
            out.append("")
    if cost:
        out.append("### Cost of one sync")
        out.append("")
        out.append(f"One `unison A B -batch ...` process (two one-byte files, fresh archive "
                   f"then re-syncs), {cost['runs']} runs: median {cost['median_ms']:.1f} ms "
                   f"(min {cost['min_ms']:.1f}, max {cost['max_ms']:.1f}).")
        out.append("")
    return "\n".join(out)


def write_section(text):
    eval_blackbox.write_section(os.path.join(ROOT, "docs", "evaluation-journal.md"), text, SECTION)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build", "cli", "dualfuzz"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--bug-seconds", type=float, default=60)
    ap.add_argument("--bugs", default="", help="comma-separated; default all")
    ap.add_argument("--false-alarm-seconds", type=float, default=600)
    ap.add_argument("--unison-seconds", type=float, default=300)
    ap.add_argument("--unison-seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1,
                    help="real-Unison runs at once (each is mostly a waiting harness)")
    ap.add_argument("--cost-runs", type=int, default=40)
    ap.add_argument("--skip-bugs", action="store_true")
    ap.add_argument("--skip-false-alarm", action="store_true")
    ap.add_argument("--skip-unison", action="store_true")
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench", "results", "unison.jsonl"))
    ap.add_argument("--no-write", action="store_true", help="print, do not edit docs/evaluation-journal.md")
    args = ap.parse_args()

    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    raw = open(args.raw, "a")

    def keep(r):
        raw.write(json.dumps(r) + "\n")
        raw.flush()
        return r

    bugs = {}
    if not args.skip_bugs:
        names = [l.split("\t")[0] for l in
                 sh(f"{args.dualfuzz} bugs --spec unison").splitlines() if l]
        if args.bugs:
            names = [n for n in names if n in args.bugs.split(",")]
        for name in names:
            for seed in range(1, args.seeds + 1):
                r = keep(fuzz(args.dualfuzz, "inprocess:" + name, args.bug_seconds, seed))
                bugs.setdefault(name, []).append(r)
                print(f"{name} seed {seed}: {'found' if r.get('violation') else 'MISSED'} "
                      f"in {r.get('seconds', 0):.2f} s", file=sys.stderr)
    false_alarm = None
    if not args.skip_false_alarm:
        false_alarm = keep(fuzz(args.dualfuzz, "inprocess", args.false_alarm_seconds, 1))
        print(f"false alarm run: violation={false_alarm.get('violation')}", file=sys.stderr)
    real, cost = {}, None
    if not args.skip_unison and shutil.which("unison"):
        jobs = [(t, seed) for t in ("unison", "unison-fastcheck")
                for seed in range(1, args.unison_seeds + 1)]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            done = pool.map(lambda j: fuzz(args.dualfuzz, "inprocess:" + j[0],
                                           args.unison_seconds, j[1], keep_going=True), jobs)
            for (target, seed), r in zip(jobs, done):
                real[(target, seed)] = keep(r)
                print(f"{target} seed {seed}: {len(r.get('violations', []))} disagreement(s)",
                      file=sys.stderr)
        cost = unison_cost(args.cost_runs)
        if cost:
            keep(dict(cost, target="cost"))  # (one line of the raw log: the cost of a sync)
    text = section(args, machine(), bugs, false_alarm, real, cost)
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
