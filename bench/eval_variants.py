#!/usr/bin/env python3
"""A correct origin server or proxy written apart from the model, fuzzed
under each of the choices the RFCs leave to it, and with each of its planted
bugs (scripts/subjects/varied-origin/server.py; with --subject proxy or
gateway, scripts/subjects/varied-proxy/proxy.py as a forward proxy or a
gateway, the tester listening as its origin, `--timeout-ms 500`).

Both directions, as a new user runs dualfuzz (black box, default assumptions):
  1. legal choices: one run per choice (and `all`), `--keep-going`; every
     violation reported is a false alarm of dualfuzz (advisories are listed,
     they are SHOULDs);
  2. planted bugs: one run per bug and seed, stopping at the first finding;
     found?, seconds to it, its kind and signature. Bugs that only break a
     MUST of a message, or that kill or hang the server, are in the list.

  bench/eval_variants.py                                  # ~20 min
  bench/eval_variants.py --legal-seconds 30 --legal delete-202,idle-close
  bench/eval_variants.py --bugs-only --seeds 1,2,3
  bench/eval_variants.py --bugs-only --bugs stale-304 --seeds 1,2,3,4,5 \
      --bug-seconds 60 --before /tmp/old/dualfuzz     # two binaries alternating
  bench/eval_variants.py --subject gateway --legal-seconds 60   # the proxy

Prints a markdown table per direction; raw JSON lines to --raw.
"""
import argparse
import importlib.util
import json
import os
import resource
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_blackbox import free_port, last_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS = {"origin": os.path.join(ROOT, "scripts", "subjects", "varied-origin", "server.py"),
           "proxy": os.path.join(ROOT, "scripts", "subjects", "varied-proxy", "proxy.py")}
SERVERS["gateway"] = SERVERS["proxy"]
SERVER = SERVERS["origin"]


def choices():
    """The server's own lists (one source of truth): the script imported as
    a module (it serves only from main())."""
    spec = importlib.util.spec_from_file_location("varied_subject", SERVER)
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    return server.LEGAL, server.BUGS


def wait_listening(port, proc, seconds=5.0):
    end = time.time() + seconds
    while time.time() < end and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def run(exe, legal, bug, seed, seconds, connections, keep_going, extra, subject="origin"):
    port = free_port()
    server_cmd = [sys.executable, SERVER, str(port)]
    proxy = []
    if subject != "origin":
        origin = free_port()
        mode = "forward" if subject == "proxy" else "gateway"
        server_cmd += ["--mode", mode, "--origin", f"127.0.0.1:{origin}"]
        proxy = ["--spec", subject, "--origin", f"127.0.0.1:{origin}", "--timeout-ms", "500"]
    if legal and legal != "default":  # ("default": no choice made)
        server_cmd += ["--legal", legal]
    if bug:
        server_cmd += ["--bug", bug]
    server = subprocess.Popen(server_cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    if not wait_listening(port, server):
        server.kill()
        return {"legal": legal, "bug": bug, "seed": seed, "error": "server did not start"}
    # A bug that kills the server: the campaign brings it back (a supervisor
    # of the user's would too) so that its finding can be shrunk.
    # (A hung server this script started, the command must stop itself.)
    restart = (f"pkill -f '{SERVER} {port}'; sleep 0.3; exec " + " ".join(server_cmd) +
               " >/dev/null 2>&1")
    cmd = [exe, "fuzz", "--target", f"127.0.0.1:{port}", "--seconds", str(seconds),
           "--seed", str(seed), "--connections", str(connections), "--json", "-q",
           "--restart", restart] + proxy + (["--keep-going"] if keep_going else []) + extra
    start = time.time()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds * 4 + 120)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), -9
    wall = time.time() - start
    # (dualfuzz's CPU only: the server, not yet waited for, is not counted.)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    server.kill()
    subprocess.run(["pkill", "-f", f"{SERVER} {port}"], check=False)
    s = last_json(out) or {}
    violations = s.get("violations") or []
    if not keep_going and s.get("violation"):
        violations = [s]
    findings = [f for f in (s.get("findings") or []) if f.get("kind") in ("crash", "hang")]
    violations = [v for v in violations if v.get("kind") not in ("crash", "hang", "")]
    return {"subject": subject, "legal": legal, "bug": bug, "seed": seed, "seconds": seconds,
            "wall": round(wall, 2),
            "cpu": round(cpu, 2), "exe": exe, "exit": rc, "executions": s.get("executions"),
            "violation": bool(s.get("violation")),
            # (The first finding's own time: a death's run goes on after it.)
            "first_seconds": min([f.get("first_seconds") for f in findings
                                  if f.get("first_seconds") is not None] +
                                 ([s.get("seconds", 0) - s.get("shrink_seconds", 0)]
                                  if s.get("violation") and not findings else []),
                                 default=None) if not keep_going else None,
            "kinds": sorted({v.get("kind", "") for v in violations + findings}),
            "signatures": [v.get("signature", "") for v in violations + findings][:20],
            "clauses": sorted({r.get("clause", "") for v in violations
                               for r in v.get("reasons") or []})[:10],
            "advisories": [a.get("key", "") if isinstance(a, dict) else a
                           for a in (s.get("advisories") or [])][:10],
            "explanations": [(v.get("explanation") or v.get("detail") or "")[:400]
                             for v in violations + findings][:5],
            "script": ((violations + findings)[0].get("script") or "")[:2000]
            if violations + findings else "",
            "races": len(s.get("races") or [])}


def main():
    global SERVER
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--subject", choices=sorted(SERVERS), default="origin")
    SERVER = SERVERS[pre.parse_known_args()[0].subject]
    legal_all, bugs_all = choices()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--subject", choices=sorted(SERVERS), default="origin",
                    help="the varied origin server, or the varied proxy as a forward "
                    "proxy or a gateway")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "cli", "dualfuzz"))
    ap.add_argument("--legal", help="comma-separated choices (default: each, and all)")
    ap.add_argument("--bugs", help="comma-separated planted bugs (default: every one)")
    ap.add_argument("--legal-seconds", type=int, default=40)
    ap.add_argument("--bug-seconds", type=int, default=30)
    ap.add_argument("--connections", type=int, default=2)
    ap.add_argument("--seeds", default="1", help="seeds of the bug runs")
    ap.add_argument("--legal-seed", type=int, default=1)
    ap.add_argument("--legal-only", action="store_true")
    ap.add_argument("--bugs-only", action="store_true")
    ap.add_argument("--before", help="a second dualfuzz: bug runs alternate with it "
                    "(before, then --exe) and the table shows both")
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench", "results", "variants.jsonl"))
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.raw), exist_ok=True)
    raw = open(a.raw, "a")
    seeds = [int(x) for x in a.seeds.split(",")]

    def keep(r):
        raw.write(json.dumps(r) + "\n")
        raw.flush()
        print(json.dumps(r), file=sys.stderr)
        return r

    if not a.bugs_only:
        names = a.legal.split(",") if a.legal else ["default"] + legal_all + ["all"]
        print("| legal choice | executions | violations (false alarms) | advisories |")
        print("|---|---|---|---|", flush=True)
        for n in names:
            r = keep(run(a.exe, n, "", a.legal_seed, a.legal_seconds, a.connections, True, [],
                         a.subject))
            fa = "; ".join(r.get("signatures", [])) or "none"
            print(f"| {n} | {r.get('executions')} | {fa} | {len(r.get('advisories', []))} |",
                  flush=True)
    if not a.legal_only:
        names = a.bugs.split(",") if a.bugs else bugs_all
        if a.before:
            print("\n| planted bug | seed | before: found, s to it, executions, wall s, CPU s "
                  "| after: found, s to it, executions, wall s, CPU s |")
            print("|---|---|---|---|")
        else:
            print("\n| planted bug | seed | found | seconds | kind | signature |")
            print("|---|---|---|---|---|---|")

        def cell(r):
            found = r["violation"] or bool(set(r["kinds"]) & {"crash", "hang"})
            return (f"{'yes' if found else 'NO'}, {r['first_seconds']}, "
                    f"{r.get('executions')}, {r.get('wall')}, {r.get('cpu')}")

        for n in names:
            for seed in seeds:
                if a.before:
                    b = keep(run(a.before, "", n, seed, a.bug_seconds, a.connections, False, [],
                             a.subject))
                    r = keep(run(a.exe, "", n, seed, a.bug_seconds, a.connections, False, [],
                             a.subject))
                    print(f"| {n} | {seed} | {cell(b)} | {cell(r)} |", flush=True)
                    continue
                r = keep(run(a.exe, "", n, seed, a.bug_seconds, a.connections, False, [],
                             a.subject))
                found = r["violation"] or bool(set(r["kinds"]) & {"crash", "hang"})
                sig = (r["signatures"] or [""])[0]
                print(f"| {n} | {seed} | {'yes' if found else 'NO'} | {r['first_seconds']} | "
                      f"{','.join(r['kinds'])} | {sig} |", flush=True)


if __name__ == "__main__":
    main()
