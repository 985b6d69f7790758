#!/usr/bin/env python3
"""Real proxies for a long time, with their known findings as a baseline
(issue 41: "no violation in >= 10 min on the real proxies' known-clean
configurations at 1-4 clients").

Every real proxy fuzzed so far breaks some MUST (docs/proxy.md lists what, each
judged by hand), so "clean" is measured the way a CI job would: a first run
records the proxy's findings (`--json`), and the long runs report only
findings outside that baseline (`--baseline`, matched by identity). A new
finding is either a new proxy bug or a false alarm: each is printed for
judging by hand.

For each subject (scripts/subjects/proxy.sh):
  1. baseline: `dualfuzz fuzz --spec proxy|gateway --seconds B --connections 2
     --keep-going --json`;
  2. for each client count K: `... --seconds S --connections K --baseline
     BASELINE --keep-going --json`.
With `--judged`, step 1 is skipped and step 2 takes `--known judged:NAME`
(protocols/proxy/judgements.json): what is reported is not judged yet.
Every run: refusals by policy, the default (`--refusals any`:
`DUALFUZZ_PROXY_REFUSALS=1`, as before 1fbce25), `--timeout-ms 500`, the tester listening as the origin. Raw JSON and text
under --out; a markdown table on stdout.

  bench/eval_realproxies.py --subjects squid nginx-via --out docs/eval/realproxies
  bench/eval_realproxies.py --subjects tinyproxy --seconds 60 --clients 1   # a quick look
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import last_json, machine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROXY_SH = os.path.join(ROOT, "scripts/subjects/proxy.sh")


def sh(*args):
    return subprocess.run(args, capture_output=True, text=True)


def run(exe, spec, port, origin, seconds, clients, seed, baseline, out_base, real=True,
        refusals="policy"):
    """One `dualfuzz fuzz` against the proxy on `port`, its JSON summary with
    the wall and CPU seconds (the tester's own rusage) of the run. `real`:
    a real proxy (`--keep-going`, the baseline: a file or `judged:NAME`);
    else the reference proxy, as a first-finding run. `refusals`: "policy"
    (the default a user gets: refusals by policy, docs/proxy.md) or "any"
    (`DUALFUZZ_PROXY_REFUSALS=1`, what the runs before 1fbce25 used)."""
    cmd = [exe, "fuzz", "--spec", spec, "--target", f"127.0.0.1:{port}",
           "--origin", f"127.0.0.1:{origin}", "--seconds", str(seconds),
           "--connections", str(clients), "--seed", str(seed), "--timeout-ms", "500",
           "--json"]
    env = dict(os.environ)
    if real:
        cmd.append("--keep-going")
        if refusals == "any":
            env["DUALFUZZ_PROXY_REFUSALS"] = "1"
        if baseline and baseline.startswith("judged:"):
            cmd += ["--known", baseline]
        elif baseline:
            cmd += ["--baseline", baseline]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                       timeout=seconds * 3 + 600)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out_base + ".json", "w") as f:
        f.write(p.stdout)
    with open(out_base + ".err", "w") as f:
        f.write(p.stderr)
    s = last_json(p.stdout) or {}
    s.update({"wall": wall, "cpu": cpu, "exit": p.returncode, "command": " ".join(cmd)})
    return s


def start_real(name, port, origin, work):
    """Starts scripts/subjects/proxy.sh's subject `name`: (spec, version,
    stop), or the error text when it did not start."""
    spec = sh(PROXY_SH, "kind", name).stdout.strip()
    started = sh(PROXY_SH, "start", name, str(port), str(origin), work)
    if started.returncode != 0:
        return started.stderr.strip()[-300:]
    version = sh(PROXY_SH, "version", name, str(port), str(origin), work).stdout.strip()
    return spec, version, lambda: sh(PROXY_SH, "stop", name, str(port), str(origin), work)


def identities(summary):
    out = []
    for v in summary.get("findings") or summary.get("violations") or []:
        if isinstance(v, dict):
            out.append(v.get("identity") or v.get("signature") or json.dumps(v)[:200])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--subjects", nargs="+",
                    default=["tinyproxy", "squid", "apache2", "nginx-via", "haproxy-via"])
    ap.add_argument("--baseline-seconds", type=int, default=60)
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, default=18700, help="first proxy port (origin +90)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/eval/realproxies"))
    ap.add_argument("--refusals", choices=["policy", "any"], default="policy",
                    help="policy: the tester's default; any: DUALFUZZ_PROXY_REFUSALS=1")
    ap.add_argument("--judged", action="store_true",
                    help="no recorded baseline: the long runs take `--known judged:NAME` "
                         "(protocols/proxy/judgements.json), so what they report is not judged")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    m = machine()
    rows = []
    for i, name in enumerate(args.subjects):
        port, origin = args.port + i, args.port + 90 + i
        got = start_real(name, port, origin, f"/tmp/dualfuzz-realproxy-{name}-{port}")
        if isinstance(got, str):
            print(f"{name}: could not start: {got}", file=sys.stderr)
            rows.append({"subject": name, "error": got})
            continue
        spec, version, stop = got
        try:
            if args.judged:
                b, known = {}, f"judged:{name}"
            else:
                base = os.path.join(args.out, f"{name}-baseline")
                b = run(args.dualfuzz, spec, port, origin, args.baseline_seconds, 2, args.seed,
                        None, base, refusals=args.refusals)
                known = base + ".json"
                print(f"{name} baseline: {len(identities(b))} findings, "
                      f"{b.get('executions')} executions", file=sys.stderr)
            for k in args.clients:
                r = run(args.dualfuzz, spec, port, origin, args.seconds, k, args.seed + k,
                        known, os.path.join(args.out, f"{name}-c{k}"), refusals=args.refusals)
                rows.append({"subject": name, "version": version, "spec": spec,
                             "clients": k, "baseline_findings": identities(b), **r})
                print(f"{name} c{k}: {r.get('executions')} executions, known "
                      f"{r.get('baseline_known')}, new {identities(r)}", file=sys.stderr)
        finally:
            stop()
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"machine": m, "rows": rows}, f, indent=1)
    against = ("`--known judged:NAME`" if args.judged else
               f"a baseline of {args.baseline_seconds} s at 2 clients")
    print(f"`bench/eval_realproxies.py` on {m['date']}, commit {m['commit']}, "
          f"{m['nproc']} cores, refusals {args.refusals}: {args.seconds} s per client "
          f"count against {against}.")
    print()
    print("| proxy | clients | seconds | executions | exec/s | baseline findings | "
          "known seen | new findings | inconclusive |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        if "error" in r:
            print(f"| {r['subject']} | – | – | – | – | – | – | not started | – |")
            continue
        secs = r.get("seconds") or 0
        ex = r.get("executions") or 0
        print(f"| {r['subject']} | {r['clients']} | {secs:.0f} | {ex} | "
              f"{ex / secs if secs else 0:.1f} | {len(r['baseline_findings'])} | "
              f"{r.get('baseline_known', 0)} | {len(identities(r))} | "
              f"{r.get('inconclusive', 0)} |")
    print()
    for r in rows:
        for ident in identities(r):
            print(f"- new on {r['subject']} c{r['clients']}: `{ident}`")


if __name__ == "__main__":
    main()
