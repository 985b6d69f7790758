#!/usr/bin/env python3
"""Coverage-guided evaluation: libFuzzer + the custom mutator against the reference server.

Runs the libFuzzer target tests/fuzz/http_inprocess_fuzzer on every planted
bug (DUALFUZZ_BUG=<bug>, `dualfuzz bugs`) for seeds 1..N with a time budget,
and optionally on the correct server (no DUALFUZZ_BUG) for a long run that
must end without a crash. Writes the results as markdown into
docs/evaluation-journal.md, section "Coverage-guided fuzzing (libFuzzer + custom
mutator)" (the rest of the file is kept), next to the `dualfuzz fuzz`
(black-box) figures of bench/eval_blackbox.py.

  bench/eval_libfuzzer.py                              # 32 bugs x 5 seeds x 60 s
  bench/eval_libfuzzer.py --bugs etag-reuse,lost-update --seeds 2
  bench/eval_libfuzzer.py --correct-seconds 600        # + 10 min on the correct server
  bench/eval_libfuzzer.py --correct-only --correct-seconds 600 --reuse

Each run copies the seed corpus to a fresh temporary directory (libFuzzer
adds to it; nothing is written into the tree) and runs
  nice -n 10 http_inprocess_fuzzer -seed=s -max_total_time=T -print_final_stats=1
             -artifact_prefix=TMP/ TMP/corpus
one process at a time. Time to the first crash is wall clock measured here,
from the start of the process to the line `==dualfuzz== functional violation`
on its stderr; executions are libFuzzer's `stat::number_of_executed_units`
(the crashing input included; the last `#N` status line when stats are
missing). A crash counts as found only if the report is a dualfuzz violation
and `dualfuzz replay --target inprocess:<bug>` of the crash file reports one
too; any other crash (signal, timeout, out-of-memory) is an infrastructure
crash and is kept under --keep. Raw results (one JSON object per run) go to
--raw (default bench/results/libfuzzer.jsonl).
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (machine(), write_section(), fmt())

ROOT = eval_blackbox.ROOT
SECTION = "## Coverage-guided fuzzing (libFuzzer + custom mutator)"
VIOLATION_MARK = "==dualfuzz== functional violation"
STATUS = re.compile(r"^#(\d+)\s+(\w+)\s+(.*)$")
# Printed by the fuzz target just before a violation report.
PLAYED = re.compile(r"^==dualfuzz== played since start: (\d+) scripts, (\d+) messages")


def first_existing(paths):
    for p in paths:
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return paths[0]


def list_bugs(dualfuzz):
    bugs = []
    out = subprocess.run([dualfuzz, "bugs"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name, _, rest = line.partition("\t")
        cat = re.match(r"\[(\w+)\]", rest)
        if name:
            bugs.append((name, cat.group(1) if cat else ""))
    return bugs


def replay(dualfuzz, bug, path):
    """Exit code of `dualfuzz replay` (1 = violation) and its report."""
    if not dualfuzz or not os.access(dualfuzz, os.X_OK):
        return None, ""
    target = "inprocess:" + bug if bug else "inprocess"
    try:
        p = subprocess.run([dualfuzz, "replay", "--target", target, path],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "replay timed out"
    return p.returncode, p.stdout + p.stderr


def seeds_for(args, bug, dst):
    """Copies the seed corpus to dst minus the scripts that already trigger
    the bug (a bug a seed shows is not found by fuzzing; AFL++ refuses such
    seeds, bench/eval_afl.py drops them too); a one-GET script when nothing
    is left. Returns the names kept and dropped."""
    os.makedirs(dst, exist_ok=True)
    kept, dropped = [], []
    env = dict(os.environ)
    env.pop("DUALFUZZ_TARGET", None)
    if bug:
        env["DUALFUZZ_BUG"] = bug
    for f in sorted(os.listdir(args.corpus)):
        src = os.path.join(args.corpus, f)
        if not os.path.isfile(src):
            continue
        if bug:
            try:
                p = subprocess.run([args.fuzzer, src], env=env, capture_output=True,
                                   timeout=600)
                triggers = p.returncode != 0
            except subprocess.TimeoutExpired:
                triggers = True
            if triggers:
                dropped.append(f)
                continue
        shutil.copy(src, dst)
        kept.append(f)
    if not kept:
        with open(os.path.join(dst, "get.txt"), "w") as g:
            g.write('req 1 on c0: {"method":"GET","path":"/"}\n')
        kept.append("get.txt (generated)")
    return kept, dropped


def run_libfuzzer(args, bug, seed, seconds):
    """One libFuzzer process; returns the run's JSON record."""
    tmp = tempfile.mkdtemp(prefix="eval-libfuzzer-")
    corpus = os.path.join(tmp, "corpus")
    kept, dropped = seeds_for(args, bug, corpus)
    cmd = ["nice", "-n", str(args.nice), args.fuzzer, f"-seed={seed}",
           f"-max_total_time={seconds:g}", "-print_final_stats=1",
           f"-artifact_prefix={tmp}/"] + args.extra.split() + [corpus]
    env = dict(os.environ)
    env.pop("DUALFUZZ_TARGET", None)
    if bug:
        env["DUALFUZZ_BUG"] = bug
    else:
        env.pop("DUALFUZZ_BUG", None)
    rec = {"bug": bug or None, "seed": seed, "budget": seconds,
           "cmd": ("DUALFUZZ_BUG=" + bug + " " if bug else "") + " ".join(cmd),
           "seeds": kept, "seeds_dropped": dropped}
    stats = {}
    last_status = None
    crash_at = None
    report = []
    in_report = False
    errors = []
    log_path = os.path.join(tmp, "fuzz.log")
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             errors="replace", env=env, cwd=tmp)
        for line in p.stderr:
            log.write(line)
            s = line.rstrip("\n")
            pm = PLAYED.match(s)
            if pm and "messages" not in rec:
                rec["scripts_played"] = int(pm.group(1))
                rec["messages"] = int(pm.group(2))
            if s.startswith(VIOLATION_MARK) and crash_at is None:
                crash_at = time.monotonic() - t0
                in_report = True
            if in_report:
                if s.startswith("==") and "ERROR: libFuzzer" in s or s.startswith("MS: "):
                    in_report = False
                elif len(report) < 400:
                    report.append(s)
            if "ERROR: libFuzzer" in s or "ERROR: AddressSanitizer" in s \
                    or "runtime error:" in s:
                errors.append(s)
                if crash_at is None:
                    crash_at = time.monotonic() - t0
            m = STATUS.match(s)
            if m and crash_at is None:
                last_status = (int(m.group(1)), m.group(2), m.group(3))
            if s.startswith("stat::"):
                k, _, v = s[len("stat::"):].partition(":")
                try:
                    stats[k.strip()] = int(v.strip())
                except ValueError:
                    pass
        p.wait()
    wall = time.monotonic() - t0
    rec["exit"] = p.returncode
    rec["wall_seconds"] = round(wall, 3)
    if "number_of_executed_units" in stats:
        rec["executions"] = stats["number_of_executed_units"]
    elif last_status:
        rec["executions"] = last_status[0] + (1 if crash_at is not None else 0)
    if "average_exec_per_sec" in stats:
        rec["exec_per_sec"] = stats["average_exec_per_sec"]
    for k in ("new_units_added", "peak_rss_mb", "slowest_unit_time_sec"):
        if k in stats:
            rec[k] = stats[k]
    if last_status:
        for k, v in re.findall(r"(cov|ft|corp): (\S+)", last_status[2]):
            rec[k] = v
    artifacts = sorted(glob.glob(os.path.join(tmp, "crash-*")) + glob.glob(
        os.path.join(tmp, "oom-*")) + glob.glob(os.path.join(tmp, "timeout-*")) +
        glob.glob(os.path.join(tmp, "leak-*")) + glob.glob(os.path.join(tmp, "slow-unit-*")))
    slow = [a for a in artifacts if os.path.basename(a).startswith("slow-unit-")]
    artifacts = [a for a in artifacts if a not in slow]
    if slow:
        # Inputs that took longer than -report_slow_units (10 s): not crashes,
        # but kept (the slowest last) to look at the oracle's cost.
        rec["slow_units"] = len(slow)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            newest = max(slow, key=os.path.getmtime)
            dst = os.path.join(args.keep, f"{bug or 'correct'}-s{seed}-"
                               + os.path.basename(newest))
            shutil.copy(newest, dst)
            rec["slow_unit_kept"] = dst
    violation = crash_at is not None and bool(report) and p.returncode != 0
    rec["violation"] = False
    if crash_at is None and not artifacts and p.returncode != 0:
        # Could not run at all (no binary, bad environment): not a result.
        with open(log_path) as f:
            tail = f.read().strip().splitlines()
        rec["error"] = f"exit {p.returncode}: " + (tail[-1] if tail else "no output")
    elif crash_at is not None or p.returncode != 0 or artifacts:
        rec["seconds"] = round(crash_at if crash_at is not None else wall, 3)
        rec["errors"] = errors[:5]
        kept = []
        if args.keep and artifacts:
            os.makedirs(args.keep, exist_ok=True)
            for a in artifacts:
                dst = os.path.join(args.keep, f"{bug or 'correct'}-s{seed}-"
                                   + os.path.basename(a))
                shutil.copy(a, dst)
                kept.append(dst)
            shutil.copy(log_path, os.path.join(args.keep, f"{bug or 'correct'}-s{seed}.log"))
        rec["artifacts"] = kept or artifacts
        if kept:
            kept = [k for k in kept if os.path.basename(k).startswith(
                f"{bug or 'correct'}-s{seed}-crash-")]
        crash_files = [a for a in artifacts if os.path.basename(a).startswith("crash-")]
        if violation and crash_files:
            rec["kind"] = ("protocol" if any("PROTOCOL VIOLATION" in l for l in report)
                           else "liveness" if any("LIVENESS" in l for l in report)
                           else "model")
            code, rep = replay(args.replay_with, bug, kept[0] if kept
                               else crash_files[0])
            rec["replay_exit"] = code
            # Found: the fuzz target reported a violation and the crash file
            # replays to one (exit 1) — or no CLI to check with.
            rec["violation"] = code in (1, None)
            if code not in (1, None):
                rec["replay_report"] = rep[-2000:]
        else:
            rec["infrastructure_crash"] = True
        if not rec["violation"] or not bug:
            rec["report"] = "\n".join(report)[-4000:]
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


def med_with_misses(found_vals, n):
    """Median over n runs, a miss counting as +infinity (defined when more
    than half the runs found it); the lower middle for an even n, as in
    eval_blackbox."""
    vals = sorted(found_vals) + [float("inf")] * (n - len(found_vals))
    if not vals:
        return None
    m = statistics.median_low(vals) if len(vals) % 2 == 0 else statistics.median(vals)
    return None if m == float("inf") else m


def summarize(runs, key_time, key_exec):
    found = [r for r in runs if r.get("violation")]
    return {"found": len(found), "runs": len(runs),
            "seconds": med_with_misses([r[key_time] for r in found], len(runs)),
            "executions": med_with_misses([r[key_exec] for r in found
                                           if key_exec in r], len(runs))
            if all(key_exec in r for r in found) else None}


def blackbox_rows(path, seeds, connections):
    """Per bug: found/runs and median time and executions of `dualfuzz fuzz`,
    from eval_blackbox's raw log (the latest run per bug and seed), or else
    from the table of its section in docs/evaluation-journal.md (time only)."""
    rows = {}
    if path and os.path.exists(path):
        latest = {}
        for line in open(path):
            if not line.strip():
                continue
            r = json.loads(line)
            t = r.get("target", "")
            if t.startswith("inprocess:") and "error" not in r and r.get("seed", 0) <= seeds \
                    and r.get("connections") == connections:
                latest[(t[len("inprocess:"):], r["seed"])] = r
        by_bug = {}
        for (b, _), r in latest.items():
            by_bug.setdefault(b, []).append(r)
        for b, rs in by_bug.items():
            rows[b] = summarize(rs, "seconds", "executions")
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        return rows, (f"`{rel}`" if rel.startswith("bench" + os.sep) else
                      "the raw log of the `bench/eval_blackbox.py` run shown in the black-box "
                      "section above")
    doc = os.path.join(ROOT, "docs/evaluation-journal.md")
    if os.path.exists(doc):
        text = open(doc).read()
        start = text.find(eval_blackbox.SECTION)
        if start >= 0:
            nxt = re.search(r"^## ", text[start + len(eval_blackbox.SECTION):], re.M)
            body = text[start:start + len(eval_blackbox.SECTION) + nxt.start()] if nxt \
                else text[start:]
            for m in re.finditer(r"^\| `([^`]+)` \| \w* \| (\d+)/(\d+) \| ([^|]+) \|", body,
                                 re.M):
                t = m.group(4).strip()
                rows[m.group(1)] = {"found": int(m.group(2)), "runs": int(m.group(3)),
                                    "seconds": None if t == "—" else float(t),
                                    "executions": None}
            return rows, "the table of the black-box section above"
    return rows, None


def render(m, args, bugs, results, correct, bb, bb_source, kept_correct=None):
    fmt = eval_blackbox.fmt
    out = [SECTION, ""]
    out.append(f"Generated by `bench/eval_libfuzzer.py` on {m['date']}; fuzz target "
               + (args.build_note or f"runs made at commit `{m['commit']}`") + ". "
               "Built with `-fsanitize=fuzzer` only (`-DDUALFUZZ_BUILD_FUZZERS=ON`, "
               "no `DUALFUZZ_SANITIZE`): no ASan/UBSan, so what is measured is the "
               "functional oracle, at the speed a functional fuzzing campaign would run.")
    out.append("")
    out.append(f"Machine: {m['nproc']} vCPU (`nproc` = {m['nproc']}), "
               f"`lscpu | grep 'Model name'`: {m['cpu']}; {m['mem']} RAM; "
               f"Linux {m['kernel']} (Firecracker VM). The two vCPUs were shared with other "
               "builds and runs (the fuzzer ran under `nice -n 10`, one process at a time), "
               "so wall-clock times are upper bounds; executions do not depend on load.")
    out.append("")
    if correct:
        out.append("### False alarms on the correct server")
        out.append("")
        out.append("`http_inprocess_fuzzer -seed=s -max_total_time=S -print_final_stats=1 "
                   "CORPUS` without `DUALFUZZ_BUG` (the correct reference server); any "
                   "crash here would be a false alarm of the model or a harness bug.")
        out.append("")
        out.append("| seed | seconds | executions | exec/s | coverage (cov / ft) | corpus "
                   "| slowest input (s) | peak RSS (MB) | crash |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in correct:
            if r.get("violation"):
                crash = "**violation** (" + ", ".join(os.path.basename(a) for a in
                                                     r.get("artifacts", [])) + ")"
            elif r.get("infrastructure_crash"):
                crash = "**infrastructure crash**: " + "; ".join(r.get("errors", []))[:200]
            else:
                crash = "none"
            out.append(f"| {r['seed']} | {fmt(r['wall_seconds'], 0)} | "
                       f"{r.get('executions', '—')} | {r.get('exec_per_sec', '—')} | "
                       f"{r.get('cov', '—')} / {r.get('ft', '—')} | {r.get('corp', '—')} | "
                       f"{r.get('slowest_unit_time_sec', '—')} | "
                       f"{r.get('peak_rss_mb', '—')} | {crash} |")
        out.append("")
    elif kept_correct:
        out.append(kept_correct)
        out.append("")
    if results:
        out.append("### Planted bugs")
        out.append("")
        out.append(f"Each bug: `DUALFUZZ_BUG=<bug> http_inprocess_fuzzer -seed=s "
                   f"-max_total_time={args.seconds:g} -print_final_stats=1 CORPUS` for seeds "
                   f"1..{args.seeds}, CORPUS a fresh copy of "
                   f"`{os.path.relpath(args.corpus, ROOT)}` "
                   f"({len(os.listdir(args.corpus))} scripts) minus the scripts that already "
                   "trigger the bug (then a one-GET script), as for AFL++: a bug a seed "
                   "shows is not found by fuzzing"
                   + (f" ({sum(1 for r in results if r.get('seeds_dropped'))} of "
                      f"{len(results)} runs had a seed dropped)"
                      if any("seeds_dropped" in r for r in results) else "")
                   + ". *time* is the wall clock "
                   "from the start of the process to the violation report (corpus loading "
                   "included), *executions* libFuzzer's `stat::number_of_executed_units` "
                   "(inputs played, the crashing one included; the fuzz target's own count "
                   "of scripts played and of messages, printed before the report, gives "
                   "*messages* in the combined table); both are medians over the "
                   "seeds, a miss counting as infinite. A run counts as found only if the "
                   "crash is a dualfuzz violation and its crash file replays to one "
                   "(`dualfuzz replay --target inprocess:<bug>`). The `dualfuzz fuzz` "
                   "columns (black-box generation and mutation, no coverage, 4 connections, "
                   f"same seeds and budget) are from {bb_source or '— (no black-box results)'}.")
        out.append("")
        out.append("| bug | category | libFuzzer found | median time (s) | median executions "
                   "| verdict | `dualfuzz fuzz` found | median time (s) | median executions |")
        out.append("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
        rows = []
        for name, cat in bugs:
            rs = [r for r in results if r.get("bug") == name]
            s = summarize(rs, "seconds", "executions")
            kinds = sorted({r.get("kind", "?") for r in rs if r.get("violation")})
            infra = sum(1 for r in rs if r.get("infrastructure_crash"))
            b = bb.get(name)
            missing = args.seeds - len(rs)
            found = f"{s['found']}/{s['runs']}" + (f" ({missing} not run)" if missing > 0
                                                   else "")
            verdict = ", ".join(kinds) or "—"
            if infra:
                verdict += f"; {infra} infrastructure crash(es)"
            unrepro = sum(1 for r in rs if r.get("kind") and not r.get("violation"))
            if unrepro:
                verdict += f"; {unrepro} not reproduced by `dualfuzz replay`"
            out.append(f"| `{name}` | {cat} | {found} | {fmt(s['seconds'], 2)} | "
                       f"{fmt(s['executions'], 0)} | {verdict} | "
                       + (f"{b['found']}/{b['runs']} | {fmt(b['seconds'], 2)} | "
                          f"{fmt(b['executions'], 0)} |" if b else "— | — | — |"))
            rows.append((name, s, b, len(rs)))
        out.append("")
        ran = [r for r in rows if r[3]]
        every = sum(1 for _, s, _, n in ran if s["found"] == n)
        some = sum(1 for _, s, _, n in ran if 0 < s["found"] < n)
        none = [n for n, s, _, k in ran if s["found"] == 0]
        notrun = [n for n, _, _, k in rows if k < args.seeds]
        out.append(f"libFuzzer: found by every seed within {args.seconds:g} s: {every} of "
                   f"{len(ran)} bugs run; by some seeds: {some}; by none: {len(none)}"
                   + (f" ({', '.join('`' + b + '`' for b in none)})" if none else "")
                   + ".")
        if notrun:
            done = sum(min(k, args.seeds) for _, _, _, k in rows)
            out.append("")
            out.append(f"**Incomplete:** {done} of {len(rows) * args.seeds} runs done "
                       "(seed-major order, stopped at the deadline); *found* is out of the "
                       "runs done, the medians are over those runs"
                       + (f"; missing runs for {', '.join('`' + b + '`' for b in notrun)}"
                          if len(notrun) <= 8 else f"; {len(notrun)} bugs have missing runs")
                       + ".")
        both = [(s, b) for _, s, b, _ in ran if b and s["seconds"] is not None
                and b["seconds"] is not None]
        if both:
            lf_faster = sum(1 for s, b in both if s["seconds"] < b["seconds"])
            tot_lf = sum(s["seconds"] for s, _ in both)
            tot_bb = sum(b["seconds"] for _, b in both)
            out.append("")
            out.append(f"Of the {len(both)} bugs with a median for both, libFuzzer's median "
                       f"time is lower for {lf_faster}; sums of the medians: libFuzzer "
                       f"{tot_lf:.1f} s, `dualfuzz fuzz` {tot_bb:.1f} s.")
            bothx = [(s, b) for s, b in both if s["executions"] is not None
                     and b["executions"] is not None]
            if bothx:
                fewer = sum(1 for s, b in bothx if s["executions"] < b["executions"])
                out.append(f"libFuzzer needs fewer executions for {fewer} of {len(bothx)}; "
                           f"sums of the median executions: libFuzzer "
                           f"{sum(s['executions'] for s, _ in bothx):.0f}, `dualfuzz fuzz` "
                           f"{sum(b['executions'] for _, b in bothx):.0f}.")
        rates = [r["exec_per_sec"] for r in results if r.get("exec_per_sec")]
        if rates:
            out.append("")
            out.append(f"Speed: libFuzzer's `stat::average_exec_per_sec` over the {len(rates)} "
                       f"bug runs: median {statistics.median(rates):g}, range "
                       f"{min(rates)}–{max(rates)} executions per second.")
        out.append("")
    out.append("### Coverage-guided fuzzing: how to reproduce, and notes")
    out.append("")
    out.append("```sh")
    out.append("cmake -S . -B build-lf -G Ninja -DCMAKE_CXX_COMPILER=clang++ "
               "-DCMAKE_BUILD_TYPE=RelWithDebInfo \\")
    out.append("      -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_BUILD_TESTS=OFF "
               "-DDUALFUZZ_BUILD_BENCH=OFF")
    out.append("cmake --build build-lf --target http_inprocess_fuzzer")
    out.append("# the CLI (bug list, replay) from a build without fuzzer instrumentation:")
    out.append("cmake -S . -B build-lf-cli -G Ninja -DCMAKE_CXX_COMPILER=clang++ "
               "-DCMAKE_BUILD_TYPE=RelWithDebInfo \\")
    out.append("      -DDUALFUZZ_BUILD_TESTS=OFF -DDUALFUZZ_BUILD_BENCH=OFF "
               "&& cmake --build build-lf-cli --target dualfuzz")
    out.append("bench/eval_libfuzzer.py                           # 32 bugs x 5 seeds x 60 s")
    out.append("bench/eval_libfuzzer.py --correct-only --correct-seconds 600 --reuse  "
               "# 10 min, correct server")
    out.append("DUALFUZZ_BUG=lost-update build-lf/tests/fuzz/http_inprocess_fuzzer "
               "-seed=1 corpus/   # by hand")
    out.append("build-lf-cli/cli/dualfuzz replay --target inprocess:lost-update "
               "crash-…   # the report again")
    out.append("```")
    out.append("")
    out.append("The fuzz target parses each input as a script, plays it against a fresh "
               "in-process reference server and judges the trace with the oracle; "
               "`LLVMFuzzerCustomMutator`/`LLVMFuzzerCustomCrossOver` "
               "(`mutator/libfuzzer/mutator_hooks.cpp`) replace libFuzzer's byte "
               "mutations by the structure-aware script mutator, so coverage decides which "
               "scripts are kept and mutated further. libFuzzer's defaults are kept "
               "(`-len_control`, `-max_len` from the corpus, `-timeout=1200`, "
               "`-rss_limit_mb=2048`): an input the oracle judges slowly or with many "
               "hypotheses is not a crash, only an out-of-memory or timeout would be "
               "(reported as an infrastructure crash). "
               "`bench/results/libfuzzer.jsonl` keeps one JSON object per run "
               "(command, executions, exec/s, coverage, crash kind, replay exit code).")
    out.append("")
    out.append("The fuzz target plays every input with liveness checking on "
               "(`Player::fuzz_options`): a request still unanswered after 2 s of silence "
               "is a violation, reported as *liveness* (e.g. `chunked-decimal`: the client "
               "reads the decimal chunk size as hex and waits for bytes that never come, "
               "where `dualfuzz fuzz` usually sees the *protocol* error first). "
               "Inputs are whole scripts that libFuzzer keeps when they add coverage, so "
               "the corpus drifts towards longer scripts (up to `-max_len`, 4096 bytes) "
               "whose judgement costs more than `dualfuzz fuzz`'s freshly generated "
               "short ones; executions are therefore not directly comparable in cost.")
    out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fuzzer", default=first_existing([
        os.path.join(ROOT, d, "tests/fuzz/http_inprocess_fuzzer")
        for d in ("build-lf", "build-fuzz")]))
    ap.add_argument("--dualfuzz", default=first_existing([
        os.path.join(ROOT, d, "cli/dualfuzz") for d in ("build-lf-cli", "build")]),
        help="for `bugs` and `replay`")
    ap.add_argument("--replay-with", default="",
                    help="dualfuzz CLI for `replay` of crash files (default: --dualfuzz)")
    ap.add_argument("--revalidate", action="store_true",
                    help="with --reuse: replay the kept crash file of every reused run "
                    "whose replay did not run or did not finish (no exit 0/1)")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--bugs", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--correct-seconds", type=float, default=0,
                    help="run on the correct server this long; 0 skips it")
    ap.add_argument("--correct-seed", type=int, default=1)
    ap.add_argument("--correct-only", action="store_true")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--extra", default="", help="more libFuzzer flags")
    ap.add_argument("--keep", default=os.path.join(ROOT, "build-lf/eval-crashes"),
                    help="where crash files of infrastructure crashes and of the correct "
                    "server are copied ('' to drop them)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/evaluation-journal.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/libfuzzer.jsonl"))
    ap.add_argument("--blackbox-raw", default=os.path.join(ROOT, "bench/results/blackbox.jsonl"),
                    help="eval_blackbox.py's raw log for the comparison columns (default: "
                    "its own; else the black-box table of --out)")
    ap.add_argument("--blackbox-connections", type=int, default=4)
    ap.add_argument("--build-note", default="",
                    help="how the fuzz target was built (default: this checkout's commit)")
    ap.add_argument("--reuse", action="store_true",
                    help="take runs already in --raw instead of re-running them")
    ap.add_argument("--render-only", action="store_true",
                    help="run nothing: render the section from the runs in --raw")
    ap.add_argument("--deadline", default="",
                    help="UTC HH:MM: start no run that could end after it; render what exists")
    args = ap.parse_args(argv)
    if args.render_only:  # the latest runs of every bug and seed, nothing run
        args.reuse = args.correct_only = True
        args.correct_seconds = 0
    args.fuzzer = os.path.abspath(args.fuzzer)
    args.dualfuzz = os.path.abspath(args.dualfuzz)
    args.corpus = os.path.abspath(args.corpus)
    args.replay_with = os.path.abspath(args.replay_with or args.dualfuzz)
    if not args.render_only and not os.access(args.fuzzer, os.X_OK):
        sys.exit(f"eval_libfuzzer: no fuzz target at {args.fuzzer} (build it or pass --fuzzer)")
    if not os.path.isdir(args.corpus):
        args.corpus = os.path.join(ROOT, "corpora/http")
    all_bugs = list_bugs(args.dualfuzz) if os.access(args.dualfuzz, os.X_OK) else []
    if not all_bugs:
        sys.exit(f"eval_libfuzzer: cannot list bugs with {args.dualfuzz} (pass --dualfuzz)")
    bugs = all_bugs
    if args.bugs:
        wanted = args.bugs.split(",")
        bugs = [b for b in all_bugs if b[0] in wanted]
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    previous = []
    if os.path.exists(args.raw):
        previous = [json.loads(l) for l in open(args.raw) if l.strip()]
    log = open(args.raw, "a")
    m = eval_blackbox.machine()
    deadline = None
    if args.deadline:
        hh, mm = map(int, args.deadline.split(":"))
        now = time.gmtime()
        deadline = time.time() + ((hh * 60 + mm) - (now.tm_hour * 60 + now.tm_min)) * 60 \
            - now.tm_sec

    def usable(r, budget):
        return "error" not in r and r.get("budget") == budget

    def emit(r):
        r["fuzzer"] = args.fuzzer
        r["commit"] = m["commit"]
        log.write(json.dumps(r) + "\n")
        log.flush()

    def too_late(budget):
        return deadline is not None and time.time() + budget + 30 > deadline

    correct = []
    if args.correct_seconds:
        old = [r for r in previous if r.get("bug") is None and r.get("seed") == args.correct_seed
               and usable(r, args.correct_seconds)]
        if old and args.reuse:
            r = old[-1]
        elif too_late(args.correct_seconds):
            r = None
            print("correct server: skipped (deadline)", file=sys.stderr)
        else:
            r = run_libfuzzer(args, None, args.correct_seed, args.correct_seconds)
            emit(r)
        if r:
            print(f"correct server: {'CRASH' if 'seconds' in r else 'no crash'} "
                  f"({r.get('executions', '?')} executions, {r.get('exec_per_sec', '?')}/s)",
                  file=sys.stderr)
            if "seconds" in r:
                print(r.get("report", ""), "\n".join(r.get("errors", [])),
                      r.get("artifacts"), file=sys.stderr)
    # The report lists the latest correct-server run of each seed.
    latest = {}
    for r in previous + ([r] if args.correct_seconds and r else []):
        if r.get("bug") is None and "error" not in r:
            latest[r["seed"]] = r
    correct = [latest[k] for k in sorted(latest)]

    results = []
    if args.correct_only:
        bugs = []
        latest = {}
        for r in previous:
            if r.get("bug") and r.get("budget") == args.seconds and r["seed"] <= args.seeds:
                latest[(r["bug"], r["seed"])] = r
        results = list(latest.values())
        names = {r["bug"] for r in results}
        bugs = [b for b in all_bugs if b[0] in names]
    else:
        # Seed-major, so that a run cut short by --deadline has every bug.
        for seed in range(1, args.seeds + 1):
            for name, _ in bugs:
                old = [r for r in previous if r.get("bug") == name and r.get("seed") == seed
                       and usable(r, args.seconds)]
                if old and args.reuse:
                    r = old[-1]
                    if args.revalidate and r.get("kind") and r.get("replay_exit") not in (0, 1) \
                            and r.get("artifacts") and os.path.exists(r["artifacts"][0]):
                        code, rep = replay(args.replay_with, name, r["artifacts"][0])
                        r = dict(r, replay_exit=code, violation=code in (1, None))
                        if code not in (1, None):
                            r["replay_report"] = rep[-2000:]
                        emit(r)
                elif too_late(args.seconds):
                    print(f"{name} seed {seed}: not run (deadline)", file=sys.stderr)
                    continue
                else:
                    r = run_libfuzzer(args, name, seed, args.seconds)
                    emit(r)
                if "error" in r:
                    print(f"{name} seed {seed}: ERROR {r['error']}", file=sys.stderr)
                    continue
                results.append(r)
                print(f"{name} seed {seed}: "
                      + (f"found in {r['seconds']:.2f} s, {r.get('executions')} executions"
                         f" ({r.get('kind')})" if r.get("violation")
                         else "INFRASTRUCTURE CRASH " + "; ".join(r.get("errors", []))
                         if r.get("infrastructure_crash") else "not found"), file=sys.stderr)

    bb, bb_source = blackbox_rows(args.blackbox_raw, args.seeds, args.blackbox_connections)
    kept = None
    if not correct:
        block, commit = eval_blackbox.old_subsection(args.out, SECTION,
                                                     "False alarms on the correct server")
        kept = eval_blackbox.keep_block(block, commit) if block else None
    m = eval_blackbox.runs_commit(m, results + correct)
    eval_blackbox.write_section(args.out, render(m, args, bugs, results, correct, bb,
                                                 bb_source, kept), SECTION)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
