#!/usr/bin/env python3
"""Findings of `dualfuzz fuzz --json` runs tabulated by the plug-in's
judgements (protocols/http/judgements.json, the data `dualfuzz fuzz --known
judged:SERVER` reads): per distinct identity, its plays and the judgement that
covers it (id, clause) or NOT JUDGED. The judging is the data's; this script
only reads and counts.

    bench/eval_judged.py --server nginx-static RUN.json [RUN.json ...]
    bench/eval_judged.py --server nginx-static --judgements FILE RUN.json
    bench/eval_judged.py --list                       # the judgements, a line each

Exit status: 0 when every finding is covered by a judgement of the server,
1 when one is not (it is listed), 2 on bad input.
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "protocols/http/judgements.json")


def pattern(glob):
    """A judgement's identity pattern (`*`: any run of characters) as a regex."""
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in glob) + r"\Z",
                      re.S)


def load(path):
    with open(path, encoding="utf-8") as f:
        js = json.load(f)
    for j in js:
        j["_res"] = [pattern(p) for p in j["identities"]]
    return js


def judge(judgements, identity, server):
    for j in judgements:
        if server in j["servers"] and any(r.match(identity) for r in j["_res"]):
            return j
    return None


def findings(summary):
    """A `dualfuzz fuzz --json` summary's findings, each once: violations and
    deaths ("findings" holds the violations too with --keep-going), and races."""
    return list(summary.get("findings", summary.get("violations", []))) + \
        list(summary.get("races", []))


def identity(f):
    return f.get("identity") or f.get("signature", "")


def judged(judgements, fs, server):
    """{identity: the judgement of `server` that covers it, or None} over findings `fs`."""
    return {identity(f): judge(judgements, identity(f), server) for f in fs}


def summaries(path):
    """The summary lines of a `dualfuzz fuzz --json` output."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                if "executions" in j:
                    out.append(j)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--server", default="")
    ap.add_argument("--judgements", default=DEFAULT)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    try:
        judgements = load(a.judgements)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"eval_judged: {a.judgements}: {e}")
    if a.list:
        for j in judgements:
            print(f"{j['id']:32} {j['clause']:24} {', '.join(j['servers'])}")
        return 0
    if not a.server or not a.runs:
        ap.error("--server and at least one run are needed")
    counts, plays, execs = {}, {}, 0
    for path in a.runs:
        for s in summaries(path):
            execs += s.get("executions", 0)
            for f in findings(s):
                plays[identity(f)] = plays.get(identity(f), 0) + f.get("count", 1)
            for ident, j in judged(judgements, findings(s), a.server).items():
                counts.setdefault(ident, j)
    unjudged = 0
    print(f"{a.server}: {len(a.runs)} run(s), {execs:,} executions, "
          f"{len(counts)} distinct finding(s)")
    print("| plays | judgement | clause | identity |")
    print("|---|---|---|---|")
    for ident, j in sorted(counts.items(), key=lambda kv: (kv[1] is not None, -plays[kv[0]])):
        if j is None:
            unjudged += 1
        text = ident if len(ident) <= 160 else ident[:157] + "..."
        print(f"| {plays[ident]:,} | {j['id'] if j else '**NOT JUDGED**'} | "
              f"{j['clause'] if j else ''} | `{text}` |")
    print(f"{len(counts) - unjudged} judged, {unjudged} not judged")
    return 1 if unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
