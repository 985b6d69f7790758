#!/usr/bin/env python3
"""Real servers as black boxes: `dualfuzz fuzz --keep-going` against Apache
httpd (mod_dav), nginx (dav module) and lighttpd (mod_webdav).

For each server and connection count: start it on a free loopback port with
a private document root (scripts/subjects/subject.sh), fuzz it for --seconds
with `dualfuzz fuzz --keep-going --json`, stop it; then write the section
"## Real servers (black box)" of docs/EVALUATION.md (the other sections are
kept): versions, machine, executions and messages per run, and every
distinct violation with its minimized counterexample, the RFC clause it
breaks and a judgement (JUDGEMENTS below; anything they do not cover is
listed as "unclassified — needs a look").

  bench/eval_realservers.py                        # 3 servers x 600 s, 2 connections
  bench/eval_realservers.py --seconds 60 --servers nginx --connections 1,2
  bench/eval_realservers.py --reuse                # re-render from the raw log

Raw results (one JSON object per run, the fuzz summary line with its
violations) go to --raw (default bench/results/realservers.jsonl); the
section is rendered from the latest run of each (server, connections, seed)
found there, so runs can be added one at a time.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (machine(), write_section())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "## Real servers (black box)"
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
SERVERS = ["apache2", "nginx", "lighttpd"]
CONFIG = {
    "apache2": "mpm_event, mod_dav + mod_dav_fs (`Dav On`), `MaxKeepAliveRequests 0`",
    "nginx": "1 worker, `dav_methods PUT DELETE`, `create_full_put_path on`",
    "lighttpd": "mod_webdav (`webdav.activate`, not read-only)",
}

# Judgements, keyed by signature. A signature (harness/cli/fuzz_command.cpp,
# signature_of) is "model: <killing request shape> -> <status>[ after
# <earlier requests on the path>][; then <later ones>][ (concurrent)]", a
# shape being the method and the precondition fields it carries, marked
# "(invalid)" when malformed. Each entry: a regular expression the whole
# signature must match, optionally one the oracle's explanation must contain
# (what the model expected instead), the verdict, the clause, and why. The
# first entry that matches decides; a violation none matches is listed as
# "unclassified — needs a look". A "model gap" entry would mean a false
# alarm: fix specs/src/http.cpp instead of leaving it here.
H = r"(?: [a-z-]+(?:\(invalid\))?)*"  # any further precondition fields
REST = r"(?: after .*?)?(?:; then .*?)?(?: \(concurrent\))?"
SERVER_BUG = "server bug"
JUDGEMENTS = [
    {
        "id": "if-match-ignored",
        "signature": rf"model: [A-Z]+ if-match -> 20[0-6]{REST}",
        "explanation": r"expected 412, observed 20\d",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "The If-Match condition is false (`*` on a missing resource, or no listed "
               "tag strongly matches the current one: a weak tag never does), and the "
               "server performed the method anyway. §13.1.1: \"An origin server MUST NOT "
               "perform the requested method if a received If-Match condition evaluates "
               "to false.\"",
    },
    {
        "id": "if-none-match-ignored",
        "signature": rf"model: (?:PUT|DELETE|POST) if-none-match -> 20[0-6]{REST}",
        "explanation": r"expected 412, observed 20\d",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "If-None-Match is `*` on an existing resource or names its current tag "
               "(weak comparison), so the condition is false, and the state-changing "
               "method was performed. §13.1.2: \"An origin server MUST NOT perform the "
               "requested method if the condition evaluates to false; instead, the origin "
               "server MUST respond with either a) the 304 (Not Modified) status code if "
               "the request method is GET or HEAD or b) the 412 (Precondition Failed) "
               "status code for all other request methods.\" and \"A recipient MUST use "
               "the weak comparison function when comparing entity tags for "
               "If-None-Match\" (RFC 2616 §14.26 allowed only strong comparison for "
               "methods other than GET and HEAD; RFC 7232 and 9110 changed that).",
    },
    {
        "id": "if-none-match-ignored-get",
        "signature": rf"model: (?:GET|HEAD) if-none-match -> 200{REST}",
        "explanation": r"expected 304, observed 200",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "If-None-Match is `*` on an existing resource or names its current tag, so "
               "the condition is false: a GET or HEAD MUST then be answered 304 (Not "
               "Modified) (§13.1.2, quoted above), not 200 with the representation.",
    },
    {
        "id": "ims-despite-if-none-match",
        "signature": rf"model: (?:GET|HEAD) if-none-match if-modified-since(?:\(invalid\))? -> 200{REST}",
        "explanation": r"expected 304, observed 200",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.3, §13.2.2",
        "why": "If-None-Match is false (so 304), but the server let If-Modified-Since "
               "decide and sent 200. §13.1.3: \"A recipient MUST ignore If-Modified-Since "
               "if the request contains an If-None-Match header field; the condition in "
               "If-None-Match is considered to be a more accurate replacement for the "
               "condition in If-Modified-Since\" (and an invalid date MUST be ignored too).",
    },
    {
        "id": "invalid-ius-not-ignored",
        "signature": rf"model: [A-Z]+ if-unmodified-since\(invalid\) -> 412{REST}",
        "explanation": r"observed 412",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "If-Unmodified-Since is not an HTTP-date, so it must be ignored; the server "
               "answered 412 instead. §13.1.4: \"A recipient MUST ignore the "
               "If-Unmodified-Since header field if the received field value is not a "
               "valid HTTP-date (including when the field value appears to be a list of "
               "dates).\"",
    },
    {
        "id": "ius-despite-if-match",
        "signature": rf"model: [A-Z]+ if-match if-unmodified-since -> 412{REST}",
        "explanation": r"expected 20\d, observed 412",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4, §13.2.2",
        "why": "If-Match is true, and If-Unmodified-Since (a date before the last "
               "modification) must then not be evaluated; the server answered 412. "
               "§13.1.4: \"A recipient MUST ignore If-Unmodified-Since if the request "
               "contains an If-Match header field; the condition in If-Match is considered "
               "to be a more accurate replacement for the condition in "
               "If-Unmodified-Since\"; §13.2.2 step 2 applies only \"when If-Match is not "
               "present\".",
    },
    {
        "id": "ius-ignored",
        "signature": rf"model: (?:PUT|DELETE|POST) if-unmodified-since -> 20[0-6]{REST}",
        "explanation": r"expected 412, observed 20\d",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The resource was modified after the If-Unmodified-Since date (or has no "
               "representation), so the condition is false, and the method was performed. "
               "§13.1.4: \"An origin server that receives an If-Unmodified-Since header "
               "field MUST evaluate the condition as per Section 13.2 prior to performing "
               "the method\" and \"MUST NOT perform the requested method if the condition "
               "evaluates to false\".",
    },
    {
        "id": "concurrent-creates",
        "signature": r"model: PUT -> 201(?: after PUT(?: ; PUT)*)?(?:; then PUT(?: ; PUT)*)?"
                     r" \(concurrent\)",
        "explanation": r"expected 20[04], observed 201",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.4",
        "why": "Concurrent PUTs of one new path are each answered 201 Created, so no "
               "order of them explains the answers: only the first can have created the "
               "resource (§9.3.4: 201 \"if the target resource does not have a current "
               "representation and the PUT successfully creates one\", 200 or 204 when "
               "an existing one was modified). The server checks for existence and "
               "replaces the file in separate steps. In sequence the same requests pass.",
    },
]

JUDGEMENTS.append({
    "id": "content-length-then-close",
    "signature": r"protocol: connection closed in the middle of a response at byte N: S",
    "verdict": SERVER_BUG,
    "clause": "RFC 9112 §6.3, RFC 9110 §8.6",
    "why": "The response header announced a Content-Length, and the server closed the "
           "connection before sending that many bytes. RFC 9112 §6.3: with a valid "
           "Content-Length, \"If the sender closes the connection or the recipient times "
           "out before the indicated number of octets are received, the recipient MUST "
           "consider the message to be incomplete\"; RFC 9110 §8.6: a sender MUST NOT "
           "send a Content-Length that differs from the content's length. (lighttpd "
           "1.4.69, checked by hand with curl: after a PUT truncates a file within the "
           "same second, GET answers with the old file's Content-Length from its stat "
           "cache and closes without a body.)",
})

KILL_RE = re.compile(r"response (\d+) received")
PREFIX_RE = re.compile(r"^/dualfuzz-\d+-\d+-")


def judge(v):
    for j in JUDGEMENTS:
        if re.fullmatch(j["signature"], v["signature"]) and (
                not j.get("explanation") or re.search(j["explanation"],
                                                      v.get("explanation", ""))):
            return j
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_server(exe, server, seconds, seed, connections, log):
    port = free_port()
    work = tempfile.mkdtemp(prefix=f"dualfuzz-{server}-")
    os.chmod(work, 0o755)  # the server's workers must reach the docroot
    subj = os.path.join(work, "subject")
    version = subprocess.run([SUBJECT, "version", server], capture_output=True,
                             text=True).stdout.strip().splitlines()
    version = version[0] if version else "?"
    start = subprocess.run([SUBJECT, "start", server, str(port), subj],
                           capture_output=True, text=True)
    rec = {"server": server, "version": version, "connections": connections,
           "seed": seed, "budget": seconds}
    if start.returncode != 0:
        rec["error"] = "start: " + (start.stderr.strip().splitlines() or ["?"])[-1]
        os.rmdir(work) if os.path.isdir(work) and not os.listdir(work) else None
        return rec
    try:
        cmd = ["nice", "-n", "5", exe, "fuzz", "--target", f"127.0.0.1:{port}", "--seconds",
               str(seconds), "--seed", str(seed), "--connections", str(connections),
               "--keep-going", "--json", "-q"]
        rec["cmd"] = " ".join(cmd[3:]).replace(f"127.0.0.1:{port}", "127.0.0.1:PORT")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 1800)
            rec["exit"] = p.returncode
            for line in reversed(p.stdout.splitlines()):
                if line.startswith("{"):
                    rec["summary"] = json.loads(line)
                    break
            else:
                rec["error"] = f"exit {p.returncode}: " + (p.stderr.strip().splitlines()
                                                           or ["no summary"])[-1]
        except subprocess.TimeoutExpired:
            rec["error"] = "timeout"
    finally:
        subprocess.run([SUBJECT, "stop", server, str(port), subj], capture_output=True)
        try:
            os.rmdir(work)
        except OSError:
            pass
    if log is not None:
        log.write(json.dumps(rec) + "\n")
        log.flush()
    return rec


def show_path(p):
    return PREFIX_RE.sub("/", p) if isinstance(p, str) else str(p)


def message_line(m, kill_label):
    ir = m["ir"]
    arrow = ">" if m["label"] % 2 else "<"
    parts = [f"c{m['conn']} {arrow} {m['label']}"]
    h = ir.get("headers", {}) if isinstance(ir.get("headers"), dict) else {}
    if arrow == ">":
        parts.append(f"{ir.get('method', '?')} {show_path(ir.get('path', '?'))}")
        for k, v in h.items():
            parts.append(f"{k}: {v}")
        body = ir.get("body", "")
        if body:
            parts.append(f"body {json.dumps(body)}")
    else:
        parts.append(str(ir.get("status", "?")))
        for k in ("etag", "last-modified", "date"):
            if k in h:
                parts.append(f"{k}: {h[k]}")
        body = ir.get("body", "")
        if body and ir.get("status") == 200:
            parts.append(f"body {json.dumps(body)}")
    line = "  ".join(parts)
    if m["label"] == kill_label:
        line += "    <-- no correct server explains this"
    return line


def counterexample(v):
    m = KILL_RE.search(v.get("explanation", ""))
    kill = int(m.group(1)) if m else -1
    lines = [message_line(x, kill) for x in v.get("trace", [])]
    why = [l.strip() for l in v.get("explanation", "").splitlines()
           if l.strip().startswith("- ")][:4]
    return lines, why


def fmt_s(x):
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def render(m, args, runs):
    out = [SECTION, ""]
    out.append(f"Generated by `bench/eval_realservers.py` on {m['date']}; dualfuzz "
               + (args.build_note or f"built at commit `{m['commit']}`") + ".")
    out.append("")
    out.append(f"Machine: {m['nproc']} vCPU (`nproc` = {m['nproc']}), "
               f"`lscpu | grep 'Model name'`: {m['cpu']}; {m['mem']} RAM; "
               f"Linux {m['kernel']} (Firecracker VM). Server and fuzzer share the two "
               "vCPUs (the fuzzer under `nice -n 5`), so executions per second are lower "
               "bounds.")
    out.append("")
    out.append("Each server runs on loopback with a private document root "
               "(`scripts/subjects/subject.sh`; a PUT/GET/DELETE smoke test must pass "
               "first), and `dualfuzz fuzz --target 127.0.0.1:PORT --keep-going --json` "
               "plays generated scripts against it, each run in its own path namespace. "
               "After a violation it shrinks the script to the bug (same killing request "
               "shape and status), tries it serialized on one connection, records a "
               "signature and goes on; repeats are counted, not re-reported. "
               "A *signature* names the request no correct server would answer that way, "
               "its status, the other requests on that path before (*after*) and during "
               "(*then*) it, and *(concurrent)* when the race is needed.")
    out.append("")
    out.append("| server | version | configuration |")
    out.append("| --- | --- | --- |")
    seen = set()
    for r in runs:
        if r["server"] not in seen:
            seen.add(r["server"])
            out.append(f"| {r['server']} | {r['version']} | {CONFIG.get(r['server'], '')} |")
    out.append("")
    out.append("| server | connections | seed | seconds | executions | exec/s | messages "
               "| inconclusive | seconds shrinking | distinct violations | server bugs "
               "| model gaps | unclassified |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: | ---: |")
    findings = {}  # server -> signature -> merged finding
    for r in runs:
        if "error" in r:
            out.append(f"| {r['server']} | {r['connections']} | {r['seed']} | — | — | — | — "
                       f"| — | — | error: {r['error']} | | | |")
            continue
        s = r["summary"]
        vs = s.get("violations", [])
        verdicts = [(judge(v) or {}).get("verdict", "unclassified") for v in vs]
        bugs = sum(1 for x in verdicts if x.startswith(SERVER_BUG))
        gaps = sum(1 for x in verdicts if x == "model gap")
        out.append(f"| {r['server']} | {r['connections']} | {r['seed']} | "
                   f"{s['seconds']:.0f} | {s['executions']} | "
                   f"{s['executions'] / max(s['seconds'], 1e-9):.0f} | {s['messages']} | "
                   f"{s['inconclusive']} | {fmt_s(s.get('shrink_seconds', 0))} | {len(vs)} "
                   f"| {bugs} | {gaps} | {len(vs) - bugs - gaps} |")
        for v in vs:
            f = findings.setdefault(r["server"], {}).get(v["signature"])
            if f is None:
                f = findings[r["server"]][v["signature"]] = dict(v, count=0, runs=[])
            f["count"] += v["count"]
            f["runs"].append(f"{r['connections']} conn.: first after "
                             f"{fmt_s(v['first_seconds'])} s")
            if v.get("reproduced") and not f.get("reproduced"):
                f.update({k: v[k] for k in ("script", "trace", "explanation", "reproduced",
                                            "min_messages", "min_steps")})
    out.append("")
    total = {"bug": 0, "gap": 0, "unclassified": 0}
    for server in [x for x in SERVERS if x in findings] + \
            [x for x in findings if x not in SERVERS]:
        fs = sorted(findings[server].values(),
                    key=lambda f: (judge(f) is None, (judge(f) or {}).get("id", ""),
                                   -f["count"]))
        version = next(r["version"] for r in runs if r["server"] == server)
        out.append(f"### {version}: {len(fs)} distinct violations")
        out.append("")
        # A summary first: one line per judgement.
        by = {}
        for f in fs:
            j = judge(f)
            by.setdefault(j["id"] if j else "unclassified", []).append(f)
        for key, group in by.items():
            j = next((x for x in JUDGEMENTS if x["id"] == key), None)
            n = sum(f["count"] for f in group)
            if j:
                out.append(f"- **{j['verdict']}**, {j['clause']} (`{key}`): "
                           f"{len(group)} signature(s), {n} occurrences")
            else:
                out.append(f"- **unclassified — needs a look**: {len(group)} signature(s), "
                           f"{n} occurrences")
        out.append("")
        for f in fs:
            j = judge(f)
            if j is None:
                total["unclassified"] += 1
            elif j["verdict"] == "model gap":
                total["gap"] += 1
            else:
                total["bug"] += 1
            out.append(f"#### `{f['signature']}`")
            out.append("")
            verdict = (f"**{j['verdict']}** ({j['clause']}). {j['why']}" if j else
                       "**unclassified — needs a look.**")
            out.append(verdict)
            out.append("")
            lines, why = counterexample(f)
            n = len(f.get("trace", []))
            out.append(f"{f['count']} occurrences ({'; '.join(f['runs'])}). "
                       + ("Minimized" if f.get("reproduced") else
                          "**Not reproduced** on replay (a race), so not minimized: the "
                          "original")
                       + f" counterexample, {f.get('min_steps', '?')} script steps, "
                       f"{n} messages" + (" (more than 6)" if n > 6 else "") + ":")
            out.append("")
            out.append("```")
            out.append(f["script"].rstrip("\n"))
            out.append("--- trace (the path prefix of the run's namespace removed)")
            out.extend(lines)
            if why:
                out.append("--- why no explanation survived (first reasons)")
                out.extend(why)
            out.append("```")
            out.append("")
    out.append(f"Total: {total['bug']} distinct violations judged server bugs, "
               f"{total['gap']} model gaps (false alarms), {total['unclassified']} "
               "unclassified.")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/harness/cli/dualfuzz"))
    ap.add_argument("--servers", default=",".join(SERVERS))
    ap.add_argument("--seconds", type=float, default=600, help="per server and run")
    ap.add_argument("--connections", default="2", help="comma-separated, one run each")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/EVALUATION.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/realservers.jsonl"))
    ap.add_argument("--build-note", default="",
                    help="how the dualfuzz binary was built (default: this checkout's commit)")
    ap.add_argument("--reuse", action="store_true",
                    help="run nothing; render the runs already in --raw")
    args = ap.parse_args()
    servers = [s for s in args.servers.split(",") if s]
    conns = [int(c) for c in args.connections.split(",") if c]
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    if not args.reuse:
        if not os.access(args.dualfuzz, os.X_OK):
            sys.exit(f"eval_realservers: no dualfuzz at {args.dualfuzz} "
                     "(build it or pass --dualfuzz)")
        with open(args.raw, "a") as log:
            for server in servers:
                for k in conns:
                    print(f"{server}, {k} connection(s), {args.seconds:g} s ...",
                          file=sys.stderr)
                    r = run_server(args.dualfuzz, server, args.seconds, args.seed, k, log)
                    if "error" in r:
                        print(f"  error: {r['error']}", file=sys.stderr)
                        continue
                    s = r["summary"]
                    print(f"  {s['executions']} executions, "
                          f"{len(s.get('violations', []))} distinct violations",
                          file=sys.stderr)
                    for v in s.get("violations", []):
                        j = judge(v)
                        print(f"    {v['count']:5d} x {v['signature']}  "
                              f"[{j['id'] if j else 'UNCLASSIFIED'}]", file=sys.stderr)
    # The latest run of each (server, connections, seed) in the raw log.
    latest = {}
    if os.path.exists(args.raw):
        for line in open(args.raw):
            if line.strip():
                r = json.loads(line)
                latest[(r["server"], r["connections"], r["seed"])] = r
    order = {s: i for i, s in enumerate(SERVERS)}
    runs = [latest[k] for k in sorted(latest, key=lambda k: (order.get(k[0], 99), -k[1], k[2]))
            if k[0] in servers]
    eval_blackbox.write_section(args.out, render(eval_blackbox.machine(), args, runs), SECTION)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
