#!/usr/bin/env python3
"""Server edges reached per engine: a real server built with the
server-coverage instrumentation (scripts/subjects/build-instrumented.sh:
-fsanitize-coverage=trace-pc-guard + harness/coverage/sancov_shm.c) fuzzed
for --seconds by each engine, measured the same way for all: the distinct
guards of the server's code that any execution hit (the map's "ever" half,
read from /dev/shm), sampled every --every seconds.

Engines (each on a fresh server, docroot and map):
  libfuzzer        the fuzz target (DUALFUZZ_TARGET) with the server's edges as
                   extra counters (DUALFUZZ_SERVER_COVERAGE); DUALFUZZ_KEEP_GOING=1
                   (a violation is counted, the engine goes on, as the
                   black-box engine's --keep-going; -fork=1 -ignore_crashes=1
                   instead restarts a job per violation: 24 exec/s here)
  libfuzzer-model  the same without the server's edges (only the model's
                   branches: what the engines saw before), as a control
  afl              AFL++ 4.04c + the custom mutator library, the server's edges
                   in slots of the target's map, DUALFUZZ_KEEP_GOING=1 too
                   (findings: crash files, i.e. server crashes only)
  blackbox         dualfuzz fuzz --keep-going (no coverage)
  crashonly        crash_only_bench --keep-going (dualfuzz fuzz's generator,
                   oracle off)

  bench/eval_servercov.py --lighttpd DIR/sbin/lighttpd --seconds 600
  bench/eval_servercov.py --nginx DIR/sbin/nginx --seconds 600 --parallel
  bench/eval_servercov.py --server nginx --binary DIR/sbin/nginx    # the same
  bench/eval_servercov.py --apache2 DIR/sbin/apache2 --parallel
  bench/eval_servercov.py --lighttpd ... --seconds 60 --engines blackbox,libfuzzer
  bench/eval_servercov.py --lighttpd ... --parallel   # all engines at once

The server runs under scripts/subjects/subject.sh, which is handed the binary
in its variable (LIGHTTPD=, NGINX_BIN=, APACHE2_BIN=). "restarts" counts the server's
processes that died during the run: lighttpd's supervisor restarts (a new
process attaches to the map), nginx's workers that its master respawned and
Apache's children that its parent did (the child does not attach again: it
inherits the map; counted from the error log: nginx's "exited on signal",
Apache's AH00052).

--parallel runs the engines side by side, each on its own server: on a
machine shared with other work they then share the same conditions, where one
after the other each meets whatever load its slot had (the ratios are the
figure to read; each engine gets a fraction of the CPUs).

Raw results, one JSON object per run: --raw (default
bench/results/servercov.jsonl). Prints a Markdown table.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (machine(), last_json(), free_port())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
SEEDS = os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer")
ENGINES = ["libfuzzer", "libfuzzer-model", "afl", "blackbox", "crashonly"]
# harness/include/dualfuzz/harness/coverage_map.h
HEADER = struct.Struct("<QIIiII36x")
CAPACITY = 1 << 18
LOG_LOCK = threading.Lock()
# The variable through which subject.sh takes a server's own build.
BINARY_VAR = {"lighttpd": "LIGHTTPD", "nginx": "NGINX_BIN", "apache2": "APACHE2_BIN"}


def read_map(name):
    """(guards, distinct edges ever hit, starts, pid) of the map, or None."""
    try:
        with open("/dev/shm/" + name.lstrip("/"), "rb") as f:
            data = f.read()
    except OSError:
        return None
    magic, capacity, guards, pid, starts, _ = HEADER.unpack_from(data)
    if capacity != CAPACITY:
        return None
    ever = data[HEADER.size + capacity:HEADER.size + capacity + guards]
    return {"guards": guards, "edges": len(ever) - ever.count(0), "starts": starts, "pid": pid,
            "ever": ever}




def engine_cmd(engine, args, target, shm, tmp, seconds):
    """(argv, env) of one engine run."""
    env = dict(os.environ, DUALFUZZ_TARGET=target)
    for k in ("DUALFUZZ_BUG", "DUALFUZZ_SERVER_COVERAGE"):
        env.pop(k, None)
    if engine.startswith("libfuzzer"):
        corpus = os.path.join(tmp, "corpus")
        shutil.copytree(SEEDS, corpus)
        if engine == "libfuzzer":
            env["DUALFUZZ_SERVER_COVERAGE"] = shm
        env["DUALFUZZ_KEEP_GOING"] = "1"
        return ([os.path.abspath(args.libfuzzer),
                 f"-seed={args.seed}", f"-max_total_time={seconds}",
                 f"-artifact_prefix={tmp}/", corpus], env)
    if engine == "afl":
        env.update(DUALFUZZ_SERVER_COVERAGE=shm, DUALFUZZ_KEEP_GOING="1", AFL_SKIP_CPUFREQ="1", AFL_NO_UI="1",
                   AFL_NO_AFFINITY="1",  # (engines side by side: no core of its own)
                   AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1", AFL_SKIP_CRASHES="1",
                   AFL_CUSTOM_MUTATOR_LIBRARY=os.path.abspath(args.afl_mutator),
                   AFL_CUSTOM_MUTATOR_ONLY="1", AFL_QUIET="1")
        return (["afl-fuzz", "-s", str(args.seed), "-V", str(seconds), "-t", "5000",
                 "-i", SEEDS, "-o", os.path.join(tmp, "afl"), "--",
                 os.path.abspath(args.afl_target)], env)
    if engine == "blackbox":
        return ([os.path.abspath(args.dualfuzz), "fuzz", "--target", target, "--keep-going",
                 "--seconds", str(seconds), "--seed", str(args.seed), "--json"], env)
    if engine == "crashonly":
        return ([os.path.abspath(args.crash_only), "--target", target, "--keep-going",
                 "--seconds", str(seconds), "--seed", str(args.seed)], env)
    raise ValueError(engine)


def executions(engine, tmp, out):
    """Executions the engine reports (its own count, from its output)."""
    if engine.startswith("libfuzzer"):
        n = [int(m) for m in re.findall(r"^#(\d+)", out, re.M)]
        return max(n) if n else None
    if engine == "afl":
        total = 0
        for s in glob.glob(os.path.join(tmp, "afl/*/fuzzer_stats")):
            m = re.search(r"^execs_done\s*:\s*(\d+)", open(s).read(), re.M)
            total += int(m.group(1)) if m else 0
        return total
    j = eval_blackbox.last_json(out) or {}
    return j.get("executions") or j.get("execs")


def findings(engine, tmp, out):
    if engine.startswith("libfuzzer"):
        n = [int(m) for m in re.findall(r"^==dualfuzz== keep-going: (\d+) violations", out, re.M)]
        return (max(n) if n else 0) + len(glob.glob(os.path.join(tmp, "crash-*")))
    if engine == "afl":
        return len(glob.glob(os.path.join(tmp, "afl/*/crashes/id:*")))
    j = eval_blackbox.last_json(out) or {}
    v = j.get("violations")
    return len(v) if isinstance(v, list) else v


def run(engine, args, log):
    port, shm = eval_blackbox.free_port(), f"/dualfuzz-servercov-{engine}-{os.getpid()}"
    tmp = tempfile.mkdtemp(prefix=f"servercov-{engine}-")
    os.chmod(tmp, 0o755)
    work = os.path.join(tmp, "subject")
    target = f"127.0.0.1:{port}"
    rec = {"engine": engine, "seconds": args.seconds, "seed": args.seed,
           "subject": args.server, "server": os.path.abspath(args.binary), "parallel": args.parallel}
    try:
        os.unlink("/dev/shm/" + shm.lstrip("/"))
    except OSError:
        pass
    senv = dict(os.environ, DUALFUZZ_COVERAGE_SHM=shm)
    senv[BINARY_VAR[args.server]] = args.binary
    st = subprocess.run([SUBJECT, "start", args.server, str(port), work], env=senv,
                        capture_output=True, text=True)
    if st.returncode != 0:
        rec["error"] = "start: " + st.stderr.strip()[-300:]
        return rec
    rec["version"] = st.stdout.strip()
    m0 = read_map(shm)
    rec["edges_at_start"], rec["guards"] = m0["edges"], m0["guards"]
    argv, env = engine_cmd(engine, args, target, shm, tmp, args.seconds)
    rec["cmd"] = " ".join(os.path.basename(a) if a.startswith("/") else a for a in argv)
    outf = open(os.path.join(tmp, "engine.log"), "w+")
    t0 = time.monotonic()
    p = subprocess.Popen(["nice", "-n", "5"] + argv, env=env, stdout=outf,
                         stderr=subprocess.STDOUT, cwd=tmp, start_new_session=True)
    series = []
    deadline = t0 + args.seconds + 120  # (shrinking at the end, AFL's calibration)
    while p.poll() is None and time.monotonic() < deadline:
        time.sleep(min(args.every, max(0.1, deadline - time.monotonic())))
        m = read_map(shm)
        if m:
            series.append([round(time.monotonic() - t0), m["edges"]])
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait()
        rec["killed"] = True
    rec["wall_seconds"] = round(time.monotonic() - t0, 1)
    outf.seek(0)
    out = outf.read()
    m = read_map(shm)
    rec.update(edges=m["edges"], restarts=m["starts"] - 1 + worker_deaths(work), series=series,
               executions=executions(engine, tmp, out), findings=findings(engine, tmp, out),
               exit=p.returncode)
    rec["edges_at"] = {str(s): e for s, e in series}
    # Which guards: the engines' sets compared (a guard's index is the same
    # in every process of one binary: the servers load the same modules in
    # the same order).
    rec["edge_set"] = [i for i, b in enumerate(m["ever"]) if b]
    subprocess.run([SUBJECT, "stop", args.server, str(port), work], env=senv, capture_output=True)
    try:
        os.unlink("/dev/shm/" + shm.lstrip("/"))
    except OSError:
        pass
    if args.keep_logs:
        rec["log"] = os.path.join(tmp, "engine.log")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    if log:
        with LOG_LOCK:
            log.write(json.dumps(rec) + "\n")
            log.flush()
    return rec


def worker_deaths(work):
    """Worker processes the server's parent saw die (nginx: "worker process N
    exited on signal S", Apache: "AH00052: child pid N exit signal ...");
    0 for a server without workers."""
    try:
        with open(os.path.join(work, "logs/error.log"), errors="replace") as f:
            return sum(1 for line in f if "exited on signal" in line or "AH00052" in line)
    except OSError:
        return 0


def edges_by(series, t):
    best = None
    for s, e in series:
        if s <= t:
            best = e
    return best


def table(recs):
    bb = next((r["edges"] for r in recs if r["engine"] == "blackbox" and "edges" in r), None)
    lines = ["| engine | budget | executions | findings | server edges reached | beyond start-up "
             "| × black-box | at 60 s | restarts |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in recs:
        if "error" in r:
            lines.append(f"| {r['engine']} | {r['seconds']} s | error: {r['error'][:60]} |")
            continue
        ratio = f"{r['edges'] / bb:.2f}" if bb else "-"
        lines.append(
            f"| {r['engine']} | {r['seconds']} s | {r['executions'] or 0:,} | {r['findings']} "
            f"| {r['edges']:,} of {r['guards']:,} | {r['edges'] - r['edges_at_start']:,} "
            f"| {ratio} | {edges_by(r['series'], 60) or '-'} | {r['restarts']} |")
    named = [(r["engine"], set(r["edge_set"])) for r in recs if r.get("edge_set")]
    bbset = next((e for n, e in named if n == "blackbox"), None)
    if len(named) > 1 and bbset:
        union = set().union(*(e for _, e in named))
        only = []
        for i, (n, e) in enumerate(named):
            others = set().union(*(f for j, (_, f) in enumerate(named) if j != i))
            only.append(f"{n} {len(e - others)}")
        lines.append("")
        lines.append(f"Union of the engines' edges: {len(union):,}; black-box reached "
                     f"{len(bbset) / len(union):.1%} of it, so no engine of this run could "
                     f"have reached more than {len(union) / len(bbset):.2f}× black-box's. "
                     f"Edges only one engine reached: {', '.join(only)}.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", choices=sorted(BINARY_VAR), help="the subject (with --binary)")
    ap.add_argument("--binary", help="its instrumented build's executable")
    ap.add_argument("--lighttpd", metavar="BINARY", help="= --server lighttpd --binary BINARY")
    ap.add_argument("--nginx", metavar="BINARY", help="= --server nginx --binary BINARY")
    ap.add_argument("--apache2", metavar="BINARY", help="= --server apache2 --binary BINARY")
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=float, default=10)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--libfuzzer", default=os.path.join(ROOT, "build-lf/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-target",
                    default=os.path.join(ROOT, "build-afl-target/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-mutator", default=os.path.join(ROOT, "build-afl/mutator/libdualfuzz_afl_mutator.so"))
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--crash-only", default=os.path.join(ROOT, "build/bench/crash_only_bench"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/servercov.jsonl"))
    ap.add_argument("--keep-logs", action="store_true")
    ap.add_argument("--parallel", action="store_true", help="all engines at once")
    args = ap.parse_args()
    given = [(n, getattr(args, n)) for n in BINARY_VAR if getattr(args, n)]
    if args.server and args.binary and not given:
        pass
    elif len(given) == 1 and not args.server and not args.binary:
        args.server, args.binary = given[0]
    else:
        ap.error("one of --lighttpd, --nginx, --apache2 BINARY, or --server NAME --binary BINARY")
    if not os.access(args.binary, os.X_OK):
        ap.error(f"{args.binary}: not an executable (scripts/subjects/build-instrumented.sh {args.server})")
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    recs = []
    engines = args.engines.split(",")

    def one(e, log):
        r = run(e, args, log)
        print(f"{e}: {json.dumps({k: v for k, v in r.items() if k != 'series'})}",
              file=sys.stderr, flush=True)
        return r

    with open(args.raw, "a") as log:
        if args.parallel:
            with concurrent.futures.ThreadPoolExecutor(len(engines)) as pool:
                recs = list(pool.map(lambda e: one(e, log), engines))
        else:
            recs = [one(e, log) for e in engines]
    m = eval_blackbox.machine()
    print(f"commit {m['commit']}, {m['date']}, {m['nproc']} CPUs ({m['cpu']})")
    print(table(recs))


if __name__ == "__main__":
    main()
