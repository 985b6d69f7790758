#!/usr/bin/env python3
"""Evaluation of the HTTP proxy plug-in (issue 17, thesis §6.1).

  1. planted bugs: every bug of the reference proxy x seeds, each
     `dualfuzz fuzz --spec proxy --target inprocess:BUG --liveness` with a
     time budget; found?, seconds, executions, the minimized script;
  2. false alarms: the correct reference proxy fuzzed with 1..4 clients;
  3. oracle cost vs connections: one script with K clients each sending R
     requests at once (K origin connections), judged by `dualfuzz run`.

Prints markdown (the "## HTTP proxies (issue 17)" section of
docs/evaluation-journal.md; --write puts it there) and writes raw JSON to --raw.

  bench/eval_proxy.py                                   # ~15 min
  bench/eval_proxy.py --seeds 2 --bug-seconds 20 --false-alarm-seconds 30
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import last_json, machine, write_section  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "## HTTP proxies (issue 17)"
BUGS = ["connection-listed", "hop-by-hop", "response-hop-by-hop", "max-forwards-ignored",
        "no-via", "no-via-response", "method-rewrite", "cross-talk", "drop-pipelined",
        "chunked-body-lost", "out-of-order", "host-kept", "conditional-dropped"]


def fuzz(exe, target, seconds, seed, connections, tcp=None):
    """One run; `tcp` = (proxy port, origin port): the reference proxy as its
    own process (`dualfuzz serve --proxy [--bug BUG]`) played over TCP, the
    tester listening as its origin."""
    cmd = [exe, "fuzz", "--spec", "proxy", "--target", target, "--seconds", str(seconds),
           "--seed", str(seed), "--connections", str(connections), "--liveness", "-q"]
    server = None
    if tcp:
        bug = target.split(":", 1)[1] if ":" in target else ""
        port, origin = tcp
        server = subprocess.Popen(
            [exe, "serve", "--proxy", "--port", str(port), "--origin", f"127.0.0.1:{origin}"]
            + (["--bug", bug] if bug else []),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        cmd[cmd.index(target)] = f"127.0.0.1:{port}"
        cmd += ["--origin", f"127.0.0.1:{origin}", "--timeout-ms", "500"]
    start = time.time()
    try:
        p = subprocess.run(cmd + ["--json"], capture_output=True, text=True,
                           timeout=seconds * 4 + 120)
    finally:
        if server:
            server.terminate()
            server.wait()
    s = last_json(p.stdout) or {}
    s.update({"target": target, "seed": seed, "exit": p.returncode,
              "wall": time.time() - start, "tcp": bool(tcp)})
    # Time to the first violation: the run's seconds without its shrinking.
    if s.get("violation"):
        s["found_seconds"] = s.get("seconds", 0) - s.get("shrink_seconds", 0)
    if s.get("violation") and not tcp:
        # The readable finding (minimized script and report) of the same run.
        q = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds * 4 + 120)
        s["finding"] = q.stdout
    return s


def minimized_script(finding):
    """The script block of a finding (lines starting with req/answer/wait/close)."""
    lines = [l.strip() for l in finding.splitlines()]
    return "\n".join(l for l in lines if l.split(" ")[0] in ("req", "answer", "wait", "close"))


def oracle_cost(exe, clients, requests):
    lines, label = [], 1
    for r in range(requests):
        for c in range(clients):
            lines.append(f'req {label} on c{c}: {{"path":"/r{c}x{r}"}}')
            label += 2
    with tempfile.NamedTemporaryFile("w", suffix=".script", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    t = time.perf_counter()
    p = subprocess.run([exe, "run", "--spec", "proxy", "--target", "inprocess", path],
                       capture_output=True, text=True, timeout=600)
    ms = (time.perf_counter() - t) * 1000
    os.unlink(path)
    verdict = "pass" if p.returncode == 0 else p.stdout.strip().splitlines()[-1][:80]
    return {"clients": clients, "requests": requests, "ms": ms, "verdict": verdict}


def section(m, args, bugs, fa, cost):
    out = [SECTION, ""]
    if args.tcp:
        how = ("`dualfuzz serve --proxy [--bug BUG] --port P --origin 127.0.0.1:O` and "
               "`dualfuzz fuzz --spec proxy --target 127.0.0.1:P --origin 127.0.0.1:O "
               "--timeout-ms 500 --liveness --seed S --connections K` (the reference proxy "
               "as its own process over TCP, the tester as clients and origin; "
               "docs/proxy.md). \"s to find\": the run's time to its first violation, "
               "shrinking left out.")
    else:
        how = ("`dualfuzz fuzz --spec proxy --target inprocess[:BUG] --liveness "
               "--seed S --connections K` (the reference proxy in-process, the tester "
               "as clients and origin; docs/proxy.md).")
    out.append(f"`bench/eval_proxy.py{' --tcp' if args.tcp else ''}` on {m['date']}, "
               f"commit {m['commit']}, {m['nproc']} cores ({m['cpu']}). Every fuzz run: "
               + how)
    out.append("")
    if bugs:
        out.append(f"### Planted proxy bugs ({args.seeds} seeds x {args.bug_seconds} s, "
                   f"{args.bug_connections} clients)")
        out.append("")
        out.append("| bug | found | median s to find | max s | median executions | "
                   "minimized steps |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for name in BUGS:
            runs = bugs.get(name, [])
            found = [r for r in runs if r.get("violation")]
            if not found:
                out.append(f"| {name} | 0/{len(runs)} | - | - | - | - |")
                continue
            secs = [r.get("found_seconds", r["seconds"]) for r in found]
            execs = [r["executions"] for r in found]
            steps = sorted({r.get("min_steps") for r in found})
            out.append(f"| {name} | {len(found)}/{len(runs)} | {statistics.median(secs):.2f} | "
                       f"{max(secs):.2f} | {int(statistics.median(execs))} | "
                       f"{', '.join(map(str, steps))} |")
        out.append("")
        out.append("Minimized counterexamples (seed 1):")
        out.append("")
        for name in BUGS:
            first = [r for r in bugs.get(name, []) if r.get("finding")]
            if first:
                out.append(f"- `{name}`:")
                out.append("")
                out.append("  ```")
                out += ["  " + l for l in minimized_script(first[0]["finding"]).splitlines()]
                out.append("  ```")
        out.append("")
    if fa:
        out.append("### Correct reference proxy (false alarms)")
        out.append("")
        out.append("| clients | seconds | executions | messages | violations | inconclusive |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for r in fa:
            out.append(f"| {r.get('connections')} | {r.get('seconds', 0):.0f} | "
                       f"{r.get('executions')} | {r.get('messages')} | "
                       f"{1 if r.get('violation') else 0} | {r.get('inconclusive')} |")
        out.append("")
    if cost:
        out.append("### Oracle time vs connections")
        out.append("")
        out.append("One script, K clients each sending R requests at once, all forwarded on "
                   "K..K*R origin connections (`dualfuzz run`, wall time of the whole "
                   "process: start-up, play and oracle).")
        out.append("")
        out.append("| clients K | requests per client R | ms | verdict |")
        out.append("| --- | --- | --- | --- |")
        for r in cost:
            out.append(f"| {r['clients']} | {r['requests']} | {r['ms']:.0f} | {r['verdict']} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--bug-seconds", type=int, default=60)
    ap.add_argument("--bug-connections", type=int, default=2)
    ap.add_argument("--false-alarm-seconds", type=int, default=150, help="per client count")
    ap.add_argument("--false-alarm-clients", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--skip-bugs", action="store_true")
    ap.add_argument("--skip-false-alarm", action="store_true")
    ap.add_argument("--skip-cost", action="store_true")
    ap.add_argument("--tcp", action="store_true",
                    help="the reference proxy as a process over TCP (`serve --proxy`), "
                         "not in process; planted bugs and false alarms alike")
    ap.add_argument("--raw", default=os.path.join(ROOT, "docs/eval/proxy.json"))
    ap.add_argument("--write", action="store_true", help="into docs/evaluation-journal.md")
    args = ap.parse_args()
    m = machine()
    bugs, fa, cost = {}, [], []
    if not args.skip_bugs:
        for name in BUGS:
            for seed in range(1, args.seeds + 1):
                port = 18600 + 2 * (len(bugs) * args.seeds + seed) % 200
                r = fuzz(args.dualfuzz, "inprocess:" + name, args.bug_seconds, seed,
                         args.bug_connections, (port, port + 1) if args.tcp else None)
                bugs.setdefault(name, []).append(r)
                print(name, seed, r.get("violation"), r.get("seconds"), file=sys.stderr)
    if not args.skip_false_alarm:
        for k in args.false_alarm_clients:
            r = fuzz(args.dualfuzz, "inprocess", args.false_alarm_seconds, k, k,
                     (18580 + 2 * k, 18581 + 2 * k) if args.tcp else None)
            fa.append(r)
            print("correct", k, r.get("violation"), r.get("executions"), file=sys.stderr)
    if not args.skip_cost:
        for k, r in ((1, 1), (2, 1), (4, 1), (8, 1), (2, 2), (4, 2), (3, 3), (6, 2)):
            cost.append(oracle_cost(args.dualfuzz, k, r))
            print("cost", cost[-1], file=sys.stderr)
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    with open(args.raw, "w") as f:
        json.dump({"machine": m, "bugs": bugs, "false_alarm": fa, "cost": cost}, f, indent=1)
    text = section(m, args, bugs, fa, cost)
    print(text)
    if args.write:
        write_section(os.path.join(ROOT, "docs/evaluation-journal.md"), text, SECTION)


if __name__ == "__main__":
    main()
