#!/usr/bin/env python3
"""Mutants of a real server's code (scripts/subjects/mutants/lighttpd/*.patch),
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
lighttpd has functional bugs of its own (docs/EVALUATION.md, real servers),
so "a violation" is not a kill: a mutant is killed when one of the
violations found on it, replayed (`dualfuzz run`), still shows on the mutant
and passes on the unpatched build --replays times; its time is when the
engine first met it. Prints a Markdown table; raw results (one JSON object
per mutant and engine) go to --raw.

The subject is lighttpd with --fix patches applied first (default: the fix
of its unfinished OPTIONS answer on a missing path, which made every script
with one wait out the message timeout), the "unpatched" build included.

  bench/eval_mutants.py --seconds 60
  bench/eval_mutants.py --seconds 60 --engines blackbox,libfuzzer,afl --parallel
  bench/eval_mutants.py --seconds 60 --engines blackbox,libfuzzer scripts/subjects/mutants/lighttpd/05-*.patch
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
import eval_blackbox  # noqa: E402  (last_json())
import eval_servercov  # noqa: E402  (engine_cmd(), executions())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "scripts/subjects/build-instrumented.sh")
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
LOG_LOCK = threading.Lock()


class Server:
    def __init__(self, binary, shm=None):
        self.binary, self.port, self.shm = binary, eval_servercov.free_port(), shm
        self.tmp = tempfile.mkdtemp(prefix="mutant-")
        os.chmod(self.tmp, 0o755)
        self.work = os.path.join(self.tmp, "s")

    def __enter__(self):
        env = dict(os.environ, LIGHTTPD=self.binary)
        env.pop("DUALFUZZ_COVERAGE_SHM", None)
        if self.shm:
            env["DUALFUZZ_COVERAGE_SHM"] = self.shm
        r = subprocess.run([SUBJECT, "start", "lighttpd", str(self.port), self.work], env=env,
                           capture_output=True, text=True)
        self.error = None if r.returncode == 0 else r.stderr.strip()[-300:]
        return self

    def __exit__(self, *a):
        subprocess.run([SUBJECT, "stop", "lighttpd", str(self.port), self.work],
                       env=dict(os.environ, LIGHTTPD=self.binary), capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.shm:
            try:
                os.unlink("/dev/shm/" + self.shm.lstrip("/"))
            except OSError:
                pass

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"


def shows(dualfuzz, target, script_file):
    r = subprocess.run([dualfuzz, "run", "--target", target, script_file], capture_output=True,
                       text=True, timeout=120)
    return r.returncode == 1


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


def run(patch, engine, args, original, log):
    rec = {"mutant": os.path.basename(patch)[:-6], "engine": engine, "seconds": args.seconds,
           "seed": args.seed, "parallel": args.parallel, "fix": fix_args(args)[1::2]}
    b = subprocess.run([BUILD, "lighttpd"] + fix_args(args) + ["--patch", patch],
                       capture_output=True, text=True)
    if b.returncode != 0:
        rec["error"] = "build: " + b.stderr.strip()[-300:]
        return rec
    binary = os.path.join(b.stdout.strip().splitlines()[-1], "sbin/lighttpd")
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
        else:
            executions, found = coverage_engine(engine, args, m)
        found = sorted(found, key=lambda v: v.get("first_seconds", 1e9))
        rec.update(executions=executions, violations=len(found), killed=False)
        for v in found:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as s:
                s.write(v["script"])
            try:
                if shows(args.dualfuzz, m.target, s.name) and not any(
                        shows(args.dualfuzz, original.target, s.name)
                        for _ in range(args.replays)):
                    rec.update(killed=True, kill_seconds=v.get("first_seconds"),
                               signature=v.get("signature"), script=v["script"])
                    break
            finally:
                os.unlink(s.name)
    with LOG_LOCK:
        log.write(json.dumps(rec) + "\n")
        log.flush()
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patches", nargs="*")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replays", type=int, default=3)
    ap.add_argument("--engines", default="blackbox", help="blackbox,libfuzzer,afl")
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--libfuzzer",
                    default=os.path.join(ROOT, "build-lf/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-target",
                    default=os.path.join(ROOT, "build-afl-target/tests/fuzz/http_inprocess_fuzzer"))
    ap.add_argument("--afl-mutator",
                    default=os.path.join(ROOT, "build-afl/mutator/libdualfuzz_afl_mutator.so"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/mutants.jsonl"))
    ap.add_argument("--parallel", action="store_true",
                    help="each mutant's engines side by side (each on its own server)")
    ap.add_argument("--fix", action="append",
                    help="a patch applied before each mutant and to the unpatched build "
                         "(repeatable; 'none' for none)")
    args = ap.parse_args()
    if args.fix is None:
        args.fix = [os.path.join(ROOT, "scripts/subjects/patches/lighttpd-options-missing-path.patch")]
    patches = args.patches or sorted(
        glob.glob(os.path.join(ROOT, "scripts/subjects/mutants/lighttpd/*.patch")))
    b = subprocess.run([BUILD, "lighttpd"] + fix_args(args), capture_output=True, text=True,
                       check=True)
    orig = os.path.join(b.stdout.strip().splitlines()[-1], "sbin/lighttpd")
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    rows = []
    with Server(orig) as original, open(args.raw, "a") as log:
        if original.error:
            sys.exit("unpatched lighttpd: " + original.error)
        engines = args.engines.split(",")

        def one(p, e):
            r = run(p, e, args, original, log)
            print(json.dumps({k: v for k, v in r.items() if k != "script"}),
                  file=sys.stderr, flush=True)
            return r

        for p in patches:
            if args.parallel:
                # (built once before the engines start side by side)
                subprocess.run([BUILD, "lighttpd"] + fix_args(args) + ["--patch", p],
                               capture_output=True, text=True)
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
