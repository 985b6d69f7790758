#!/usr/bin/env python3
"""Mutants of a real server's code (scripts/subjects/mutants/lighttpd/*.patch),
each built by scripts/subjects/build-instrumented.sh --patch and fuzzed by
`dualfuzz fuzz --keep-going` for --seconds. lighttpd has functional bugs of
its own (docs/EVALUATION.md, real servers), so "a violation" is not a kill:
a mutant is killed when one of the violations found on it, replayed
(`dualfuzz run`), still shows on the mutant and passes on the unpatched
build --replays times. Prints a Markdown table; raw results (one JSON object
per mutant) go to --raw.

  bench/eval_mutants.py --seconds 60
  bench/eval_mutants.py --seconds 60 scripts/subjects/mutants/lighttpd/05-*.patch
"""
import argparse
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (last_json())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "scripts/subjects/build-instrumented.sh")
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary):
        self.binary, self.port = binary, free_port()
        self.tmp = tempfile.mkdtemp(prefix="mutant-")
        os.chmod(self.tmp, 0o755)
        self.work = os.path.join(self.tmp, "s")

    def __enter__(self):
        env = dict(os.environ, LIGHTTPD=self.binary)
        env.pop("DUALFUZZ_COVERAGE_SHM", None)
        r = subprocess.run([SUBJECT, "start", "lighttpd", str(self.port), self.work], env=env,
                           capture_output=True, text=True)
        self.error = None if r.returncode == 0 else r.stderr.strip()[-300:]
        return self

    def __exit__(self, *a):
        subprocess.run([SUBJECT, "stop", "lighttpd", str(self.port), self.work],
                       env=dict(os.environ, LIGHTTPD=self.binary), capture_output=True)

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"


def shows(dualfuzz, target, script_file):
    r = subprocess.run([dualfuzz, "run", "--target", target, script_file], capture_output=True,
                       text=True, timeout=120)
    return r.returncode == 1


def run(patch, args, original, log):
    rec = {"mutant": os.path.basename(patch)[:-6], "seconds": args.seconds}
    b = subprocess.run([BUILD, "lighttpd", "--patch", patch], capture_output=True, text=True)
    if b.returncode != 0:
        rec["error"] = "build: " + b.stderr.strip()[-300:]
        return rec
    binary = os.path.join(b.stdout.strip().splitlines()[-1], "sbin/lighttpd")
    with Server(binary) as m:
        if m.error:
            rec["error"] = "start: " + m.error
            return rec
        f = subprocess.run(["nice", "-n", "5", args.dualfuzz, "fuzz", "--target", m.target,
                            "--keep-going", "--seconds", str(args.seconds), "--seed",
                            str(args.seed), "--json"], capture_output=True, text=True)
        summary = eval_blackbox.last_json(f.stdout) or {}
        found = sorted(summary.get("violations", []), key=lambda v: v.get("first_seconds", 1e9))
        rec.update(executions=summary.get("executions"), violations=len(found), killed=False)
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
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/mutants.jsonl"))
    args = ap.parse_args()
    patches = args.patches or sorted(
        glob.glob(os.path.join(ROOT, "scripts/subjects/mutants/lighttpd/*.patch")))
    b = subprocess.run([BUILD, "lighttpd"], capture_output=True, text=True, check=True)
    orig = os.path.join(b.stdout.strip().splitlines()[-1], "sbin/lighttpd")
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    rows = []
    with Server(orig) as original, open(args.raw, "a") as log:
        if original.error:
            sys.exit("unpatched lighttpd: " + original.error)
        for p in patches:
            r = run(p, args, original, log)
            print(json.dumps({k: v for k, v in r.items() if k != "script"}), file=sys.stderr,
                  flush=True)
            rows.append(r)
    print("| mutant | killed | first violation that passes unpatched | executions | signature |")
    print("| --- | --- | ---: | ---: | --- |")
    for r in rows:
        if "error" in r:
            print(f"| {r['mutant']} | error: {r['error'][:80]} | | | |")
        else:
            print(f"| {r['mutant']} | {'yes' if r['killed'] else 'no'} | "
                  f"{r.get('kill_seconds', '-')} | {r.get('executions')} | "
                  f"{r.get('signature', '')} |")
    print(f"{sum(1 for r in rows if r.get('killed'))} of {len(rows)} mutants killed in "
          f"{args.seconds} s each")


if __name__ == "__main__":
    main()
