#!/usr/bin/env python3
"""Issue 47's check of baselines on mutants of a real server: the unpatched
lighttpd's findings recorded as a baseline (`dualfuzz fuzz --keep-going
--json`, --record-seeds x --record-seconds), then each mutant
(scripts/subjects/mutants/lighttpd/*.patch; --server nginx or apache2: theirs,
with eval_mutants.default_fix's patches) fuzzed as CI would run it:
`dualfuzz fuzz --baseline RECORD` (first finding, no --keep-going) for
--seconds per seed. The first finding it reports is judged by
eval_mutants.kill_check (its shrunk script replayed on both builds):
  own      it never shows on the unpatched build and shows on the mutant
           (the mutant's own: what the baseline must let through)
  known    it shows on the unpatched build (a known finding reported: what
           the baseline should have hidden)
  unclear  neither (a race, or a verdict nobody reached)
  none     nothing reported in the time (a kill hidden by the baseline, or
           missed by fuzzing; the mutant's kill without a baseline is in
           eval_mutants' tables)
With --baseline-target the unpatched build, running, is the mutant runs'
`--baseline-target` too (the CI recipe with main's build beside the
change's): a finding the record lacks is played there and known when it
shows there under its identity.

  bench/eval_mutants_baseline.py --seconds 60 --seeds 1,2
  bench/eval_mutants_baseline.py --seconds 60 scripts/subjects/mutants/lighttpd/05-*.patch
  bench/eval_mutants_baseline.py --server nginx --seconds 60 --seeds 1,2
Prints a Markdown table; one JSON line per run goes to --raw.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (last_json())
import eval_mutants as em  # noqa: E402  (Server, kill_check, build, default_fix)


def fuzz(args, target, seconds, seed, extra):
    cmd = [args.dualfuzz, "fuzz", "--target", target, "--seconds", str(seconds), "--seed",
           str(seed), "--json", "-q"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 300)
    return r.stdout, eval_blackbox.last_json(r.stdout) or {}


def first_finding(summary):
    # (A run that stopped at its first finding has it at the top level.)
    if summary.get("violation") and summary.get("script"):
        return summary
    for key in ("violations", "findings"):
        for f in summary.get(key, []):
            if f.get("script"):
                return f
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patches", nargs="*")
    ap.add_argument("--server", choices=sorted(em.BINARY_ENV), default="lighttpd")
    ap.add_argument("--dualfuzz", default=os.path.join(em.ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--record-seconds", type=float, default=120)
    ap.add_argument("--record-seeds", default="1,2")
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--min-rate", type=float, default=0.35)
    ap.add_argument("--record-args", default="--keep-going --record-baseline",
                    help="the options of the unpatched runs the baseline is recorded by "
                         "(the CI recipe's; '--keep-going' alone: without --record-baseline)")
    ap.add_argument("--record", default="",
                    help="an earlier record (the --json output of the unpatched runs) to reuse")
    ap.add_argument("--baseline-target", action="store_true",
                    help="give the mutant runs the running unpatched build as "
                         "--baseline-target")
    ap.add_argument("--raw", help="default: bench/results/mutants-baseline.jsonl "
                    "(mutants-baseline-SERVER.jsonl for nginx, apache2)")
    args = ap.parse_args()
    args.fix = em.default_fix(args.server)
    if args.raw is None:
        args.raw = os.path.join(em.ROOT, "bench/results", "mutants-baseline.jsonl"
                                if args.server == "lighttpd"
                                else f"mutants-baseline-{args.server}.jsonl")
    patches = args.patches or sorted(
        glob.glob(os.path.join(em.ROOT, "scripts/subjects/mutants", args.server, "*.patch")))
    orig, _ = em.build(args, check=True)
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    record = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    known = set()
    if args.record:
        with open(args.record) as f:
            text = f.read()
        record.write(text)
        for line in text.splitlines():
            if line.startswith("{"):
                j = json.loads(line)
                known |= {x["identity"] for x in j.get("findings", []) if x.get("identity")}
    for seed in ([] if args.record else args.record_seeds.split(",")):
        with em.Server(orig) as u:
            if u.error:
                sys.exit(f"unpatched {args.server}: " + u.error)
            out, s = fuzz(args, u.target, args.record_seconds, int(seed),
                          args.record_args.split())
        record.write(out)
        known |= {f["identity"] for f in s.get("findings", []) if f.get("identity")}
        print(f"record seed {seed}: {s.get('executions')} executions, "
              f"{len(s.get('findings', []))} findings", file=sys.stderr, flush=True)
    record.close()
    print(f"record: {record.name} ({args.record_args})", file=sys.stderr, flush=True)
    rows = []
    with em.Server(orig) as original, open(args.raw, "a") as log:
        for p in patches:
            name = os.path.basename(p)[:-len(".patch")]
            binary, err = em.build(args, p)
            if not binary:
                rows.append({"mutant": name, "error": err[-200:]})
                continue
            for seed in args.seeds.split(","):
                row = {"mutant": name, "seed": int(seed), "baseline_identities": len(known)}
                # (No smoke test: mutants 12 and 16 break the DELETE or the GET it
                # makes, and never ran while it stopped them.)
                with em.Server(binary, smoke=False) as m:
                    if m.error:
                        row.update(verdict="error", error=m.error)
                        print(json.dumps(row), file=sys.stderr, flush=True)
                        log.write(json.dumps(row) + "\n")
                        rows.append(row)
                        continue
                    _, s = fuzz(args, m.target, args.seconds, int(seed),
                                ["--baseline", record.name] +
                                (["--baseline-target", original.target]
                                 if args.baseline_target else []))
                    row.update(executions=s.get("executions"),
                               baseline_known=s.get("baseline_known"),
                               reference_known=s.get("reference_known"),
                               reference_plays=s.get("reference_plays"),
                               baseline_seen=s.get("baseline"),
                               seconds=s.get("seconds"),
                               # (not shown again: neither own nor known can be said)
                               unconfirmed=[{"identity": u.get("identity", u.get("signature")),
                                             "first_seconds": u.get("first_seconds")}
                                            for u in s.get("unconfirmed", [])])
                    f = first_finding(s)
                    if not f:
                        row["verdict"] = "none"
                    else:
                        row.update(identity=f.get("identity", f.get("signature")),
                                   first_seconds=f.get("first_seconds", s.get("seconds")),
                                   script=f["script"])
                        with tempfile.NamedTemporaryFile("w", suffix=".txt") as sf:
                            sf.write(f["script"])
                            sf.flush()
                            k = em.kill_check(args, m, original, sf.name)
                        row["check"] = {x: k[x] for x in ("plays", "on_mutant", "on_unpatched")}
                        row["verdict"] = ("known" if k["on_unpatched"] else
                                          "own" if k["killed"] else "unclear")
                print(json.dumps({x: y for x, y in row.items() if x != "script"}),
                      file=sys.stderr, flush=True)
                log.write(json.dumps(row) + "\n")
                log.flush()
                rows.append(row)
    print(("With the unpatched build running as --baseline-target.\n"
           if args.baseline_target else "")
          + f"Baseline: {len(known)} identities of the unpatched build "
          + (f"(from {args.record}).\n" if args.record else
             f"({args.record_seeds} x {args.record_seconds:g} s).\n"))
    print("| mutant | seed | first finding reported | s | verdict (plays: mutant / unpatched) |")
    print("| --- | --- | --- | ---: | --- |")
    for r in rows:
        if "error" in r:
            what = "did not start" if r.get("verdict") == "error" else "build error"
            print(f"| {r['mutant']} | {r.get('seed', '')} | {what} | | |")
            continue
        c = r.get("check", {})
        print(f"| {r['mutant']} | {r['seed']} | `{(r.get('identity') or '-')[:90]}` | "
              f"{r.get('first_seconds', '-')} | {r['verdict']}"
              + (f" ({c['on_mutant']}/{c['plays']} / {c['on_unpatched']}/{c['plays']})"
                 if c else "") + " |")
    n = collections.Counter(r.get("verdict") for r in rows if "error" not in r)
    print(f"\n{sum(n.values())} runs: own {n['own']}, known {n['known']}, "
          f"unclear {n['unclear']}, none {n['none']}")


if __name__ == "__main__":
    main()
