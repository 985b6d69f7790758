#!/usr/bin/env python3
"""Crash-only baseline: `dualfuzz fuzz`'s generation engine with the oracle off.

Runs build/bench/crash_only_bench (bench/crash_only_bench.cpp: the loop of
campaign/src/fuzz_loop.cpp, same mutator, seeds, pool and connection
folding, but each script played with the oracle off) on every planted bug
for seeds 1..N with a time budget, and once on the correct server; writes
the section "Crash-only baseline (oracle off)" of docs/evaluation-journal.md (the
rest is kept). Only what a crash-oriented fuzzer notices counts: the
process dying, an unanswered request (liveness), bytes that are not HTTP
(protocol). A detection counts only if the script, played again, shows the
same violation with the bug planted and passes on the correct server.

  bench/eval_crashonly.py                         # 32 bugs x 5 seeds x 15 s
  bench/eval_crashonly.py --bugs head-with-body,lost-update --seeds 2 --seconds 20
  bench/eval_crashonly.py --render-only           # the section again from the raw log

For a seed the bench plays exactly the scripts `dualfuzz fuzz --seed S
--connections 4` plays (the mutator never looks at a verdict), so where
`dualfuzz fuzz` found a bug after E executions, a crash-only run that got
past E executions has played the very script the oracle rejected and did
not notice. The section counts those runs from eval_blackbox.py's raw log.
Raw results: --raw (default bench/results/crashonly.jsonl), one JSON object
per run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402

ROOT = eval_blackbox.ROOT
SECTION = "## Crash-only baseline (oracle off)"


def list_bugs(dualfuzz):
    out = subprocess.run([dualfuzz, "bugs"], capture_output=True, text=True).stdout
    bugs = []
    for line in out.splitlines():
        name, _, rest = line.partition("\t")
        cat = rest[1:rest.find("]")] if rest.startswith("[") else ""
        if name:
            bugs.append((name, cat))
    return bugs


def run_one(args, bug, seed, seconds, bb_execs=None):
    """One crash_only_bench run. bb_execs: the execution at which `dualfuzz
    fuzz` found this bug with this seed; the bench then saves that script and
    `dualfuzz run` checks that the oracle rejects it."""
    cmd = ["nice", "-n", str(args.nice), args.bench, "--seconds", f"{seconds:g}",
           "--seed", str(seed), "--connections", str(args.connections)]
    if bug:
        cmd += ["--bug", bug]
    dump = None
    if bug and bb_execs:
        fd, dump = tempfile.mkstemp(prefix="crashonly-", suffix=".txt")
        os.close(fd)
        os.unlink(dump)
        cmd += ["--dump", str(bb_execs), dump]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 600)
    except subprocess.TimeoutExpired:
        return {"bug": bug, "seed": seed, "budget": seconds, "error": "timeout"}
    wall = time.monotonic() - t0
    rec = eval_blackbox.last_json(p.stdout)
    if rec is None:
        if p.returncode < 0:
            # The process died (the in-process server crashed): what a
            # crash-only fuzzer notices first.
            rec = {"bug": bug, "seed": seed, "budget": seconds, "violation": True,
                   "kind": "crash", "signal": -p.returncode, "seconds": round(wall, 3)}
        else:
            rec = {"bug": bug, "seed": seed, "budget": seconds,
                   "error": f"exit {p.returncode}: "
                   + (p.stderr.strip().splitlines() or ["no output"])[-1]}
    rec["exit"] = p.returncode
    rec["wall_seconds"] = round(wall, 3)
    rec["cmd"] = " ".join(cmd)
    if dump:
        rec["blackbox_executions"] = bb_execs
        if os.path.exists(dump):
            # Played by crash-only; does the oracle reject it? (exit 1)
            q = subprocess.run([args.dualfuzz, "run", "--target", "inprocess:" + bug, dump],
                               capture_output=True, text=True, timeout=600)
            rec["dump_oracle_exit"] = q.returncode
            os.unlink(dump)
        else:
            rec["dump_oracle_exit"] = None  # the run stopped before that execution
    # Counted as found: the violation replays with the bug and the correct
    # server passes the same script (else the harness itself misbehaved).
    if rec.get("violation") and rec.get("kind") != "crash":
        rec["found"] = rec.get("replay_bug") == 1 and rec.get("replay_correct") == 0
    else:
        rec["found"] = bool(rec.get("violation"))
    return rec


def load(path):
    if not path or not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def latest_runs(records, seeds, budget):
    """The latest usable run per (bug, seed) with this budget; bug None is
    the correct server."""
    latest = {}
    for r in records:
        if "error" in r or r.get("budget") != budget or r.get("seed", 0) > seeds:
            continue
        latest[(r.get("bug"), r["seed"])] = r
    return latest


def blackbox_found(path, connections=4):
    """(bug, seed) -> the eval_blackbox run record (latest)."""
    out = {}
    for r in load(path):
        t = r.get("target", "")
        if t.startswith("inprocess:") and "error" not in r \
                and r.get("connections") == connections:
            out[(t[len("inprocess:"):], r.get("seed"))] = r
    return out


def render(m, args, bugs, latest, bb):
    fmt = eval_blackbox.fmt
    med = eval_blackbox_median
    out = [SECTION, ""]
    out.append(f"Generated by `bench/eval_crashonly.py` on {m['date']}; "
               + (args.build_note or f"runs made at commit `{m['commit']}`") + ". "
               f"Machine as above (the bench ran under `nice -n {args.nice}`, one process "
               "at a time, on the shared 2 vCPUs: times are upper bounds, executions "
               "do not depend on load).")
    out.append("")
    out.append(f"`crash_only_bench --bug <bug> --seconds {args.seconds:g} --seed s "
               f"--connections {args.connections}` for seeds 1..{args.seeds} "
               "(`bench/crash_only_bench.cpp`): the generation loop of `dualfuzz fuzz` — "
               "same mutator, seed, pool and connection folding, hence the same scripts "
               "for a seed — with every script played with the oracle off "
               "(`cli::Player::play(script, false)`, liveness on). A run counts as "
               "*found* when the bench reports a protocol error (bytes that are not "
               "HTTP/1.1), a liveness violation (a request unanswered) or the process "
               "dies, and the script, played again, shows the same violation with the bug "
               "planted and passes on the correct server.")
    out.append("")
    correct = latest.get((None, args.correct_seed))
    if correct:
        verdict = ("**" + correct.get("kind", "violation") + "**" if correct.get("violation")
                   else "none")
        out.append(f"Correct server (no bug), seed {args.correct_seed}, {args.seconds:g} s: "
                   f"{correct.get('executions', '—')} executions, "
                   f"{correct.get('messages', '—')} messages, violation: {verdict}.")
        out.append("")
    out.append("| bug | category | found | verdict | median time (s) | median executions "
               "| median messages | executions in the budget (misses, median) "
               "| misses past `dualfuzz fuzz`'s detecting execution |")
    out.append("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    n_every = n_some = 0
    past_total = past_runs = 0
    dump_checked = dump_rejected = 0
    bb_max, bb_max_at, bb_meds = 0.0, "", {}
    for name, cat in bugs:
        rs = [latest[(name, s)] for s in range(1, args.seeds + 1) if (name, s) in latest]
        if not rs:
            continue
        found = [r for r in rs if r.get("found")]
        misses = [r for r in rs if not r.get("found")]
        kinds = sorted({r.get("kind", "?") for r in found})
        false = sum(1 for r in rs if r.get("violation") and not r.get("found"))
        past = 0
        for r in misses:
            b = bb.get((name, r["seed"]))
            if b and b.get("violation") and r.get("executions") is not None:
                past_runs += 1
                if r["executions"] >= b["executions"]:
                    past += 1
                    past_total += 1
            if r.get("dump_oracle_exit") is not None:
                dump_checked += 1
                dump_rejected += r["dump_oracle_exit"] == 1
        bbs = [bb[(name, s)] for s in range(1, args.seeds + 1) if (name, s) in bb]
        for b in bbs:
            if b.get("violation") and b.get("seconds", 0) > bb_max:
                bb_max, bb_max_at = b["seconds"], f"`{name}` seed {b.get('seed')}"
        if bbs:
            bb_meds[name] = med([b["seconds"] for b in bbs if b.get("violation")], len(bbs))
        ex_miss = [r["executions"] for r in misses if r.get("executions") is not None]
        verdict = ", ".join(kinds) or "—"
        if false:
            verdict += f"; {false} not reproduced / also on the correct server"
        n_every += len(found) == len(rs)
        n_some += 0 < len(found) < len(rs)
        out.append(f"| `{name}` | {cat} | {len(found)}/{len(rs)} | {verdict} | "
                   f"{fmt(med([r['seconds'] for r in found], len(rs)), 2)} | "
                   f"{fmt(med([r['executions'] for r in found if 'executions' in r], len(rs)), 0)} | "
                   f"{fmt(med([r['messages'] for r in found if 'messages' in r], len(rs)), 0)} | "
                   f"{fmt(eval_blackbox.median(ex_miss), 0) if ex_miss else '—'} | "
                   + (f"{past}/{len(misses)}" if misses else "—") + " |")
    out.append("")
    ran = sum(1 for name, _ in bugs if any((name, s) in latest
                                           for s in range(1, args.seeds + 1)))
    out.append(f"Crash-only: found by every seed within {args.seconds:g} s: {n_every} of "
               f"{ran} bugs; by some seeds: {n_some}; by none: {ran - n_every - n_some}.")
    out.append("")
    if bb:
        known = {k: v for k, v in bb_meds.items() if v is not None}
        worst = max(known.items(), key=lambda kv: kv[1]) if known else None
        out.append(f"Budget: {args.seconds:g} s per run (the 60 s of the other engines, for "
                   "32 bugs x 5 seeds of mostly misses, would take hours). "
                   + (f"`dualfuzz fuzz` (engine (c), same seeds; raw log "
                      f"`bench/results/blackbox.jsonl`) needed at most {worst[1]:.2f} s as the "
                      f"median of a bug (`{worst[0]}`), so the budget is "
                      + ("longer" if args.seconds > worst[1] else "**not** longer")
                      + " than (c)'s median time for every bug; its slowest single run took "
                      f"{bb_max:.2f} s ({bb_max_at}), "
                      + ("also shorter than the budget. " if bb_max < args.seconds else
                         "longer than the budget (wall clock on the shared machine), so the "
                         "executions are the fair measure: ") if worst else "")
                   +                    f"{'in' if worst and bb_max >= args.seconds else 'In'} {past_total} of the {past_runs} missed runs whose bug `dualfuzz fuzz` "
                   "found with the same seed, the crash-only run executed at least as many "
                   "scripts as `dualfuzz fuzz` needed: it played the very script the oracle "
                   "rejected (the same seed gives the same scripts) and saw nothing wrong"
                   + (f"; in the other {past_runs - past_total} it stopped earlier, so those "
                      "misses say less" if past_runs > past_total else "") + "."
                   + (f" Checked directly in {dump_checked} missed runs: the bench saved the "
                      "script it played at the execution where `dualfuzz fuzz` reported the "
                      "bug (`--dump N FILE`), and `dualfuzz run --target inprocess:<bug> FILE` "
                      f"(the oracle on) rejected {dump_rejected} of them."
                      if dump_checked else ""))
        out.append("")
    out.append("```sh")
    out.append("cmake --build build --target crash_only_bench dualfuzz")
    out.append(f"bench/eval_crashonly.py --seconds {args.seconds:g}      "
               "# every bug x 5 seeds, and the correct server")
    out.append("build/bench/crash_only_bench --bug head-with-body --seconds 10 --seed 1   "
               "# one run, a JSON line")
    out.append("```")
    out.append("")
    return "\n".join(out)


def eval_blackbox_median(found_vals, n):
    """Median over n runs, a miss counting as +infinity (lower middle for an
    even n), as in eval_blackbox / eval_libfuzzer; None when undefined."""
    import statistics
    vals = sorted(found_vals) + [float("inf")] * (n - len(found_vals))
    if not vals:
        return None
    m = statistics.median_low(vals) if len(vals) % 2 == 0 else statistics.median(vals)
    return None if m == float("inf") else m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=os.path.join(ROOT, "build/bench/crash_only_bench"))
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"),
                    help="lists the bugs")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--bugs", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--correct-seed", type=int, default=1)
    ap.add_argument("--no-correct", action="store_true", help="skip the correct-server run")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/evaluation-journal.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/crashonly.jsonl"))
    ap.add_argument("--blackbox-raw", default=os.path.join(ROOT, "bench/results/blackbox.jsonl"))
    ap.add_argument("--build-note", default="")
    ap.add_argument("--reuse", action="store_true",
                    help="take runs already in --raw instead of re-running them")
    ap.add_argument("--render-only", action="store_true",
                    help="run nothing; render the section from --raw")
    args = ap.parse_args(argv)
    if not os.access(args.dualfuzz, os.X_OK):
        sys.exit(f"eval_crashonly: no dualfuzz at {args.dualfuzz}")
    if not args.render_only and not os.access(args.bench, os.X_OK):
        sys.exit(f"eval_crashonly: no crash_only_bench at {args.bench} "
                 "(cmake --build build --target crash_only_bench)")
    all_bugs = list_bugs(args.dualfuzz)
    bugs = all_bugs
    if args.bugs:
        wanted = args.bugs.split(",")
        bugs = [b for b in all_bugs if b[0] in wanted]
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    previous = load(args.raw)
    latest = latest_runs(previous, args.seeds, args.seconds)
    m = eval_blackbox.machine()
    bb = blackbox_found(args.blackbox_raw, args.connections)
    if not args.render_only:
        log = open(args.raw, "a")
        todo = ([] if args.no_correct else [(None, args.correct_seed)]) + \
            [(name, s) for s in range(1, args.seeds + 1) for name, _ in bugs]
        for bug, seed in todo:
            if args.reuse and (bug, seed) in latest:
                r = latest[(bug, seed)]
            else:
                b = bb.get((bug, seed)) if bug else None
                r = run_one(args, bug, seed, args.seconds,
                            b.get("executions") if b and b.get("violation") else None)
                r["commit"] = m["commit"]
                log.write(json.dumps(r) + "\n")
                log.flush()
                if "error" not in r:
                    latest[(bug, seed)] = r
            print(f"crash-only {bug or 'correct server'} seed {seed}: "
                  + (r["error"] if "error" in r else
                     f"{r.get('kind')} in {r['seconds']:.2f} s, {r.get('executions')} "
                     "executions" + ("" if r.get("found") else " (NOT reproduced)")
                     if r.get("violation") else
                     f"nothing in {r.get('executions')} executions"), file=sys.stderr)
    names = {k[0] for k in latest}
    shown = [b for b in all_bugs if b[0] in names]  # every bug with runs, not only --bugs
    m = eval_blackbox.runs_commit(m, list(latest.values()))
    eval_blackbox.write_section(args.out, render(m, args, shown, latest, bb), SECTION)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
