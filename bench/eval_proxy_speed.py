#!/usr/bin/env python3
"""Executions per second against proxies, two dualfuzz binaries side by side
(issue 41: "the executions-per-second table ... before and after").

For each subject and client count, the two binaries run in alternating rounds
against the same proxy process (the reference proxy, `dualfuzz serve --proxy`
of the --after binary, or a real proxy of scripts/subjects/proxy.sh), each for
--seconds with the same seed; wall and CPU time (the tester's own, from its
rusage) side by side, and the ratio of executions per second in one run.
Every run: `--timeout-ms 500`, the tester listening as the origin; real
proxies with `DUALFUZZ_PROXY_REFUSALS=1` (both binaries alike), `--keep-going` and, when given, a
baseline of their known findings (so a known finding is not shrunk again).

  bench/eval_proxy_speed.py --before /tmp/old/dualfuzz --after build/cli/dualfuzz \
      --subjects reference tinyproxy squid --seconds 20 --out docs/eval/proxy-speed
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import machine  # noqa: E402
from eval_realproxies import run, start_real  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEPT = ("executions", "wall", "cpu", "violation", "exit", "inconclusive", "command")


def fuzz(exe, spec, port, origin, seconds, clients, seed, real, baseline, out_base):
    # Refusals as any 4xx/5xx for both binaries: one from before 1fbce25 knows
    # no refusal by policy, and would shrink what the other accepts.
    s = run(exe, spec, port, origin, seconds, clients, seed, baseline, out_base, real,
            refusals="any")
    return {k: s.get(k, 0) for k in KEPT}


def start_subject(name, after_exe, port, origin):
    """(spec, version, stop function), or an error string."""
    if name == "reference":
        server = subprocess.Popen([after_exe, "serve", "--proxy", "--port", str(port),
                                   "--origin", f"127.0.0.1:{origin}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

        def stop():
            server.terminate()
            server.wait()
        return "proxy", "reference proxy (`serve --proxy`)", stop
    return start_real(name, port, origin, f"/tmp/dualfuzz-proxyspeed-{name}-{port}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="the dualfuzz binary before")
    ap.add_argument("--after", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--subjects", nargs="+",
                    default=["reference", "tinyproxy", "squid", "apache2", "nginx-via",
                             "haproxy-via"])
    ap.add_argument("--baselines", default="",
                    help="folder of NAME-baseline.json files (real proxies' known findings)")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--clients", type=int, nargs="+", default=[1])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--port", type=int, default=18760, help="first proxy port (origin +90)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/eval/proxy-speed"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    m = machine()
    rows = []
    for i, name in enumerate(args.subjects):
        port, origin = args.port + i, args.port + 90 + i
        got = start_subject(name, args.after, port, origin)
        if isinstance(got, str):
            print(f"{name}: could not start: {got}", file=sys.stderr)
            rows.append({"subject": name, "error": got})
            continue
        spec, version, stop = got
        baseline = os.path.join(args.baselines, f"{name}-baseline.json")
        baseline = baseline if args.baselines and os.path.exists(baseline) else None
        try:
            for k in args.clients:
                for seed in args.seeds:
                    row = {"subject": name, "version": version, "clients": k, "seed": seed}
                    # (Alternating: the binary that runs first swaps each seed.)
                    order = [("before", args.before), ("after", args.after)]
                    if seed % 2 == 0:
                        order.reverse()
                    for which, exe in order:
                        row[which] = fuzz(exe, spec, port, origin, args.seconds, k, seed,
                                          name != "reference", baseline,
                                          os.path.join(args.out, f"{name}-c{k}-s{seed}-{which}"))
                    rows.append(row)
                    b, a = row["before"], row["after"]
                    print(f"{name} c{k} seed {seed}: {b['executions'] / b['wall']:.1f} -> "
                          f"{a['executions'] / a['wall']:.1f} exec/s", file=sys.stderr)
        finally:
            stop()
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"machine": m, "args": vars(args), "rows": rows}, f, indent=1)
    print(f"`bench/eval_proxy_speed.py` on {m['date']}, commit {m['commit']}, "
          f"{m['nproc']} cores; {args.seconds} s per run, `--timeout-ms 500`; before "
          f"`{args.before}`, after `{args.after}`, alternating.")
    print()
    print("| proxy | clients | seed | exec/s before | after | ratio | wall s before / after | "
          "CPU s before / after |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        if "error" in r:
            print(f"| {r['subject']} | – | – | not started | – | – | – | – |")
            continue
        b, a = r["before"], r["after"]
        rb, ra = b["executions"] / b["wall"], a["executions"] / a["wall"]
        print(f"| {r['subject']} | {r['clients']} | {r['seed']} | {rb:.1f} | {ra:.1f} | "
              f"{ra / rb if rb else 0:.2f} | {b['wall']:.1f} / {a['wall']:.1f} | "
              f"{b['cpu']:.1f} / {a['cpu']:.1f} |")


if __name__ == "__main__":
    main()
