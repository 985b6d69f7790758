#!/usr/bin/env python3
"""AFL++ 4.04c + the dualfuzz custom mutator library against the reference server.

Runs afl-fuzz on the AFL++ build of tests/fuzz/http_inprocess_fuzzer
(scripts/afl/fuzz.sh build) with AFL_CUSTOM_MUTATOR_LIBRARY=
libdualfuzz_afl_mutator.so and AFL_CUSTOM_MUTATOR_ONLY=1:

  * every planted bug (DUALFUZZ_BUG=<bug>) for seeds 1..N (`afl-fuzz -s SEED`)
    with a time budget (`-V`), stopping at the first crash
    (AFL_BENCH_UNTIL_CRASH=1); time and executions to the first crash are
    read from its file name (`time:` ms since afl-fuzz started, `execs:`);
    the crash counts only if `dualfuzz replay --target inprocess:<bug>` of
    the crash file reports a violation (exit 1) and `--target inprocess`
    (the correct server) passes (exit 0);
  * optionally the correct server for a long run (--correct-seconds 600):
    any crash there is a false alarm or a harness bug;
  * optionally minimization of crash files (--tmin): afl-tmin (byte level;
    afl-tmin 4.04c has no custom-mutator support), afl-fuzz's own trim stage
    with the library's afl_custom_trim (crash exploration mode `-C` with the
    crash file as the only seed, AFL_BENCH_JUST_ONE=1: the trimmed seed is
    queue/id:000000), and `dualfuzz minimize` for comparison; every result
    is replayed.

Writes the section "Coverage-guided fuzzing (AFL++ 4.04c + custom mutator)"
of docs/evaluation-journal.md (the rest is kept). Raw results: --raw (default
bench/results/afl.jsonl), one JSON object per run.

  bench/eval_afl.py                                   # 32 bugs x 5 seeds x 60 s
  bench/eval_afl.py --bugs lost-update,etag-reuse --seeds 2 --seconds 20
  bench/eval_afl.py --correct-seconds 600 --reuse     # + 10 min on the correct server
  bench/eval_afl.py --tmin lost-update,412-on-match --reuse
  bench/eval_afl.py --render-only
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402
import eval_crashonly  # noqa: E402  (list_bugs, load, median with misses)

ROOT = eval_blackbox.ROOT
SECTION = "## Coverage-guided fuzzing (AFL++ 4.04c + custom mutator)"
CRASH_NAME = re.compile(r"time:(\d+),execs:(\d+)")


def first_existing(paths):
    for p in paths:
        if os.path.exists(p):
            return p
    return paths[0]


def afl_env(args, bug):
    env = dict(os.environ)
    env.pop("DUALFUZZ_TARGET", None)
    env.update({
        "AFL_CUSTOM_MUTATOR_LIBRARY": args.mutator,
        "AFL_CUSTOM_MUTATOR_ONLY": "1",  # every input stays a parseable script
        "AFL_SKIP_CPUFREQ": "1",
        "AFL_NO_UI": "1",
        "AFL_NO_AFFINITY": "1",  # a shared machine: do not pin a core
        "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
        "AFL_QUIET": "1",
    })
    if bug:
        env["DUALFUZZ_BUG"] = bug
    else:
        env.pop("DUALFUZZ_BUG", None)
    return env


def triggers(args, bug, path):
    """Does the target abort on this input with the bug planted?"""
    try:
        p = subprocess.run([args.target, path], env=afl_env(args, bug),
                           capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return True
    return p.returncode != 0


def seeds_for(args, bug, dst):
    """The seed corpus minus the scripts that already trigger the bug
    (afl-fuzz refuses crashing seeds; a bug found by a seed is not found by
    fuzzing); a one-GET script when nothing is left."""
    os.makedirs(dst, exist_ok=True)
    kept, dropped = [], []
    for f in sorted(os.listdir(args.corpus)):
        src = os.path.join(args.corpus, f)
        if not os.path.isfile(src):
            continue
        if bug and triggers(args, bug, src):
            dropped.append(f)
        else:
            shutil.copy(src, dst)
            kept.append(f)
    if not kept:
        with open(os.path.join(dst, "get.txt"), "w") as g:
            g.write('req 1 on c0: {"method":"GET","path":"/"}\n')
        kept.append("get.txt (generated)")
    return kept, dropped


def fuzzer_stats(out):
    stats = {}
    for path in glob.glob(os.path.join(out, "*", "fuzzer_stats")):
        for line in open(path):
            k, _, v = line.partition(":")
            stats[k.strip()] = v.strip()
    return stats


def replay(args, bug, path):
    """Exit code of `dualfuzz replay --target inprocess[:bug] path` and the
    kind of violation it reports."""
    target = "inprocess:" + bug if bug else "inprocess"
    try:
        p = subprocess.run([args.dualfuzz, "replay", "--target", target, path],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "timeout", ""
    text = p.stdout + p.stderr
    kind = ("protocol" if "PROTOCOL VIOLATION" in text else
            "liveness" if "LIVENESS" in text else
            "model" if p.returncode == 1 else None)
    return p.returncode, kind, text


def run_afl(args, bug, seed, seconds, until_crash=True):
    tmp = tempfile.mkdtemp(prefix="eval-afl-", dir=args.work)
    seeds = os.path.join(tmp, "seeds")
    kept, dropped = seeds_for(args, bug, seeds)
    out = os.path.join(tmp, "out")
    cmd = ["nice", "-n", str(args.nice), "afl-fuzz", "-s", str(seed), "-V", f"{seconds:g}",
           "-i", seeds, "-o", out] + args.extra.split() + ["--", args.target]
    env = afl_env(args, bug)
    if until_crash:
        env["AFL_BENCH_UNTIL_CRASH"] = "1"
    rec = {"bug": bug or None, "seed": seed, "budget": seconds,
           "cmd": ("DUALFUZZ_BUG=" + bug + " " if bug else "")
           + ("AFL_BENCH_UNTIL_CRASH=1 " if until_crash else "") + " ".join(cmd),
           "seeds": kept, "seeds_dropped": dropped}
    t0 = time.monotonic()
    log_path = os.path.join(tmp, "afl-fuzz.log")
    with open(log_path, "w") as log:
        p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                           timeout=seconds + 900)
    rec["wall_seconds"] = round(time.monotonic() - t0, 3)
    rec["exit"] = p.returncode
    stats = fuzzer_stats(out)
    for k in ("execs_done", "execs_per_sec", "stability", "corpus_count", "saved_crashes",
              "saved_hangs", "run_time", "bitmap_cvg", "cycles_done", "slowest_exec_ms",
              "exec_timeout", "peak_rss_mb", "execs_ps_last_min", "edges_found", "total_edges",
              "corpus_variable"):
        if k in stats:
            v = stats[k]
            try:
                v = float(v) if "." in v else int(v)
            except ValueError:
                pass
            rec[k] = v
    if not stats:
        tail = open(log_path, errors="replace").read().strip().splitlines()
        rec["error"] = f"exit {p.returncode}: " + " | ".join(tail[-3:])
        shutil.rmtree(tmp, ignore_errors=True)
        return rec
    crashes = []
    for f in glob.glob(os.path.join(out, "*", "crashes", "id:*")):
        m = CRASH_NAME.search(os.path.basename(f))
        if m:
            crashes.append((int(m.group(1)), int(m.group(2)), f))
    crashes.sort()
    rec["violation"] = False
    if crashes:
        ms, execs, f = crashes[0]
        os.makedirs(args.keep, exist_ok=True)
        kept_file = os.path.join(args.keep, f"{bug or 'correct'}-s{seed}-crash.txt")
        shutil.copy(f, kept_file)
        rec["crash_file"] = os.path.relpath(kept_file, ROOT)
        rec["crash_name"] = os.path.basename(f)
        rec["crash_bytes"] = os.path.getsize(f)
        rec["seconds"] = ms / 1000.0
        rec["executions"] = execs
        code, kind, text = replay(args, bug, kept_file)
        rec["replay_exit"] = code
        rec["kind"] = kind
        if bug:
            ok_code, _, _ = replay(args, None, kept_file)
            rec["replay_correct_exit"] = ok_code
            rec["violation"] = code == 1 and ok_code == 0
        if not rec["violation"]:
            rec["replay_report"] = text[-3000:]
    if not bug and args.keep:
        # The correct server's queue, for whoever wants to look at it.
        dst = os.path.join(args.keep, f"correct-s{seed}-out")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(out, dst, ignore=shutil.ignore_patterns(".cur_input", ".synced"),
                        dirs_exist_ok=True)
        shutil.copy(log_path, os.path.join(args.keep, f"correct-s{seed}-afl-fuzz.log"))
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


def steps_of(path):
    """Requests / all steps of a script file (lines starting req/wait/close)."""
    reqs = steps = 0
    for line in open(path, errors="replace"):
        w = line.split(" ", 1)[0]
        if w in ("req", "wait", "close"):
            steps += 1
            reqs += w == "req"
    return reqs, steps


def describe(args, bug, path):
    code, kind, text = replay(args, bug, path)
    ok, _, _ = replay(args, None, path)
    reqs, steps = steps_of(path)
    return {"bytes": os.path.getsize(path), "requests": reqs, "steps": steps,
            "replay_exit": code, "kind": kind, "replay_correct_exit": ok}


def minimize(args, bug, crash):
    """afl-tmin, afl-fuzz's custom trim (crash exploration), dualfuzz minimize."""
    tmp = tempfile.mkdtemp(prefix="eval-tmin-", dir=args.work)
    rec = {"tmin": True, "bug": bug, "input": os.path.relpath(crash, ROOT),
           "original": describe(args, bug, crash)}
    env = afl_env(args, bug)
    # 1. afl-tmin (the mutator library in the environment: 4.04c ignores it).
    out = os.path.join(args.keep, f"{bug}-afl-tmin.txt")
    t0 = time.monotonic()
    p = subprocess.run(["nice", "-n", str(args.nice), "afl-tmin", "-i", crash, "-o", out, "--",
                        args.target], env=env, capture_output=True, text=True, timeout=1800)
    log = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr)
    rec["afl_tmin"] = {"exit": p.returncode, "seconds": round(time.monotonic() - t0, 1),
                       "log_tail": log.strip().splitlines()[-4:]}
    m = re.search(r"Final size\s*:\s*(.*)", log) or re.search(r"(\d+) bytes.*ok", log)
    if m:
        rec["afl_tmin"]["final"] = m.group(1).strip()
    m = re.search(r"total execs? *: *(\d+)|(\d+) execs", log, re.I)
    if m:
        rec["afl_tmin"]["execs"] = int(m.group(1) or m.group(2))
    rec["afl_tmin"]["mentions_custom_mutator"] = "custom" in log.lower()
    if p.returncode == 0 and os.path.exists(out):
        rec["afl_tmin"].update(describe(args, bug, out))
        rec["afl_tmin"]["file"] = os.path.relpath(out, ROOT)
    # 2. afl-fuzz's trim stage with afl_custom_trim: the crash is the only
    # seed of a crash-exploration run (-C); AFL_FORCE_UI=1 so that the status
    # screen's "trim/eff" line (bytes trimmed / trim executions) is printed.
    # The trim stage runs once per queue entry before any mutation, so a few
    # seconds suffice (AFL_BENCH_JUST_ONE does not end a -C run early).
    seeds = os.path.join(tmp, "seeds")
    os.makedirs(seeds)
    shutil.copy(crash, os.path.join(seeds, "crash.txt"))
    aout = os.path.join(tmp, "out")
    env2 = dict(env, AFL_BENCH_JUST_ONE="1", AFL_FORCE_UI="1")
    env2.pop("AFL_NO_UI", None)
    t0 = time.monotonic()
    p = subprocess.run(["nice", "-n", str(args.nice), "afl-fuzz", "-C", "-s", "1", "-V",
                        f"{args.trim_seconds:g}", "-i", seeds, "-o", aout, "--", args.target],
                       env=env2, capture_output=True, text=True, errors="replace", timeout=1800)
    ui = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b\([0B]", "", p.stdout + p.stderr)
    effs = re.findall(r"trim/eff : ([0-9.]+%)/(\d+)", ui)
    trimmed = sorted(glob.glob(os.path.join(aout, "*", "queue", "id:000000*")))
    rec["afl_custom_trim"] = {"exit": p.returncode, "seconds": round(time.monotonic() - t0, 1)}
    if effs:
        rec["afl_custom_trim"]["trim_removed"] = effs[-1][0]
        rec["afl_custom_trim"]["trim_execs"] = int(effs[-1][1])
    if trimmed:
        dst = os.path.join(args.keep, f"{bug}-afl-custom-trim.txt")
        shutil.copy(trimmed[0], dst)
        rec["afl_custom_trim"].update(describe(args, bug, dst))
        rec["afl_custom_trim"]["file"] = os.path.relpath(dst, ROOT)
    # 3. dualfuzz minimize (structural, keeps the same violation).
    out = os.path.join(args.keep, f"{bug}-dualfuzz-minimize.txt")
    t0 = time.monotonic()
    p = subprocess.run(["nice", "-n", str(args.nice), args.dualfuzz, "minimize", "--target",
                        "inprocess:" + bug, crash, "-o", out], capture_output=True, text=True,
                       timeout=1800)
    rec["dualfuzz_minimize"] = {"exit": p.returncode,
                                "seconds": round(time.monotonic() - t0, 1)}
    if os.path.exists(out):
        rec["dualfuzz_minimize"].update(describe(args, bug, out))
        rec["dualfuzz_minimize"]["file"] = os.path.relpath(out, ROOT)
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


def kept_subsection(path, title):
    """The subsection `title` ("### ...") of this section as `path` has it
    now, marked as kept, or "" if it has none. A render whose raw log lacks
    that subsection's runs (a fresh machine that only ran `fuzz.sh
    correct`) keeps the measured table rather than drop it."""
    if not os.path.exists(path):
        return ""
    doc = open(path).read()
    start = doc.find(SECTION)
    if start < 0:
        return ""
    nxt = re.search(r"^## ", doc[start + len(SECTION):], re.M)
    sec = doc[start:start + len(SECTION) + nxt.start()] if nxt else doc[start:]
    m = re.search(rf"^{re.escape(title)}\n.*?(?=^### |\Z)", sec, re.M | re.S)
    if not m:
        return ""
    kept = m.group(0).rstrip("\n")
    if KEPT not in kept:
        kept = kept.replace(title + "\n", title + "\n\n" + KEPT + " (its runs' commit is in "
                            "the git history of this file): the raw log this render read "
                            "has none of its runs.\n", 1)
    return kept


KEPT = "*Kept from an earlier render*"


def render(m, args, bugs, latest, correct, tmins):
    fmt = eval_blackbox.fmt
    med = eval_crashonly.eval_blackbox_median
    out = [SECTION, ""]
    afl_version = subprocess.run("afl-fuzz -h 2>&1 | grep -o 'afl-fuzz++[0-9.a-z]*' | head -1",
                                 shell=True, capture_output=True, text=True).stdout.strip()
    out.append(f"Generated by `bench/eval_afl.py` on {m['date']}; "
               + (args.build_note or f"runs made at commit `{m['commit']}`") + ". "
               f"{afl_version or 'afl-fuzz'} (Debian `afl++`), target "
               "`build-afl-target/tests/fuzz/http_inprocess_fuzzer` built with "
               "`afl-clang-fast++` (libAFLDriver, persistent mode, no sanitizers), mutator "
               f"`{os.path.relpath(args.mutator, ROOT)}`, "
               "`AFL_CUSTOM_MUTATOR_ONLY=1`. Machine as above; every afl-fuzz ran under "
               f"`nice -n {args.nice}` with `AFL_NO_AFFINITY=1`, one at a time, on the "
               "shared 2 vCPUs: times are upper bounds, executions do not depend on load.")
    out.append("")
    if correct:
        out.append("### The correct server")
        out.append("")
        out.append("`afl-fuzz -s 1 -V S -i SEEDS -o OUT -- http_inprocess_fuzzer` without "
                   "`DUALFUZZ_BUG`; a crash here would be a false alarm of the model or a "
                   "harness bug.")
        out.append("")
        out.append("| seed | seconds | executions | exec/s | corpus | stability | bitmap "
                   "| hangs | crashes |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in correct:
            crashes = r.get("saved_crashes", 0)
            c = "none" if not crashes else (
                f"**{crashes}** (first: `{r.get('crash_name')}`, replay exit "
                f"{r.get('replay_exit')})")
            out.append(f"| {r['seed']} | {fmt(r.get('run_time', r['wall_seconds']), 0)} | "
                       f"{r.get('execs_done', '—')} | {r.get('execs_per_sec', '—')} | "
                       f"{r.get('corpus_count', '—')} | {r.get('stability', '—')} | "
                       f"{r.get('bitmap_cvg', '—')} | {r.get('saved_hangs', '—')} | {c} |")
        out.append("")
    rows = []
    for name, cat in bugs:
        rs = [latest[(name, s)] for s in range(1, args.seeds + 1) if (name, s) in latest]
        if rs:
            rows.append((name, cat, rs))
    if rows:
        out.append("### Planted bugs")
        out.append("")
        out.append(f"Each bug: `DUALFUZZ_BUG=<bug> AFL_BENCH_UNTIL_CRASH=1 afl-fuzz -s s "
                   f"-V {args.seconds:g} -i SEEDS -o OUT -- http_inprocess_fuzzer` for seeds "
                   f"1..{args.seeds}; SEEDS is `corpora/fuzz/http_inprocess_fuzzer` minus the "
                   "scripts that already trigger the bug (then a one-GET script). *time* "
                   "(ms since afl-fuzz started, so start-up and calibration included) and "
                   "*executions* are read from the first crash file's name (`time:`, "
                   "`execs:`); medians over the seeds, a miss counting as infinite. A crash "
                   "counts only if `dualfuzz replay --target inprocess:<bug>` reports a "
                   "violation on it and `dualfuzz replay --target inprocess` (no bug) "
                   "passes.")
        out.append("")
        out.append("| bug | category | found | median time (s) | median executions "
                   "| verdict | exec/s (median) | hangs |")
        out.append("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
        every = some = 0
        for name, cat, rs in rows:
            found = [r for r in rs if r.get("violation")]
            bad = [r for r in rs if r.get("crash_name") and not r.get("violation")]
            kinds = sorted({r.get("kind") or "?" for r in found})
            verdict = ", ".join(kinds) or "—"
            if bad:
                verdict += f"; {len(bad)} crash(es) not reproduced"
            rates = [r["execs_per_sec"] for r in rs if r.get("execs_per_sec")]
            hangs = sum(r.get("saved_hangs", 0) or 0 for r in rs)
            every += len(found) == len(rs)
            some += 0 < len(found) < len(rs)
            out.append(f"| `{name}` | {cat} | {len(found)}/{len(rs)} | "
                       f"{fmt(med([r['seconds'] for r in found], len(rs)), 2)} | "
                       f"{fmt(med([r['executions'] for r in found], len(rs)), 0)} | "
                       f"{verdict} | {fmt(eval_blackbox.median(rates), 0) if rates else '—'} | "
                       f"{hangs} |")
        out.append("")
        out.append(f"AFL++: found by every seed within {args.seconds:g} s: {every} of "
                   f"{len(rows)} bugs; by some seeds: {some}; by none: "
                   f"{len(rows) - every - some}.")
        out.append("")
        runs = [r for _, _, rs in rows for r in rs]
        tmo = [r["exec_timeout"] for r in runs if r.get("exec_timeout")]
        rates = [r["execs_per_sec"] for r in runs if r.get("execs_per_sec")]
        stab = [float(str(r["stability"]).rstrip("%")) for r in runs if r.get("stability")]
        if tmo and rates:
            out.append(f"Over the {len(runs)} bug runs: afl-fuzz's `execs_per_sec` median "
                       f"{eval_blackbox.median(rates):.0f} (range {min(rates):.0f}–"
                       f"{max(rates):.0f}); the execution timeout afl-fuzz calibrated "
                       f"(`exec_timeout`) median {eval_blackbox.median(tmo):g} ms (range "
                       f"{min(tmo)}–{max(tmo)} ms): an input that runs longer (a long script, "
                       "an expensive oracle judgement) is a timeout, not kept in the queue "
                       "(and a *hang* if its coverage is new), so AFL++ keeps to cheap inputs "
                       "where libFuzzer (`-timeout=1200` s) keeps every input that adds "
                       "coverage"
                       + (f"; stability median {eval_blackbox.median(stab):.1f} %" if stab
                          else "") + ".")
            out.append("")
    elif kept_subsection(args.out, "### Planted bugs"):
        out.append(kept_subsection(args.out, "### Planted bugs"))
        out.append("")
    out.append("### AFL++: how to reproduce")
    out.append("")
    out.append("```sh")
    out.append("scripts/afl/fuzz.sh build            # build-afl/ (mutator library) + "
               "build-afl-target/ (afl-clang-fast++)")
    out.append("bench/eval_afl.py                     # 32 bugs x 5 seeds x 60 s "
               "(= scripts/afl/fuzz.sh eval 60)")
    out.append("bench/eval_afl.py --correct-seconds 600 --bugs none --reuse   "
               "# the correct server, 10 min")
    out.append("bench/eval_afl.py --tmin lost-update --reuse   # minimize seed 1's crash file")
    out.append("scripts/afl/fuzz.sh tmin lost-update CRASH      # the same by hand")
    out.append("```")
    out.append("")
    if tmins:
        out.append("### Minimizing AFL++ crash files")
        out.append("")
        out.append("For each crash file (the first crash of seed 1): `afl-tmin -i CRASH -o "
                   "MIN -- http_inprocess_fuzzer` with `AFL_CUSTOM_MUTATOR_LIBRARY` set; "
                   "afl-fuzz's own trim stage with the library's `afl_custom_trim` "
                   f"(`AFL_FORCE_UI=1 afl-fuzz -C -V {args.trim_seconds:g} -i DIR-WITH-CRASH "
                   "...`: crash exploration mode accepts the crashing seed and trims it "
                   "before mutating; the trimmed seed is `queue/id:000000`, *trim/eff* the "
                   "status screen's share of bytes trimmed / trim executions); and "
                   "`dualfuzz minimize --target inprocess:<bug> CRASH -o MIN`. Sizes are "
                   "bytes / requests / steps (requests, waits, closes); *replay* is "
                   "`dualfuzz replay` with the bug (1 = violation) / on the correct server "
                   "(0 = pass), and the kind it reports.")
        out.append("")
        out.append("| bug | crash file | afl-tmin | afl-fuzz -C custom trim | "
                   "dualfuzz minimize |")
        out.append("| --- | ---: | ---: | ---: | ---: |")

        def cell(d):
            if not d or "bytes" not in d:
                return "no output" + (f" (exit {d.get('exit')})" if d else "")
            return (f"{d['bytes']} B / {d['requests']} / {d['steps']}; replay "
                    f"{d.get('replay_exit')}/{d.get('replay_correct_exit')} {d.get('kind') or ''}"
                    + (f"; trim/eff {d['trim_removed']}/{d['trim_execs']}"
                       if "trim_execs" in d else "")
                    + (f"; {d['seconds']:g} s" if "seconds" in d else ""))
        for t in tmins:
            out.append(f"| `{t['bug']}` | {cell(t['original'])} | {cell(t.get('afl_tmin'))} | "
                       f"{cell(t.get('afl_custom_trim'))} | {cell(t.get('dualfuzz_minimize'))} |")
        out.append("")
        ok_tmin = sum(1 for t in tmins if t.get("afl_tmin", {}).get("replay_exit") == 1
                      and t["afl_tmin"].get("replay_correct_exit") == 0)
        same_kind = sum(1 for t in tmins if t.get("afl_tmin", {}).get("kind")
                        and t["afl_tmin"]["kind"] == t["original"].get("kind"))
        shrunk_trim = sum(1 for t in tmins if t.get("afl_custom_trim", {}).get("bytes")
                          and t["afl_custom_trim"]["bytes"] < t["original"]["bytes"])
        mentions = any(t.get("afl_tmin", {}).get("mentions_custom_mutator") for t in tmins)
        tmin_bin = shutil.which("afl-tmin") or ""
        # afl-fuzz imports dlopen and names the afl_custom_* hooks; afl-tmin?
        hooks = subprocess.run(f"(nm -D {tmin_bin} | grep -w -e dlopen -e dlsym; strings "
                               f"{tmin_bin} | grep afl_custom_) | wc -l", shell=True,
                               capture_output=True, text=True).stdout.strip()
        out.append(f"afl-tmin: {ok_tmin} of {len(tmins)} results still a violation with the "
                   f"bug and no violation on the correct server; {same_kind} of {len(tmins)} "
                   "the same kind as the original. afl-tmin 4.04c "
                   + ("printed something about a custom mutator" if mentions else
                      "never mentions the custom mutator") + ": it has no "
                   "`AFL_CUSTOM_MUTATOR_LIBRARY` support ("
                   + (f"`{tmin_bin}` imports no `dlopen`/`dlsym` (`nm -D`) and contains no "
                      "`afl_custom_` name, where afl-fuzz has both; the variable's name is "
                      "there only in the list of known AFL variables; " if hooks == "0" else
                      f"note: `nm -D`/`strings {tmin_bin}` matched {hooks} hook-related "
                      "symbols, check by hand; ")
                   + "trimming through custom mutators came to afl-tmin "
                   "only in 2025, AFLplusplus/AFLplusplus#2243 and #2336), so it removes and "
                   "normalizes bytes blindly; a candidate that no longer parses as a script "
                   "does not crash and is rejected, so the result is still a script — fewer "
                   "bytes (names and values blanked or replaced by `0`) but, as the "
                   "requests / steps columns show, hardly fewer steps. "
                   f"afl-fuzz's trim stage shrank {shrunk_trim} of {len(tmins)} crash files "
                   "with the library's `afl_custom_trim`"
                   + (f" (it did call the hooks: {', '.join(str(t['afl_custom_trim'].get('trim_execs')) for t in tmins)} trim executions)"
                      if all("trim_execs" in t.get("afl_custom_trim", {}) for t in tmins) else "")
                   + ": afl-fuzz keeps a trimmed candidate only when its coverage "
                   "checksum equals the original's (`trim_case_custom`), which is the right "
                   "test for queue entries but not for crashes — deleting a step of a crash "
                   "file changes the coverage (fewer requests parsed and played), so the "
                   "step stays. For a small counterexample use `dualfuzz minimize` (same "
                   "violation, structural) or afl-tmin (same crash, bytes).")
        out.append("")
    elif kept_subsection(args.out, "### Minimizing AFL++ crash files"):
        out.append(kept_subsection(args.out, "### Minimizing AFL++ crash files"))
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default=os.path.join(
        ROOT, "build-afl-target/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--mutator", default=first_existing([
        os.path.join(ROOT, d, "mutator/libdualfuzz_afl_mutator.so")
        for d in ("build-afl", "build")]))
    ap.add_argument("--dualfuzz", default=first_existing([
        os.path.join(ROOT, d, "cli/dualfuzz") for d in ("build", "build-afl")]),
        help="lists the bugs, replays and minimizes crash files")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--bugs", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--correct-seconds", type=float, default=0,
                    help="run on the correct server this long; 0 skips it")
    ap.add_argument("--correct-seed", type=int, default=1)
    ap.add_argument("--tmin", default="",
                    help="comma-separated bugs whose seed-1 crash file to minimize")
    ap.add_argument("--trim-seconds", type=float, default=15,
                    help="length of the afl-fuzz -C run that trims a crash file")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--extra", default="", help="more afl-fuzz flags")
    ap.add_argument("--work", default=os.path.join(ROOT, "build-afl-target"),
                    help="temporary afl-fuzz directories go under this")
    ap.add_argument("--keep", default=os.path.join(ROOT, "build-afl-target/eval-crashes"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/evaluation-journal.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/afl.jsonl"))
    ap.add_argument("--build-note", default="")
    ap.add_argument("--reuse", action="store_true",
                    help="take runs already in --raw instead of re-running them")
    ap.add_argument("--render-only", action="store_true")
    args = ap.parse_args(argv)
    for a in ("target", "mutator", "dualfuzz", "corpus", "work", "keep"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    if not os.access(args.dualfuzz, os.X_OK):
        sys.exit(f"eval_afl: no dualfuzz CLI at {args.dualfuzz}")
    if not args.render_only:
        for p, what in ((args.target, "AFL++ fuzz target"), (args.mutator, "mutator library")):
            if not os.path.exists(p):
                sys.exit(f"eval_afl: no {what} at {p} (scripts/afl/fuzz.sh build)")
        if not shutil.which("afl-fuzz"):
            sys.exit("eval_afl: afl-fuzz not on PATH (apt-get install afl++)")
    os.makedirs(args.work, exist_ok=True)
    all_bugs = eval_crashonly.list_bugs(args.dualfuzz)
    bugs = all_bugs
    if args.bugs:
        wanted = args.bugs.split(",")
        bugs = [b for b in all_bugs if b[0] in wanted]
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    previous = eval_crashonly.load(args.raw)
    m = eval_blackbox.machine()
    log = None if args.render_only else open(args.raw, "a")

    def emit(r):
        r["commit"] = m["commit"]
        r["mutator"] = os.path.relpath(args.mutator, ROOT)
        log.write(json.dumps(r) + "\n")
        log.flush()

    latest = {}
    correct = {}
    tmins = {}
    for r in previous:
        if "error" in r:
            continue
        if r.get("tmin"):
            tmins[r["bug"]] = r
        elif r.get("bug") is None:
            correct[r["seed"]] = r
        elif r.get("budget") == args.seconds and r.get("seed", 0) <= args.seeds:
            latest[(r["bug"], r["seed"])] = r

    if not args.render_only:
        if args.correct_seconds and not (args.reuse and any(
                r.get("budget") == args.correct_seconds for r in correct.values())):
            r = run_afl(args, None, args.correct_seed, args.correct_seconds, until_crash=False)
            emit(r)
            if "error" not in r:
                correct[r["seed"]] = r
            print(f"afl correct server: {r.get('error') or ''} {r.get('execs_done')} execs, "
                  f"{r.get('saved_crashes')} crashes, {r.get('saved_hangs')} hangs",
                  file=sys.stderr)
        for seed in range(1, args.seeds + 1):
            for name, _ in bugs:
                if args.reuse and (name, seed) in latest:
                    continue
                r = run_afl(args, name, seed, args.seconds)
                emit(r)
                if "error" in r:
                    print(f"afl {name} seed {seed}: ERROR {r['error']}", file=sys.stderr)
                    continue
                latest[(name, seed)] = r
                print(f"afl {name} seed {seed}: "
                      + (f"found in {r['seconds']:.2f} s, {r['executions']} execs ({r['kind']})"
                         if r.get("violation") else
                         f"CRASH NOT REPRODUCED {r.get('crash_name')}" if r.get("crash_name")
                         else f"not found ({r.get('execs_done')} execs)"), file=sys.stderr)
        for name in [b for b in args.tmin.split(",") if b]:
            r1 = latest.get((name, 1))
            if not r1 or not r1.get("crash_file"):
                print(f"afl tmin {name}: no seed-1 crash file", file=sys.stderr)
                continue
            t = minimize(args, name, os.path.join(ROOT, r1["crash_file"]))
            emit(t)
            tmins[name] = t
            print(f"afl tmin {name}: {t['original']['bytes']} B -> afl-tmin "
                  f"{t.get('afl_tmin', {}).get('bytes')} B, custom trim "
                  f"{t.get('afl_custom_trim', {}).get('bytes')} B, dualfuzz minimize "
                  f"{t.get('dualfuzz_minimize', {}).get('bytes')} B", file=sys.stderr)
    names = {k[0] for k in latest}
    shown = [b for b in all_bugs if b[0] in names]  # every bug with runs, not only --bugs
    m = eval_blackbox.runs_commit(m, list(latest.values()) + list(correct.values()) + list(tmins.values()))
    eval_blackbox.write_section(
        args.out, render(m, args, shown, latest, [correct[k] for k in sorted(correct)],
                         [tmins[k] for k in sorted(tmins)]), SECTION)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
