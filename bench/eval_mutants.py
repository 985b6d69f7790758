#!/usr/bin/env python3
"""Mutants of a real server's code (scripts/subjects/mutants/SERVER/*.patch,
--server lighttpd (default), nginx or apache2),
each built by scripts/subjects/build-instrumented.sh --patch and fuzzed for
--seconds by each of --engines:
  blackbox   `dualfuzz fuzz --keep-going` (no coverage)
  libfuzzer  the fuzz target (--libfuzzer) against the mutant, its server
             edges as extra counters (DUALFUZZ_SERVER_COVERAGE), with
             DUALFUZZ_KEEP_GOING=1 and DUALFUZZ_FINDINGS (each distinct
             violation's first script and time)
  afl        AFL++ with the custom-mutator library and the afl-clang-fast
             target (--afl-target), the server's edges in its map, the same
             keep-going findings
lighttpd has functional bugs of its own (docs/evaluation-journal.md, real servers),
so "a violation" is not a kill. A mutant is killed by one of the violations
found on it when its (shrunk) script, replayed --replays times on each build
in alternating blocks of 5 (`dualfuzz run --repeat 5`), never shows a
violation on the unpatched build and shows one on the mutant in at least
--min-rate of its plays. Its time is when the engine first met it (for
black-box, less the time it spent shrinking earlier findings during its run:
the other engines' findings are shrunk after theirs). One play on the
mutant and a few on the unpatched build were not enough: a script
whose outcome hangs on a race or on the clock (an If-Unmodified-Since of the
run's own second) passed that check on a lighttpd bug of its own. With 20
plays each, a script that shows with the same probability p on both builds
passes with probability (1-p)^20 * P(Bin(20, p) >= 7), at most 0.1 % (at
p = 0.19); 7 of 20 against 0 of 20 is also Fisher's exact test at p < 0.005.
Prints a Markdown table; raw results (one JSON object per mutant and engine,
with every finding's check) go to --raw.

The subject is lighttpd with --fix patches applied first (default: the fix
of its unfinished OPTIONS answer on a missing path, which made every script
with one wait out the message timeout, and of its endless loop on a LOCK
Timeout list, which hangs the server for good: a field sent blind finds it
in seconds), the "unpatched" build included. nginx and apache2 have no fix
patches (scripts/subjects/patches/ holds none named for them): --fix adds some.

  bench/eval_mutants.py --seconds 60
  bench/eval_mutants.py --seconds 60 --engines blackbox,libfuzzer,afl --parallel
  bench/eval_mutants.py --seconds 60 --engines blackbox,libfuzzer scripts/subjects/mutants/lighttpd/05-*.patch
  bench/eval_mutants.py --server nginx --seconds 60
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (last_json(), free_port())
import eval_servercov  # noqa: E402  (engine_cmd(), executions())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "scripts/subjects/build-instrumented.sh")
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
LOG_LOCK = threading.Lock()
# Each server's build (DIR/sbin/NAME) is named to subject.sh by this variable.
BINARY_ENV = {"lighttpd": "LIGHTTPD", "nginx": "NGINX_BIN", "apache2": "APACHE2_BIN"}


def default_fix(server):
    """The patches applied before each mutant and to the unpatched build when
    --fix is not given (see the module docstring)."""
    if server != "lighttpd":
        return []
    return [os.path.join(ROOT, "scripts/subjects/patches", p) for p in (
        "lighttpd-options-missing-path.patch", "lighttpd-lock-timeout-loop.patch")]


class Server:
    def __init__(self, binary, shm=None, smoke=True):
        self.binary, self.port, self.shm = binary, eval_blackbox.free_port(), shm
        self.name = os.path.basename(binary)  # (DIR/sbin/NAME: the subject's name)
        self.smoke = smoke  # False: a mutant broken where the smoke test looks
        self.tmp = tempfile.mkdtemp(prefix="mutant-")
        os.chmod(self.tmp, 0o755)
        self.work = os.path.join(self.tmp, "s")

    def __enter__(self):
        env = dict(os.environ, **{BINARY_ENV[self.name]: self.binary})
        env.pop("DUALFUZZ_COVERAGE_SHM", None)
        if self.shm:
            env["DUALFUZZ_COVERAGE_SHM"] = self.shm
        if not self.smoke:
            env["SUBJECT_SKIP_SMOKE"] = "1"
        r = subprocess.run([SUBJECT, "start", self.name, str(self.port), self.work], env=env,
                           capture_output=True, text=True)
        self.error = None if r.returncode == 0 else r.stderr.strip()[-300:]
        return self

    def __exit__(self, *a):
        subprocess.run([SUBJECT, "stop", self.name, str(self.port), self.work],
                       env=dict(os.environ, **{BINARY_ENV[self.name]: self.binary}),
                       capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.shm:
            try:
                os.unlink("/dev/shm/" + self.shm.lstrip("/"))
            except OSError:
                pass

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"


# The fuzz executions' oracle budget (harness::RunOptions::kMaxExploredPerRun):
# `dualfuzz run` has none by default, and a many-request race from an engine
# could keep it exploring for minutes. A play that runs out is inconclusive:
# on the mutant it counts as no violation, on the unpatched build it leaves
# the check undecided (no kill either way).
ORACLE_BUDGET = 5000


class Undecided(Exception):
    pass


def plays(dualfuzz, target, script_file, n):
    """Violations in n plays of the script, and their signatures."""
    try:
        r = subprocess.run([dualfuzz, "run", "--repeat", str(n), "--oracle-budget",
                            str(ORACLE_BUDGET), "--target", target, script_file],
                           capture_output=True, text=True, timeout=60 + 30 * n)
    except subprocess.TimeoutExpired as e:
        raise Undecided(f"{n} plays took over {e.timeout} s") from None
    j = eval_blackbox.last_json(r.stdout) or {}
    if j.get("plays") != n:
        raise Undecided(f"dualfuzz run --repeat on {target}: {r.stderr.strip()[-300:]}")
    return j["violations"], j["signatures"], j.get("inconclusive", 0)


BLOCK = 5


def kill_check(args, mutant, original, script_file):
    """The module docstring's kill check: a dict with "killed", the plays and
    violations on each build, and the mutant's signatures."""
    need = -(-args.replays * args.min_rate // 1)  # (ceil)
    res = {"plays": 0, "on_mutant": 0, "on_unpatched": 0, "signatures": {}}
    try:
        while res["plays"] < args.replays:
            n = min(BLOCK, args.replays - res["plays"])
            u, _, gave_up = plays(args.dualfuzz, original.target, script_file, n)
            if gave_up:  # (the unpatched build is not shown clean by a verdict nobody reached)
                raise Undecided(f"{gave_up} inconclusive plays on the unpatched build")
            res["on_unpatched"] += u
            m, sigs, _ = plays(args.dualfuzz, mutant.target, script_file, n)
            res["on_mutant"] += m
            for k, c in sigs.items():
                res["signatures"][k] = res["signatures"].get(k, 0) + c
            res["plays"] += n
            if res["on_unpatched"] or res["on_mutant"] + args.replays - res["plays"] < need:
                break  # (decided)
    except Undecided as e:
        # (no kill: a script this slow to play, or this costly to judge, proves nothing here)
        return dict(res, killed=False, undecided=str(e))
    res["killed"] = res["on_unpatched"] == 0 and res["on_mutant"] >= need
    return res


def coverage_engine(engine, args, m):
    """Runs libFuzzer or AFL++ against the mutant; its findings, by time."""
    tmp = tempfile.mkdtemp(prefix=f"mutant-{engine}-")
    found = os.path.join(tmp, "findings")
    os.makedirs(found)
    # The same engine command as the server-coverage benchmark, plus the findings.
    argv, env = eval_servercov.engine_cmd(engine, args, m.target, m.shm, tmp, args.seconds)
    env["DUALFUZZ_FINDINGS"] = found
    with open(os.path.join(tmp, "engine.log"), "w") as out:
        subprocess.run(["nice", "-n", "5"] + argv, env=env, stdout=out,
                       stderr=subprocess.STDOUT, cwd=tmp, timeout=args.seconds + 300)
    log = open(os.path.join(tmp, "engine.log"), errors="replace").read()
    executions = eval_servercov.executions(engine, tmp, log)
    res = []
    index = os.path.join(found, "findings.jsonl")
    if os.path.exists(index):
        seen = set()
        # (AFL++'s forked children each write their firsts: keep the earliest.)
        for j in sorted((json.loads(line) for line in open(index)), key=lambda j: j["seconds"]):
            if j["key"] in seen:
                continue
            seen.add(j["key"])
            # The engines keep a violation's script as played; `dualfuzz fuzz`
            # shrinks its findings, so these are shrunk the same way here
            # (--shrink) before the kill check: an unshrunk script may also
            # trip one of lighttpd's own bugs and pass for no kill.
            script = os.path.join(found, j["file"])
            sh = subprocess.run([args.dualfuzz, "fuzz", "--target", m.target, "--shrink", script,
                                 "--shrink-tries", "3", "--json", "-q"],
                                capture_output=True, text=True, timeout=600)
            shrunk = eval_blackbox.last_json(sh.stdout) or {}
            res.append({"first_seconds": round(j["seconds"], 3), "signature": j["key"],
                        "script": shrunk.get("script") or open(script).read()})
    shutil.rmtree(tmp, ignore_errors=True)
    return executions, res


def fix_args(args):
    return [a for f in args.fix if f != "none" for a in ("--patch", f)]


def build(args, patch=None, check=False):
    """args.server built with the fix patches (and `patch`): its binary
    (DIR/sbin/SERVER), or None and the build's stderr when it failed."""
    extra = ["--patch", patch] if patch else []
    b = subprocess.run([BUILD, args.server] + fix_args(args) + extra,
                       capture_output=True, text=True, check=check)
    if b.returncode != 0:
        return None, b.stderr
    return os.path.join(b.stdout.strip().splitlines()[-1], "sbin", args.server), ""


def run(patch, engine, args, original, log):
    rec = {"mutant": os.path.basename(patch)[:-6], "engine": engine, "seconds": args.seconds,
           "seed": args.seed, "parallel": args.parallel, "fix": fix_args(args)[1::2]}
    binary, err = build(args, patch)
    if not binary:
        rec["error"] = "build: " + err.strip()[-300:]
        return rec
    shm = None if engine == "blackbox" else f"/dualfuzz-mutant-{engine}-{os.getpid()}"
    with Server(binary, shm) as m:
        if m.error:
            rec["error"] = "start: " + m.error
            return rec
        if engine == "blackbox":
            f = subprocess.run(["nice", "-n", "5", args.dualfuzz, "fuzz", "--target", m.target,
                                "--keep-going", "--seconds", str(args.seconds), "--seed",
                                str(args.seed), "--json"], capture_output=True, text=True)
            summary = eval_blackbox.last_json(f.stdout) or {}
            executions, found = summary.get("executions"), summary.get("violations", [])
            # Its fuzzing time: `dualfuzz fuzz --keep-going` shrinks each new
            # finding during its run (lighttpd's own bugs, often a dozen),
            # where the coverage-guided engines' findings are shrunk here,
            # after theirs.
            for v in found:
                v["wall_seconds"] = v.get("first_seconds")
                v["first_seconds"] = v.get("first_fuzzing_seconds", v.get("first_seconds"))
        else:
            executions, found = coverage_engine(engine, args, m)
        found = sorted(found, key=lambda v: v.get("first_seconds", 1e9))
        rec.update(executions=executions, violations=len(found), killed=False, checks=[])
        for v in found:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as s:
                s.write(v["script"])
            try:
                c = kill_check(args, m, original, s.name)
            finally:
                os.unlink(s.name)
            # (each finding checked, kill or not: why a violation was no kill)
            rec["checks"].append(dict(c, first_seconds=v.get("first_seconds"),
                                      signature=v.get("signature")))
            if c["killed"]:
                # The signature is the shrunk script's on the mutant (the
                # engines key a finding by its unshrunk run, whose extra
                # headers and requests say little about the bug).
                rec.update(killed=True, kill_seconds=v.get("first_seconds"),
                           kill_wall_seconds=v.get("wall_seconds"),
                           signature=max(c["signatures"], key=c["signatures"].get),
                           engine_key=v.get("signature"), script=v["script"],
                           kill_rate=f"{c['on_mutant']}/{c['plays']}")
                break
    with LOG_LOCK:
        log.write(json.dumps(rec) + "\n")
        log.flush()
    return rec


def recheck(args, orig):
    """--recheck: each recorded kill's script, judged by kill_check() on a
    fresh build of its mutant (with this run's --fix)."""
    records = [json.loads(line) for line in open(args.recheck)]
    with Server(orig) as original:
        if original.error:
            sys.exit(f"unpatched {args.server}: " + original.error)
        for r in records:
            if not r.get("killed") or not r.get("script"):
                continue
            patch = os.path.join(ROOT, "scripts/subjects/mutants", args.server,
                                 r["mutant"] + ".patch")
            binary, _ = build(args, patch, check=True)
            with Server(binary) as m, tempfile.NamedTemporaryFile("w", suffix=".txt") as s:
                s.write(r["script"])
                s.flush()
                c = kill_check(args, m, original, s.name)
            print(json.dumps({"mutant": r["mutant"], "engine": r["engine"], "seed": r.get("seed"),
                              "kill_seconds": r.get("kill_seconds"), "signature": r.get("signature"),
                              **c}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patches", nargs="*")
    ap.add_argument("--server", choices=sorted(BINARY_ENV), default="lighttpd",
                    help="the server whose mutants (scripts/subjects/mutants/SERVER) are run")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replays", type=int, default=20,
                    help="plays of a finding's script on each build for the kill check")
    ap.add_argument("--min-rate", type=float, default=0.35,
                    help="share of its plays in which the mutant must show a violation")
    ap.add_argument("--engines", default="blackbox", help="blackbox,libfuzzer,afl")
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--libfuzzer",
                    default=os.path.join(ROOT, "build-lf/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-target",
                    default=os.path.join(ROOT, "build-afl-target/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-mutator",
                    default=os.path.join(ROOT, "build-afl/mutator/libdualfuzz_afl_mutator.so"))
    ap.add_argument("--raw", help="default: bench/results/mutants.jsonl "
                    "(mutants-SERVER.jsonl for nginx, apache2)")
    ap.add_argument("--parallel", action="store_true",
                    help="each mutant's engines side by side (each on its own server)")
    ap.add_argument("--fix", action="append",
                    help="a patch applied before each mutant and to the unpatched build "
                         "(repeatable; 'none' for none)")
    ap.add_argument("--recheck", metavar="RAW",
                    help="no fuzzing: the kills recorded in RAW (an earlier --raw file) "
                         "judged again by this kill check, one JSON line each")
    args = ap.parse_args()
    if args.fix is None:
        args.fix = default_fix(args.server)
    if args.raw is None:
        args.raw = os.path.join(ROOT, "bench/results", "mutants.jsonl" if args.server == "lighttpd"
                                else f"mutants-{args.server}.jsonl")
    patches = args.patches or sorted(
        glob.glob(os.path.join(ROOT, "scripts/subjects/mutants", args.server, "*.patch")))
    orig, _ = build(args, check=True)
    if args.recheck:
        return recheck(args, orig)
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    rows = []
    with Server(orig) as original, open(args.raw, "a") as log:
        if original.error:
            sys.exit(f"unpatched {args.server}: " + original.error)
        engines = args.engines.split(",")

        def one(p, e):
            r = run(p, e, args, original, log)
            print(json.dumps({k: v for k, v in r.items() if k != "script"}),
                  file=sys.stderr, flush=True)
            return r

        for p in patches:
            if args.parallel:
                # (built once before the engines start side by side)
                build(args, p)
                with concurrent.futures.ThreadPoolExecutor(len(engines)) as pool:
                    rows += list(pool.map(lambda e: one(p, e), engines))
            else:
                rows += [one(p, e) for e in engines]
    print("| mutant | engine | killed | first violation that passes unpatched (s) | "
          "executions | signature |")
    print("| --- | --- | --- | ---: | ---: | --- |")
    for r in rows:
        if "error" in r:
            print(f"| {r['mutant']} | {r['engine']} | error: {r['error'][:80]} | | | |")
        else:
            print(f"| {r['mutant']} | {r['engine']} | {'yes' if r['killed'] else 'no'} | "
                  f"{r.get('kill_seconds', '-')} | {r.get('executions')} | "
                  f"{r.get('signature', '')} |")
    for e in args.engines.split(","):
        mine = [r for r in rows if r["engine"] == e]
        print(f"{e}: {sum(1 for r in mine if r.get('killed'))} of {len(mine)} mutants killed "
              f"in {args.seconds} s each")


if __name__ == "__main__":
    main()
