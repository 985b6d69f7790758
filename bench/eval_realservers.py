#!/usr/bin/env python3
"""Real WebDAV servers as black boxes: `dualfuzz fuzz --keep-going --json`
against Apache httpd (mod_dav), nginx (dav module) and lighttpd
(mod_webdav), every finding judged by the plug-in's data
(protocols/http/judgements.json, the judgements `dualfuzz fuzz --known
judged:SERVER` reads). This script only runs and tabulates: per server, the
executions, the distinct findings, the judgement that covers each (id,
clause) and what no judgement covers (listed, with its identity: it needs a
look, and either a judgement checked by hand or a fix of the model).

  bench/eval_realservers.py                        # 3 servers x 600 s, 2 connections
  bench/eval_realservers.py --seconds 60 --servers nginx --connections 1,2
  bench/eval_realservers.py --reuse                # tabulate the raw log again
  bench/eval_realservers.py --libfuzzer build-lf/tests/fuzz/http_inprocess_fuzzer

Raw results (one JSON object per run: the fuzz summary line with its
findings) go to --raw (default bench/results/realservers.jsonl); the table
is made from the latest run of each (server, connections, seed) found
there, so runs can be added one at a time. bench/eval_tables.py renders
EVALUATION's table from the same records (`realservers`).

Exit status: 0 when every finding is judged, 1 when one is not, 2 on bad
input.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (free_port(), last_json())
import eval_judged  # noqa: E402  (the plug-in's judgements: load(), judge())
import eval_libfuzzer  # noqa: E402  (the fuzz target's report and status lines)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
SERVERS = ["apache2", "nginx", "lighttpd"]
CONFIG = {
    "apache2": "mpm_event, mod_dav + mod_dav_fs (`Dav On`), `MaxKeepAliveRequests 0`",
    "nginx": "1 worker, `dav_methods PUT DELETE`, `create_full_put_path on`",
    "lighttpd": "mod_webdav (`webdav.activate`, not read-only)",
}


def append_record(log, rec):
    """Writes one run's record to the raw log (if any) as a JSON line."""
    if log is not None:
        log.write(json.dumps(rec) + "\n")
        log.flush()
    return rec


class Subject:
    """A server on a free loopback port with a private document root
    (scripts/subjects/subject.sh), stopped and removed on exit:
      with Subject("nginx") as sub: ... f"127.0.0.1:{sub.port}" ...
    `error` says why it did not start (then there is nothing to play)."""

    def __init__(self, server):
        self.server, self.port, self.error = server, eval_blackbox.free_port(), None
        self.work = tempfile.mkdtemp(prefix=f"dualfuzz-{server}-")
        os.chmod(self.work, 0o755)  # the server's workers must reach the docroot
        self.subj = os.path.join(self.work, "subject")
        v = subprocess.run([SUBJECT, "version", server], capture_output=True,
                           text=True).stdout.strip().splitlines()
        self.version = v[0] if v else "?"

    def __enter__(self):
        start = subprocess.run([SUBJECT, "start", self.server, str(self.port), self.subj],
                               capture_output=True, text=True)
        if start.returncode != 0:
            self.error = "start: " + (start.stderr.strip().splitlines() or ["?"])[-1]
        return self

    def __exit__(self, *exc):
        if self.error is None:
            subprocess.run([SUBJECT, "stop", self.server, str(self.port), self.subj],
                           capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)
        return False

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"


def run_server(exe, server, seconds, seed, connections, log, extra=()):
    """One `dualfuzz fuzz --keep-going --json` run against `server`
    (`extra`: more options, e.g. ("--consistency", "interval"))."""
    rec = {"server": server, "connections": connections, "seed": seed, "budget": seconds}
    with Subject(server) as sub:
        rec["version"] = sub.version
        if sub.error:
            rec["error"] = sub.error
            return rec
        cmd = ["nice", "-n", "5", exe, "fuzz", "--target", sub.target, "--seconds",
               str(seconds), "--seed", str(seed), "--connections", str(connections),
               "--keep-going", "--json", "-q", *extra]
        rec["cmd"] = " ".join(cmd[3:]).replace(sub.target, "127.0.0.1:PORT")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 1800)
            rec["exit"] = p.returncode
            summary = eval_blackbox.last_json(p.stdout)
            if summary is not None:
                rec["summary"] = summary
            else:
                rec["error"] = f"exit {p.returncode}: " + (p.stderr.strip().splitlines()
                                                           or ["no summary"])[-1]
        except subprocess.TimeoutExpired:
            rec["error"] = "timeout"
    return append_record(log, rec)


def run_libfuzzer_server(fuzzer, exe, server, seconds, seed, log):
    """The external-server fuzz target (tests/fuzz/http_inprocess_fuzzer with
    DUALFUZZ_TARGET) under libFuzzer with the custom mutator, from the seed
    corpus, until its first violation or `seconds`; the crash file is then
    shrunk by `dualfuzz fuzz --shrink` against the same server (a fresh
    namespace), which names the finding as the campaign does."""
    rec = {"engine": "libfuzzer", "server": server, "seed": seed, "budget": seconds}
    fuzzer, exe = os.path.abspath(fuzzer), os.path.abspath(exe)  # it runs in a temp dir
    with Subject(server) as sub:
        rec["version"] = sub.version
        if sub.error:
            rec["error"] = sub.error
            return rec
        tmp = tempfile.mkdtemp(prefix="eval-lf-server-")
        corpus = os.path.join(tmp, "corpus")
        shutil.copytree(os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer"), corpus)
        env = dict(os.environ, DUALFUZZ_TARGET=sub.target)
        env.pop("DUALFUZZ_BUG", None)
        # Seeds that show a violation of this server already are left out
        # (a bug a seed shows is not found by fuzzing; bench/eval_libfuzzer.py
        # does the same for the planted bugs).
        dropped = []
        for name in sorted(os.listdir(corpus)):
            f = os.path.join(corpus, name)
            q = subprocess.run([fuzzer, f], env=env, capture_output=True, cwd=tmp)
            if q.returncode != 0:
                dropped.append(name)
                os.remove(f)
        for a in glob.glob(os.path.join(tmp, "crash-*")):
            os.remove(a)
        rec["seeds_dropped"] = dropped
        rec["seeds_kept"] = len(os.listdir(corpus))
        cmd = ["nice", "-n", "5", fuzzer, f"-seed={seed}", f"-max_total_time={seconds:g}",
               "-print_final_stats=1", f"-artifact_prefix={tmp}/", corpus]
        rec["cmd"] = "DUALFUZZ_TARGET=127.0.0.1:PORT " + " ".join(
            [os.path.relpath(fuzzer, ROOT)] + cmd[4:]).replace(tmp, "TMP")
        t0, found, execs = time.monotonic(), None, 0
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, errors="replace", env=env, cwd=tmp)
        for line in p.stderr:
            m = eval_libfuzzer.STATUS.match(line)
            if m and found is None:
                execs = int(m.group(1))
            if line.startswith(eval_libfuzzer.VIOLATION_MARK) and found is None:
                found = time.monotonic() - t0
            if line.startswith("stat::number_of_executed_units:"):
                execs = int(line.split(":")[-1])
        p.wait()
        rec.update({"exit": p.returncode, "executions": execs,
                    "wall_seconds": round(time.monotonic() - t0, 3)})
        crashes = glob.glob(os.path.join(tmp, "crash-*"))
        rec["violation"] = found is not None and bool(crashes)
        if found is not None:
            rec["seconds"] = round(found, 3)
        if crashes:
            # Shrunk as `dualfuzz fuzz --keep-going` shrinks its findings
            # (a race is replayed until it shows again, then distilled).
            q = subprocess.run(["nice", "-n", "5", exe, "fuzz", "--target", sub.target,
                                "--shrink", crashes[0], "--shrink-tries", "100", "--json"],
                               capture_output=True, text=True, timeout=1800)
            rec["shrink_exit"] = q.returncode
            finding = eval_blackbox.last_json(q.stdout)
            if finding is not None and finding.get("violation"):
                rec["finding"] = finding
            else:
                # No violation in 100 plays: a race lost every time.
                rec["finding_error"] = "the crash file showed no violation in " + str(
                    (finding or {}).get("plays", "?")) + " plays"
        elif p.returncode != 0:
            rec["error"] = f"exit {p.returncode} without a crash file"
        shutil.rmtree(tmp, ignore_errors=True)
    return append_record(log, rec)



def findings_of(rec):
    """A run record's findings, each once (eval_judged.findings; a libFuzzer
    record has its shrunk "finding")."""
    out = eval_judged.findings(rec.get("summary") or {})
    if rec.get("finding"):
        out.append(dict(rec["finding"], count=1))
    return out


identity = eval_judged.identity


def tabulate(judgements, runs):
    """{server: {identity: [plays, judgement or None, finding]}} over `runs`."""
    table = {}
    for r in runs:
        per = table.setdefault(r["server"], {})
        fs = findings_of(r)
        js = eval_judged.judged(judgements, fs, r["server"])
        for f in fs:
            row = per.setdefault(identity(f), [0, js[identity(f)], f])
            row[0] += f.get("count", 1)
    return table


def render(judgements, runs):
    """The markdown the script prints: a row per run, then per server every
    distinct finding with its judgement, the ones no judgement covers first."""
    out = ["| server | version | engine | connections | seed | seconds | executions | exec/s "
           "| distinct findings | judged | not judged |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in runs:
        engine = r.get("engine", "dualfuzz fuzz")
        if r.get("error"):
            out.append(f"| {r['server']} | {r.get('version', '?')} | {engine} | "
                       f"{r.get('connections', 1)} | {r['seed']} | | | | error: {r['error']} | | |")
            continue
        s = r.get("summary") or {}
        execs = s.get("executions", r.get("executions", 0))
        secs = s.get("seconds", r.get("wall_seconds", 0)) or 0
        js = eval_judged.judged(judgements, findings_of(r), r["server"])
        judged = sum(1 for j in js.values() if j)
        out.append(f"| {r['server']} | {r.get('version', '?')} | {engine} | "
                   f"{r.get('connections', 1)} | {r['seed']} | {secs:.0f} | {execs:,} | "
                   f"{execs / secs if secs else 0:.0f} | {len(js)} | {judged} | "
                   f"{len(js) - judged} |")
    table = tabulate(judgements, runs)
    unjudged = 0
    for server, per in table.items():
        out += ["", f"**{server}**: {len(per)} distinct findings", "",
                "| plays | judgement | clause | identity |", "| ---: | --- | --- | --- |"]
        for ident, (plays, j, _f) in sorted(per.items(),
                                            key=lambda kv: (kv[1][1] is not None, -kv[1][0])):
            unjudged += j is None
            text = ident if len(ident) <= 200 else ident[:197] + "..."
            out.append(f"| {plays:,} | {j['id'] if j else '**NOT JUDGED**'} | "
                       f"{j['clause'] if j else ''} | `{text}` |")
    not_judged = [(s, i, row[2]) for s, per in table.items() for i, row in per.items()
                  if row[1] is None]
    if not_judged:
        out += ["", "Not judged, each a shrunk script (it needs a look):", ""]
        for server, ident, f in not_judged:
            out += [f"- {server}: `{ident}`", "", "```", f.get("script", "").rstrip(), "```",
                    ""]
    return "\n".join(out), unjudged


def latest_runs(raw, servers):
    """The latest run of each (server, engine, connections, seed) in the raw log."""
    latest = {}
    if os.path.exists(raw):
        with open(raw, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    latest[(r["server"], r.get("engine", ""), r.get("connections", 1),
                            r["seed"])] = r
    order = {s: i for i, s in enumerate(SERVERS)}
    return [latest[k] for k in sorted(latest, key=lambda k: (order.get(k[0], 99), k[1], -k[2],
                                                            k[3])) if k[0] in servers]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--servers", default=",".join(SERVERS))
    ap.add_argument("--seconds", type=float, default=600, help="per server and run")
    ap.add_argument("--connections", default="2", help="comma-separated, one run each")
    ap.add_argument("--seeds", default="1", help="comma-separated, one run each")
    ap.add_argument("--judgements", default=eval_judged.DEFAULT)
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/realservers.jsonl"))
    ap.add_argument("--out", default="", help="also write the table to this file")
    ap.add_argument("--reuse", action="store_true",
                    help="run nothing; tabulate the runs already in --raw")
    ap.add_argument("--libfuzzer", default="",
                    help="also run this external-server fuzz target (a build with "
                         "DUALFUZZ_BUILD_FUZZERS=ON: tests/fuzz/http_inprocess_fuzzer) "
                         "under libFuzzer against each server, once per seed")
    ap.add_argument("--libfuzzer-seconds", type=float, default=300)
    args = ap.parse_args()
    try:
        judgements = eval_judged.load(args.judgements)
    except (OSError, ValueError, KeyError) as e:
        print(f"eval_realservers: {args.judgements}: {e}", file=sys.stderr)
        return 2
    servers = [s for s in args.servers.split(",") if s]
    conns = [int(c) for c in args.connections.split(",") if c]
    seeds = [int(s) for s in args.seeds.split(",") if s]
    os.makedirs(os.path.dirname(os.path.abspath(args.raw)), exist_ok=True)
    if not args.reuse:
        if not os.access(args.dualfuzz, os.X_OK):
            print(f"eval_realservers: no dualfuzz at {args.dualfuzz} "
                  "(build it or pass --dualfuzz)", file=sys.stderr)
            return 2
        with open(args.raw, "a", encoding="utf-8") as log:
            for server in servers:
                for seed in seeds:
                    if args.libfuzzer:
                        print(f"{server}, libFuzzer seed {seed}, "
                              f"{args.libfuzzer_seconds:g} s ...", file=sys.stderr)
                        r = run_libfuzzer_server(args.libfuzzer, args.dualfuzz, server,
                                                 args.libfuzzer_seconds, seed, log)
                        print(f"  {r.get('error') or r.get('finding_error') or ''}"
                              f"{identity(r['finding']) if r.get('finding') else ''}",
                              file=sys.stderr)
                    for k in conns:
                        print(f"{server}, {k} connection(s), seed {seed}, {args.seconds:g} s ...",
                              file=sys.stderr)
                        r = run_server(args.dualfuzz, server, args.seconds, seed, k, log)
                        if "error" in r:
                            print(f"  error: {r['error']}", file=sys.stderr)
                            continue
                        fs = findings_of(r)
                        print(f"  {r['summary'].get('executions', 0)} executions, "
                              f"{len(fs)} distinct findings", file=sys.stderr)
                        for f in fs:
                            j = eval_judged.judge(judgements, identity(f), server)
                            print(f"    {f.get('count', 1):5d} x {identity(f)[:150]}  "
                                  f"[{j['id'] if j else 'NOT JUDGED'}]", file=sys.stderr)
    runs = latest_runs(args.raw, servers)
    text, unjudged = render(judgements, runs)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 1 if unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
