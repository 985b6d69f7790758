#!/usr/bin/env python3
"""The figures tables of docs/EVALUATION.md, rendered from their raw files in docs/eval/.

    bench/eval_tables.py --check    # exit 1 if a marked table differs from its raw file
    bench/eval_tables.py --write    # rewrite every marked table in place
    bench/eval_tables.py --list     # each table's name and raw files

A generated table sits in docs/EVALUATION.md between

    <!-- table NAME: bench/eval_tables.py, from docs/eval/RAW[, docs/eval/RAW2...] -->
    | the table ... |

    <!-- /table -->

(the empty line keeps the end marker out of the table: GitHub's Markdown takes a
line without a pipe right after a table as one more row). It is rendered here
from the raw file(s) alone, with the columns, rounding and wording the
hand-copied table had. Nothing here holds a figure: every number
comes from the raw files (and the planted bugs' categories from
protocols/http/server/server_core.cpp; the server-edges runs' dates, which
their raw files lack, from RUN_DATES; the WebDAV findings' judgements from
protocols/http/judgements.json, so a change of that data shows here). A table of hand judgements, of scripts
and paths, or of a run whose raw output was not kept is not marked and stays
hand-made. Where a hand table rounded twice (a printout's value rounded again),
the renderer says so beside the rounding it reproduces.

Left hand-made, and why:
  What is measured            scripts and paths, no figures (each row names its copies in docs/eval/)
  False alarms                each of its 12 rows links its raw output, of several formats
                              (`fuzz --json` summaries, proxy tables, a libFuzzer log); the runs
                              whose output was not kept are in the journal
  Nine more servers           the causes are judgements (each row links its
                              everyday-more/*-c2-final.json; the counts match them)
  Found on the way            judgements, each checked by hand (each row links its raw run,
                              README, patch or journal section)

Python 3, standard library only (and eval_blackbox.last_json); run from anywhere (paths are the repository's).
"""
import argparse
import collections
import difflib
import glob
import gzip
import json
import math
import os
import re
import statistics
import sys
from decimal import ROUND_HALF_UP, Decimal

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (last_json: a `fuzz --json` output's summary)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "EVALUATION.md")
EVAL = "docs/eval"
BEGIN = re.compile(r"^<!-- table ([a-z0-9-]+): bench/eval_tables\.py, from (.+) -->$")
END = "<!-- /table -->"
INF = float("inf")


# ---------------------------------------------------------------------------
# Reading raw files

def path(rel):
    return os.path.join(ROOT, EVAL, rel)


def text(rel):
    p = path(rel)
    if p.endswith(".gz"):
        with gzip.open(p, "rt", encoding="utf-8") as f:
            return f.read()
    with open(p, encoding="utf-8") as f:
        return f.read()


def jsonl(rel):
    """One object per line; lines that are not JSON objects (a trailing DONE) are skipped."""
    return [json.loads(line) for line in text(rel).splitlines() if line.startswith("{")]


def json_object(rel):
    """The outermost {...} of a file (some summaries carry a stray prefix)."""
    t = text(rel)
    return json.loads(t[t.index("{"):t.rindex("}") + 1])


# ---------------------------------------------------------------------------
# Formatting

def half_up(x, digits=0):
    """x rounded half away from zero at `digits` decimals, as a string (a hand
    rounding of a printed decimal, not Python's round-half-even on binary floats)."""
    q = Decimal(1).scaleb(-digits)
    return str(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def sig(x, n):
    """x to n significant digits, half up, as a string ("1.4", "0.48")."""
    if x == 0:
        return "0"
    d = Decimal(repr(x))
    exp = d.adjusted() - n + 1
    return f"{d.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP):f}"


def thousands(n):
    return f"{n:,}"


def row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def median_with_misses(times):
    """The median of times with a miss (None) counted as longer than any
    find: INF when more runs missed than found (runs are odd in number in
    every table here; with an even number, the upper middle)."""
    ts = sorted(INF if t is None else t for t in times)
    return ts[len(ts) // 2]


NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten"}


# ---------------------------------------------------------------------------
# The tables. Each function returns the table's lines, header included.

def planted_blackbox(raw):
    """Planted bugs, black box, seeds 1-3 (one run per bug and seed)."""
    rs = jsonl(raw)
    found = [r for r in rs if r["violation"]]
    by_bug = collections.defaultdict(list)
    for r in rs:
        by_bug[r["bug"]].append(r)
    every = sum(all(r["violation"] for r in v) for v in by_bug.values())
    # The slowest five bugs, each by its slowest finding run; the first names its seed.
    slowest = {}
    for r in found:
        if r["bug"] not in slowest or r["seconds"] > slowest[r["bug"]]["seconds"]:
            slowest[r["bug"]] = r
    top = sorted(slowest.values(), key=lambda r: -r["seconds"])[:5]
    parts = [f"`{r['bug']}` {r['seconds']:.1f} s" + (f" (seed {r['seed']})" if i == 0 else "")
             for i, r in enumerate(top)]
    return ["| runs that found their bug | bugs found by every seed | median | slowest |",
            "| ---: | ---: | ---: | --- |",
            row([f"{len(found)} of {len(rs)}", f"{every} of {len(by_bug)}",
                 f"{statistics.median(r['seconds'] for r in found):.2f} s",
                 ", ".join(parts)])]


def planted_three_engines(bb_raw, lf_raw, afl_raw):
    """The bugs the libFuzzer and AFL++ runs cover, black box beside them;
    rows by black box's median, slowest first."""
    def times(rs, key):
        out = collections.defaultdict(dict)
        for r in rs:
            out[key(r)][r["seed"]] = r["seconds"] if r["violation"] else None
        return out
    bb = times(jsonl(bb_raw), lambda r: r["target"].split(":", 1)[1])
    lf = times(jsonl(lf_raw), lambda r: r["bug"])
    afl = times(jsonl(afl_raw), lambda r: r["bug"])
    bugs = [b for b in lf if b in afl and b in bb]

    def cell(t):
        n = sum(x is not None for x in t.values())
        m = median_with_misses(t.values())
        return f"{n}/{len(t)}, " + ("miss" if m == INF else f"{m:.2f}"), m
    rows = []
    for b in bugs:
        cells = [cell(e[b]) for e in (bb, lf, afl)]
        best = min(cells[1][1], cells[2][1])
        ratio = "–" if best == INF or cells[0][1] == INF else f"{cells[0][1] / best:.2f}×"
        rows.append((cells[0][1], row([f"`{b}`"] + [c[0] for c in cells] + [ratio])))
    rows.sort(key=lambda x: -x[0])
    return ["| bug | black-box found, median s | libFuzzer found, median s | "
            "AFL++ found, median s | black-box ÷ best guided |",
            "| --- | ---: | ---: | ---: | ---: |"] + [r for _, r in rows]


def races(raw):
    """Real WebDAV servers under the atomic and the interval consistency."""
    recs = jsonl(raw)

    def version(v):
        # "Server version: Apache/2.4.71 (Debian)" -> "Apache/2.4.71 (Debian)";
        # "lighttpd/1.4.69 (ssl) - a light ..." -> "lighttpd/1.4.69";
        # "golang.org/x/net/webdav 1:0.7.0+dfsg-1 (go1.19.8)" -> without "(go...)".
        v = re.sub(r"^[A-Za-z ]*version: ", "", v)
        v = v.split(" - ")[0]
        return re.sub(r" \((ssl|go[0-9.]+)\)", "", v)

    out = ["| server | atomic: executions / distinct / protocol / not linearizable | "
           "interval: executions / inconclusive / distinct / protocol |",
           "| --- | --- | --- |"]
    servers = list(dict.fromkeys(r["server"] for r in recs))
    for s in servers:
        by = {r["consistency"]: r for r in recs if r["server"] == s}
        a, i = by["atomic"]["summary"], by["interval"]["summary"]

        def n(summary, cls):
            return sum(v.get("class") == cls for v in summary["violations"])
        out.append(row([f"{s} ({version(by['atomic']['version'])})",
                        f"{a['executions']} / {len(a['violations'])} / {n(a, 'protocol')} / "
                        f"{n(a, 'not-linearizable')}",
                        f"{i['executions']} / {i['inconclusive']} / {len(i['violations'])} / "
                        f"{n(i, 'protocol')}"]))
    return out


def speed_nginx(raw):
    """Old and new binary against nginx-static, per seed (the printout's lines)."""
    runs = {}
    pat = re.compile(r"^(old|new) seed (\d+) wall (\S+) cpu (\S+) "
                     r"executions/inconclusive/findings (\d+) \d+ \d+$")
    for line in text(raw).splitlines():
        m = pat.match(line)
        if m:
            runs[(m.group(1), int(m.group(2)))] = (int(m.group(5)), m.group(3), m.group(4))
    out = ["| seed | executions old → new | wall s old → new | CPU s old → new |",
           "| --- | --- | --- | --- |"]
    for seed in sorted({s for _, s in runs}):
        o, n = runs[("old", seed)], runs[("new", seed)]
        # The printout's two-decimal seconds, rounded half up to one (14.25 -> 14.3).
        out.append(row([seed, f"{thousands(o[0])} → {thousands(n[0])}",
                        f"{half_up(float(o[1]), 1)} → {half_up(float(n[1]), 1)}",
                        f"{half_up(float(o[2]), 1)} → {half_up(float(n[2]), 1)}"]))
    return out


def porcupine(raw, online_raw):
    """The ratios of the medians, as porcupine_side_by_side.py printed them;
    the etcd set's size from the online run's printout of the same histories."""
    etcd = re.search(r"^etcd: (\d+) histories", text(online_raw), re.M).group(1)
    out = ["| set | ratio wall | ratio CPU |", "| --- | ---: | ---: |"]
    pat = re.compile(r"^(\S+)\s+(?:\S+\s+){4}([0-9.]+)x\s+([0-9.]+)x$")
    for line in text(raw).splitlines():
        m = pat.match(line)
        if not m:
            continue
        name, wall, cpu = m.groups()
        label = f"etcd ({etcd})" if name == "etcd" else name
        # c50-ok's wall ratio is issue 46's target (>= 1.5x): in bold.
        wall = f"**{wall}×**" if name == "c50-ok" else f"{wall}×"
        out.append(row([label, wall, f"{cpu}×"]))
    return out


def jobs_throughput(raw):
    """bench/eval_jobs.py's throughput table: medians over the clean rounds."""
    rs = [r for r in jsonl(raw) if r["kind"] == "clean"]
    out = ["| workers | executions (median) | exec/s (wall) | exec per CPU second | "
           "CPU s per wall s |", "| --- | --- | --- | --- | --- |"]
    for j in sorted({r["jobs"] for r in rs}):
        rows = [r for r in rs if r["jobs"] == j]
        med = statistics.median
        out.append(row([j, f"{med([r['executions'] for r in rows]):,.0f}",
                        f"{med([r['executions'] / r['wall'] for r in rows]):,.0f}",
                        f"{med([r['executions'] / r['cpu'] for r in rows if r['cpu'] > 0]):,.0f}",
                        f"{med([r['cpu'] / r['wall'] for r in rows]):.2f}"]))
    return out


def jobs_bugs(raw):
    """bench/eval_jobs.py's time-to-bug table (90th percentile: nearest rank)."""
    rs = [r for r in jsonl(raw) if r["kind"] == "bug"]
    out = ["| workers | found | median | mean | 90th percentile | max |",
           "| --- | --- | --- | --- | --- | --- |"]
    for j in sorted({r["jobs"] for r in rs}):
        rows = [r for r in rs if r["jobs"] == j]
        t = sorted(r["wall"] for r in rows if r["found"])
        p90 = t[-(-9 * len(t) // 10) - 1]
        out.append(row([j, f"{len(t)}/{len(rows)}", f"{statistics.median(t):.2f}",
                        f"{sum(t) / len(t):.2f}", f"{p90:.2f}", f"{max(t):.2f}"]))
    return out


def bug_categories():
    src = os.path.join(ROOT, "protocols", "http", "server", "server_core.cpp")
    with open(src, encoding="utf-8") as f:
        return dict(re.findall(r'\{"([a-z0-9-]+)", "([a-z]+)",', f.read()))


def identity(before_raw, after_raw):
    """bench/eval_identity.py's totals, before and after, per run file."""
    cats = bug_categories()

    def figures(raw):
        runs = collections.defaultdict(list)
        for r in jsonl(raw):
            runs[r["bug"]].append(r)
        f = collections.Counter()
        owners = collections.defaultdict(set)
        seeds = set()
        for bug, rs in runs.items():
            seeds.add(len(rs))
            sets = [set(r["identities"]) for r in rs]
            hit = [s for s in sets if s]
            every = set.intersection(*hit) if hit else set()
            firsts = {r["first"] for r in rs if r["first"]}
            f["every_seed"] += len(hit) == len(rs)
            f["core"] += len(every) >= 1
            f["same_first"] += len(firsts) == 1 and len(hit) == len(rs)
            if cats.get(bug) != "connection":
                union = set.union(*sets)
                f["kept"] += 1
                f["ids"] += len(union)
                f["some"] += len(union - every)
                for i in union:
                    owners[i].add(bug)
        f["shared"] = sum(len(b) > 1 for b in owners.values())
        f["bugs"] = len(runs)
        (f["seeds"],) = seeds
        return f
    b, a = figures(before_raw), figures(after_raw)
    commit = [re.search(r"-([0-9a-f]{7})\.", x).group(1) for x in (before_raw, after_raw)]
    assert b["seeds"] == a["seeds"] and b["kept"] == a["kept"]
    n = a["seeds"]
    lines = [("bugs found by all %d seeds" % n, "every_seed", True),
             ("bugs with an identity every seed found", "core", True),
             ("bugs whose first finding had one identity in all %d seeds" % n, "same_first", True),
             ("identities over the %d bugs not of the connection category" % a["kept"], "ids",
              False),
             ("of those, found by some seeds only", "some", False),
             ("of those, shared by two bugs or more", "shared", False)]
    out = [f"| | before ({commit[0]}) | after ({commit[1]}) |", "| --- | --- | --- |"]
    for label, key, of_bugs in lines:
        cell = (lambda f: f"{f[key]}/{f['bugs']}") if of_bugs else (lambda f: f"{f[key]}")
        out.append(row([label, cell(b), cell(a)]))
    return out


PROXY_LABELS = {  # the subject's name as the table gives it (versions from the summaries)
    "reference": lambda v: v,
    "tinyproxy": lambda v: v,
    "squid": lambda v: "Squid " + v.split("Version ")[1],
    "apache2": lambda v: "Apache " + ".".join(re.search(r"Apache/(\d+)\.(\d+)", v).groups())
    + " mod_proxy",
    "nginx-via": lambda v: "nginx " + v.split("nginx/")[1] + " + Via",
    "haproxy-via": lambda v: "HAProxy " + re.search(r"version ([0-9.]+)", v).group(1) + " + Via",
}


def proxy_speed_now(*raws):
    """Executions per wall second before and after, 1 and 4 clients, ranges
    over the seeds, and the tester's CPU seconds after, from runs that
    measured the two binaries side by side (each raw a summary of bench/eval_proxy_speed.py:
    one for the reference proxy, one for the real ones); every range to one
    decimal, the reference proxy's after columns in bold."""
    rows, subjects = [], []
    for raw in raws:
        d = json_object(raw)
        rows += d["rows"]
        subjects += [s for s in d["args"]["subjects"] if s not in subjects]
    out = ["| proxy | 1 client, before | after | 4 clients, before | after | "
           "tester CPU s in 20 s, after |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for subject in subjects:
        mine = [r for r in rows if r["subject"] == subject]
        cells = []
        for clients, which in [(1, "before"), (1, "after"), (4, "before"), (4, "after")]:
            vals = [float(f"{r[which]['executions'] / r[which]['wall']:.1f}")
                    for r in mine if r["clients"] == clients]
            c = f"{min(vals):.1f}–{max(vals):.1f}"
            cells.append(f"**{c}**" if subject == "reference" and which == "after" else c)
        cpu = [r["after"]["cpu"] for r in mine]
        cells.append(f"{min(cpu):.1f}–{max(cpu):.1f}")
        out.append(row([PROXY_LABELS[subject](mine[0]["version"])] + cells))
    return out


def mutant_runs(raw):
    """{mutant: {engine: [kill seconds or None, by seed]}}, mutants in file order."""
    d = collections.OrderedDict()
    for r in jsonl(raw):
        d.setdefault(r["mutant"], {}).setdefault(r["engine"], {})[r["seed"]] = (
            r["kill_seconds"] if r["killed"] else None)
    return {m: {e: [s[k] for k in sorted(s)] for e, s in es.items()} for m, es in d.items()}


ENGINES = ("blackbox", "libfuzzer", "afl")


def mutant_ratio(meds, kills, budget, shown, no_median):
    """black-box's median over the best guided engine's. The ratio is rounded
    twice, as the hand tables were: to three significant digits, then to two
    (5.7486 -> 5.75 -> 5.8). A black-box median that is a miss gives a lower
    bound, the budget over the guided median as shown (60 / 8.3 -> > 7.2)."""
    best = min(meds["libfuzzer"], meds["afl"])
    if best == INF:
        return no_median
    if kills["blackbox"] == 0:
        return "guided only"
    if meds["blackbox"] == INF:
        return f"> {sig(budget / float(shown[best]), 2)}×"
    r = f"{sig(float(sig(meds['blackbox'] / best, 3)), 2)}×"
    return r + (" (black-box under 1 s)" if meds["blackbox"] < 1 else "")


def mutants_seven(raw):
    """Six mutants, seven seeds: every seed's seconds per engine, then the median."""
    runs = mutant_runs(raw)
    budget = max(r["seconds"] for r in jsonl(raw))
    out = ["| mutant | black-box s1…s7 (median) | libFuzzer (median) | AFL++ (median) | "
           "black-box ÷ best guided |", "| --- | --- | --- | --- | ---: |"]
    for m, es in runs.items():
        meds = {e: median_with_misses(es[e]) for e in ENGINES}
        kills = {e: sum(t is not None for t in es[e]) for e in ENGINES}
        shown = {v: f"{v:.1f}" for v in meds.values() if v != INF}
        compact = all(v == INF for v in meds.values())
        cells = []
        for e in ENGINES:
            ts = es[e]
            med = "—" if meds[e] == INF else f"{meds[e]:.1f}"
            if compact:
                # No engine has a median: the kills alone, with their seeds.
                hits = [(i + 1, t) for i, t in enumerate(ts) if t is not None]
                if not hits:
                    c = f"— in all {NUMBER_WORDS[len(ts)]}"
                else:
                    c = (" ".join(f"{t:.1f}" for _, t in hits)
                         + (" in seed " if len(hits) == 1 else " in seeds ")
                         + ", ".join(str(s) for s, _ in hits))
            else:
                c = " ".join("—" if t is None else f"{t:.1f}" for t in ts)
            cells.append(f"{c} ({med})")
        out.append(row([m.replace("-", " ", 1)] + cells
                       + [mutant_ratio(meds, kills, budget, shown, "guided only")]))
    return out


def mutants_five(raw):
    """The other six mutants, five seeds: kills and median per engine."""
    runs = mutant_runs(raw)
    budget = max(r["seconds"] for r in jsonl(raw))
    out = ["| mutant | black-box kills, median | libFuzzer kills, median | "
           "AFL++ kills, median | black-box ÷ best guided |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for m, es in runs.items():
        meds = {e: median_with_misses(es[e]) for e in ENGINES}
        kills = {e: sum(t is not None for t in es[e]) for e in ENGINES}
        shown = {v: f"{v:.1f}" for v in meds.values() if v != INF}
        cells = [f"{kills[e]}/{len(es[e])}, "
                 + ("miss" if meds[e] == INF else f"{meds[e]:.1f} s") for e in ENGINES]
        out.append(row([m.replace("-", " ", 1)] + cells
                       + [mutant_ratio(meds, kills, budget, shown, "no median")]))
    return out


# The raw files of the server-edges runs carry no date: the day of each run
# (by the commit its file is named after), as its journal section gives it.
RUN_DATES = {"c0cdc5b": "2026-11-27", "bcaca99": "2026-11-27", "490b935": "2026-11-27"}


def server_edges(*raws):
    """Server edges, three engines side by side (bench/eval_servercov.py
    --parallel): one row per raw file, each a server; the guided engines'
    edges with their ratio to black-box's, the union of the three edge sets,
    and black-box's share of it."""
    out = ["| server | run | guards | black-box | libFuzzer | AFL++ | union | "
           "black-box's share of the union | raw |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for raw in raws:
        by = {r["engine"]: r for r in jsonl(raw)}
        assert sorted(by) == ["afl", "blackbox", "libfuzzer"], raw
        # The prose above the table: 600 s per engine, seed 1, side by side.
        assert all(r["seconds"] == 600 and r["seed"] == 1 and r["parallel"]
                   for r in by.values()), raw
        (guards,) = {r["guards"] for r in by.values()}
        name, version = re.search(r"(lighttpd|nginx|Apache)/([0-9.]+)",
                                  by["blackbox"]["version"]).groups()
        commit = re.search(r"-([0-9a-f]{7})\.jsonl$", raw).group(1)
        union = set().union(*(r["edge_set"] for r in by.values()))
        bb = by["blackbox"]["edges"]

        def guided(e):
            return f"{thousands(by[e]['edges'])} ({by[e]['edges'] / bb:.2f}×)"
        out.append(row([f"{name} {version}", f"{commit}, {RUN_DATES[commit]}",
                        thousands(guards), thousands(bb), guided("libfuzzer"), guided("afl"),
                        thousands(len(union)), f"{100 * bb / len(union):.1f} %",
                        f"[eval/{raw}](eval/{raw})"]))  # relative to docs/
    return out


def mutants_baseline(*raws):
    """bench/eval_mutants_baseline.py: each run's first finding reported, judged
    on both builds (own, known, unclear), or none in the time. Files of one
    commit make one row, a later file's runs (mutant, seed) replacing an
    earlier one's (a rerun of some mutants with the same record); a file
    named "-reference" is a row of its own (the unpatched build running as
    --baseline-target beside the record), and so is another server's
    ("mutants-baseline-nginx-COMMIT.jsonl": lighttpd's when none is named)."""
    out = ["| run | baseline identities | runs | own | known | unclear | none (server never answered) "
           "| own of reported | runs with an unconfirmed finding |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    by_commit = collections.OrderedDict()
    for raw in raws:
        m = re.search(r"mutants-baseline-(?:(nginx|apache2)-)?([0-9a-f]{7})(-[a-z0-9-]+)?\.jsonl$",
                      raw)
        server, commit, rest = m.group(1), m.group(2), m.group(3)
        reference = rest == "-reference"
        label = (server + " " if server else "") + commit + (" + its build" if reference else "")
        runs, names = by_commit.setdefault(label, ({}, []))
        if rest and not reference:
            names.append(rest[1:])
        for r in jsonl(raw):
            runs[(r["mutant"], r["seed"])] = r
    for commit, (runs, names) in by_commit.items():
        rs = list(runs.values())
        v = collections.Counter(r["verdict"] for r in rs)
        dead = sum(r["verdict"] == "none" and not r.get("executions") for r in rs)
        (n,) = {r["baseline_identities"] for r in rs}
        label = commit + "".join(f" ({x})" for x in names)
        reported = v["own"] + v["known"] + v["unclear"]
        # (Unconfirmed findings, a violation not shown again, exist from a205c78 on.)
        unconfirmed = (str(sum(bool(r["unconfirmed"]) for r in rs))
                       if all("unconfirmed" in r for r in rs) else "-")
        out.append(row([label, str(n), str(len(rs)), str(v["own"]), str(v["known"]),
                        str(v["unclear"]), f"{v['none']} ({dead})",
                        f"{v['own']}/{reported} ({round(100 * v['own'] / reported)} %)"
                        if reported else "-", unconfirmed]))
    return out


WEBDAV_CAUSES = ("crash: GET if", "crash: PROPPATCH", "crash: GET")


def webdav_deaths(*raws):
    """npm webdav-server's three deaths, 60-s supervised runs per binary and seed:
    in how many seeds each cause (reproduced, <= 3 messages), and all three, were
    findings; the latest of the three (median over the seeds that met all three)."""
    runs = collections.defaultdict(dict)
    for raw in raws:
        m = re.search(r"/([0-9a-f]{7})-s(\d+)\.json\.gz$", raw)
        runs[m.group(1)][int(m.group(2))] = eval_blackbox.last_json(text(raw))
    out = ["| binary | seeds | " + " | ".join(f"`{c}`" for c in WEBDAV_CAUSES)
           + " | all three | latest of the three, median | executions, median |",
           "| --- | ---: | " + "---: | " * len(WEBDAV_CAUSES) + "---: | ---: | ---: |"]
    for binary, seeds in runs.items():
        found = {c: 0 for c in WEBDAV_CAUSES}
        latest = []
        for s in seeds.values():
            first = {f["signature"]: f["first_seconds"] for f in s["findings"]
                     if f.get("kind") == "crash" and f.get("reproduced")
                     and f.get("min_messages", 99) <= 3}
            for c in WEBDAV_CAUSES:
                found[c] += c in first
            if all(c in first for c in WEBDAV_CAUSES):
                latest.append(max(first[c] for c in WEBDAV_CAUSES))
        n = len(seeds)
        med = f"{half_up(statistics.median(latest), 1)} s" if latest else "–"
        execs = statistics.median(s["executions"] for s in seeds.values())
        out.append(row([binary, str(n)] + [f"{found[c]}/{n}" for c in WEBDAV_CAUSES]
                       + [f"{len(latest)}/{n}", med, thousands(int(execs))]))
    return out


ANSWER_WAIT_SERVERS = ("nginx-static", "lighttpd-static", "apache2-static", "lighttpd", "apache2")


def answer_wait(*raws):
    """docs/eval/answer-wait-1d739ee/speed.sh: the old and the new binary in turn
    against each server, 30 s, seed 1: executions per wall second, and the wall
    and CPU seconds of the run (the .time file beside each, /usr/bin/time)."""
    runs = {}
    for raw in raws:
        m = re.search(r"/([a-z0-9-]+)-([0-9a-f]{7})-s1\.json\.gz$", raw)
        wall, user, sys_ = map(float, text(raw[:-len(".json.gz")] + ".time").split()[-3:])
        runs[(m.group(1), m.group(2))] = (eval_blackbox.last_json(text(raw))["executions"], wall, user + sys_)
    old, new = "acad3b2", "1d739ee"
    out = [f"| server | {old}: executions/s (wall s, CPU s) | {new}: executions/s (wall s, CPU s) | ratio |",
           "| --- | ---: | ---: | ---: |"]
    for srv in ANSWER_WAIT_SERVERS:
        cells = []
        rates = []
        for b in (old, new):
            e, w, c = runs[(srv, b)]
            rates.append(e / w)
            cells.append(f"{half_up(e / w)} ({half_up(w, 1)}, {half_up(c, 1)})")
        out.append(row([srv] + cells + [f"{sig(rates[1] / rates[0], 2)}×"]))
    return out


def engines_two_cores(replay_raw, fork10_raw, afl_raw):
    """libFuzzer (one process and -fork=2, bench/eval_replay.py) and AFL++ -M/-S
    (bench/afl_parallel_bugs.sh) on every planted bug: how many found, the median
    seconds, and the crash files that abort again when replayed."""
    def med(xs):
        return f"median {half_up(statistics.median(xs), 1)} s"
    rs = jsonl(replay_raw)
    one = [r for r in rs if r["found"]]
    fork = [r for r in rs if r.get("fork_found")]
    f10 = [r for r in jsonl(fork10_raw) if r.get("fork_found")]
    n10 = len(jsonl(fork10_raw))
    afl = [line.split() for line in text(afl_raw).splitlines() if line.strip()]
    found = [a for a in afl if a[1] == "found"]
    name = lambda raw: f"[eval/{raw}](eval/{raw})"
    reruns = lambda xs: (f"{sum(r['first_rerun'] for r in xs)}/{len(xs)} first re-run, "
                         f"{sum(r['replayed'] for r in xs)}/{sum(r['reruns'] for r in xs)} all")
    commit10 = re.search(r"-([0-9a-f]{7})\.", fork10_raw).group(1)
    return [
        "| run | found | time | crash files that abort again | raw |",
        "| --- | --- | --- | --- | --- |",
        row(["libFuzzer, one process, ASan + UBSan, 30 s per bug (`bench/eval_replay.py --reruns 5`)",
             f"{len(one)}/{len(rs)}", med([r["seconds"] for r in one]), reruns(one),
             name(replay_raw) + ", [table](eval/" + replay_raw[:-len(".jsonl")] + ".txt)"]),
        row(["libFuzzer `-fork=2`, ASan + UBSan, 30 s per bug", f"{len(fork)}/{len(rs)}",
             med([r["fork_seconds"] for r in fork]), "–", "same"]),
        row([f"libFuzzer `-fork=2`, no sanitizer, 600 s per bug, {commit10}", f"{len(f10)}/{n10}",
             med([r["fork_seconds"] for r in f10]) + ", all ≤ "
             + f"{math.ceil(max(r['fork_seconds'] for r in f10))} s", reruns(f10), name(fork10_raw)]),
        row(["AFL++ `-M`/`-S`, 60 s per bug", f"{len(found)}/{len(afl)}",
             med([float(a[2]) for a in found]),
             f"{sum(a[3] == 'replay' and a[4] == '1' for a in found)}/{len(found)}", name(afl_raw)]),
    ]



def realservers(raw):
    """bench/eval_realservers.py: the WebDAV servers' runs, every finding judged by the
    plug-in's data (protocols/http/judgements.json, read by eval_judged as the CLI's
    --known judged:SERVER reads it): per run, its distinct findings, the judgements
    that cover them and how many none covers."""
    import eval_judged  # (the judging is the data's; this only counts)
    import eval_realservers
    judgements = eval_judged.load(eval_judged.DEFAULT)
    out = ["| server | connections, seed | executions (per wall s) | distinct findings "
           "| judged: judgement (findings) | not judged |",
           "| --- | --- | ---: | ---: | --- | ---: |"]
    for r in jsonl(raw):
        s = r["summary"]
        ids = eval_judged.judged(judgements, eval_realservers.findings_of(r), r["server"])
        js = collections.Counter(j["id"] for j in ids.values() if j)
        none = sum(1 for j in ids.values() if not j)
        cell = ", ".join(f"`{k}` ({n})" for k, n in sorted(js.items(), key=lambda kv: (-kv[1], kv[0])))
        version = re.search(r"(Apache|nginx|lighttpd)/[0-9.]+", r["version"])
        out.append(row([f"{r['server']} ({version.group(0) if version else r['version']})",
                        f"{r['connections']}, {r['seed']}",
                        f"{thousands(s['executions'])} ({half_up(s['executions'] / s['seconds'])})",
                        str(len(ids)), cell, f"**{none}**" if none else "0"]))
    return out


def unison(raw):
    """bench/eval_unison.py: the planted bugs of the reference synchronizer (seeds,
    the slowest), the real Unison with and without -fastcheck (--keep-going), and the
    cost of one sync (one unison process)."""
    rs = jsonl(raw)
    bugs = collections.defaultdict(list)
    real = collections.defaultdict(list)
    cost = None
    for r in rs:
        t = r["target"]
        if t == "cost":
            cost = r
        elif t in ("inprocess:unison", "inprocess:unison-fastcheck"):
            real[t.split(":")[1]].append(r)
        else:
            bugs[t.split(":")[1]].append(r)
    found = [r for b in bugs.values() for r in b if r.get("violation")]
    slow = max(found, key=lambda r: r["seconds"])
    runs = sum(len(b) for b in bugs.values())
    seeds = sorted({r["seed"] for b in bugs.values() for r in b})
    out = ["| target | runs (seeds, seconds) | executions | distinct disagreements |",
           "| --- | --- | ---: | --- |",
           row([f"reference synchronizer, {len(bugs)} planted bugs",
                f"{runs} ({seeds[0]}–{seeds[-1]} each, ≤ {half_up(max(r['budget'] for b in bugs.values() for r in b))} s)",
                thousands(sum(r["executions"] for r in found)),
                f"{len(found)}/{runs} runs found their bug; the slowest, "
                f"`{slow['target'].split(':')[1]}`, {half_up(slow['seconds'], 2)} s"])]
    for t in ("unison", "unison-fastcheck"):
        v = collections.Counter()
        first = collections.defaultdict(list)
        for r in real[t]:
            for f in r.get("violations", []):
                v[f["signature"]] += 1
                first[f["signature"]].append(half_up(f["first_seconds"]))
        cell = "; ".join(f"`{k}` (found by {n} of {len(real[t])} runs, at {', '.join(first[k])} s)"
                         for k, n in v.items()) or "**none**"
        out.append(row([f"Unison, `inprocess:{t}`",
                        f"{len(real[t])} ({', '.join(str(r['seed']) for r in real[t])}; "
                        f"{half_up(real[t][0]['budget'])} s each)",
                        thousands(sum(r["executions"] for r in real[t])), cell]))
    if cost:
        out.append(row([f"one sync: `unison A B -batch`, {cost['runs']} runs", "–", "–",
                        f"median {half_up(cost['median_ms'])} ms (min {half_up(cost['min_ms'])}, "
                        f"max {half_up(cost['max_ms'])})"]))
    return out


# name -> (raw files under docs/eval/, renderer)
TABLES = collections.OrderedDict([
    ("planted-blackbox", (["planted-anyserver-928e195.jsonl"], planted_blackbox)),
    ("planted-three-engines", (["planted-blackbox-seeds1-5-bd79a93.jsonl",
                                "planted-libfuzzer-seeds1-5-bd79a93.jsonl",
                                "planted-afl-seeds1-5-bd79a93.jsonl"], planted_three_engines)),
    ("races", (["races-9440f64.jsonl.gz"], races)),
    ("speed-nginx", (["speed-2942fd9/nginx-static.txt"], speed_nginx)),
    ("porcupine", (["porcupine-231e6a6-quiet.txt", "jepsen-online-57c67f4.txt"], porcupine)),
    ("jobs-throughput", (["jobs-fb7fec6.jsonl"], jobs_throughput)),
    ("jobs-bugs", (["jobs-fb7fec6.jsonl"], jobs_bugs)),
    ("identity", (["identity-0d53fd8.jsonl", "identity-44e199d.jsonl"], identity)),
    ("proxy-speed-now", (["proxy-speed-d4e3220/summary.json",
                          "proxy-speed-d4e3220-real/summary.json"], proxy_speed_now)),
    ("mutants-seven-seeds", (["mutants-blind-seeds1-7-bcaca99.jsonl"], mutants_seven)),
    ("mutants-five-seeds", (["mutants-more-seeds1-5-bd79a93.jsonl"], mutants_five)),
    ("mutants-baseline", (["mutants-baseline-4d09f36-reference.jsonl",
                           "mutants-baseline-4341087-reference.jsonl",
                           "mutants-baseline-d564df2-reference.jsonl",
                           "mutants-baseline-nginx-4d09f36-reference.jsonl",
                           "mutants-baseline-nginx-4341087-reference.jsonl",
                           "mutants-baseline-nginx-d564df2-reference.jsonl",
                           "mutants-baseline-apache2-4d09f36-reference.jsonl",
                           "mutants-baseline-apache2-4341087-reference.jsonl",
                           "mutants-baseline-apache2-d564df2-reference.jsonl"],
                          mutants_baseline)),
    ("realservers", (["realservers-9179d35.jsonl.gz"], realservers)),
    ("webdav-deaths", (["webdav-deaths-1d739ee/???????-s?.json.gz"], webdav_deaths)),
    ("answer-wait", (["answer-wait-1d739ee/*-s1.json.gz"], answer_wait)),
    ("unison", (["unison-9f51fcc.jsonl"], unison)),
    ("engines-two-cores", (["replay-fb7fec6.jsonl", "fork10-7ad1323.jsonl",
                            "afl-parallel-bugs-2cf3a52.txt"], engines_two_cores)),
    ("server-edges", (["servercov-lighttpd-blind-c0cdc5b.jsonl", "servercov-nginx-blind-bcaca99.jsonl",
                       "servercov-apache2-blind-490b935.jsonl"], server_edges)),
])


def sources(name):
    return ", ".join(f"{EVAL}/{r}" for r in TABLES[name][0])


def expand(raws):
    """The raw files, a pattern (`*`, `?`) standing for the files it matches, in order."""
    out = []
    for r in raws:
        if "*" in r or "?" in r:
            out += sorted(os.path.relpath(x, os.path.join(ROOT, EVAL))
                          for x in glob.glob(os.path.join(ROOT, EVAL, r)))
        else:
            out.append(r)
    return out


def render(name):
    """The region's lines: the table, then the empty line before the end marker."""
    raws, fn = TABLES[name]
    return fn(*expand(raws)) + [""]


# ---------------------------------------------------------------------------
# The document

def regions(lines):
    """[(name, from-text, begin index, end index)] of the marked regions."""
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j] != END and not BEGIN.match(lines[j]):
                j += 1
            if j == len(lines) or lines[j] != END:
                raise SystemExit(f"{DOC}:{i + 1}: table {m.group(1)} has no {END}")
            out.append((m.group(1), m.group(2), i, j))
            i = j
        i += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="exit 1 if a marked table differs")
    g.add_argument("--write", action="store_true", help="rewrite the marked tables in place")
    g.add_argument("--list", action="store_true", help="each table and its raw files")
    ap.add_argument("--doc", default=DOC, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.list:
        for name in TABLES:
            print(f"{name}: {sources(name)}")
        return 0
    with open(a.doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems, rewritten, new = [], [], list(lines)  # problems: (line, text)
    seen = collections.Counter()
    # From the last region back, so that earlier indices stay valid on --write.
    for name, frm, i, j in reversed(regions(lines)):
        seen[name] += 1
        if name not in TABLES:
            problems.append((i, f"{name}: marked in the document, unknown to this script"))
            continue
        if frm != sources(name):
            problems.append((i, f"{name}: the marker names {frm}, the script reads "
                                f"{sources(name)}"))
        try:
            want = render(name)
        except (OSError, KeyError, ValueError, AttributeError, IndexError, AssertionError) as e:
            problems.append((i, f"{name}: could not render from {sources(name)}: {e!r}"))
            continue
        have = lines[i + 1:j]
        if have != want:
            diff = difflib.unified_diff(have, want, "EVALUATION.md", "from raw", lineterm="", n=0)
            problems.append((i, f"{name} (line {i + 2}) differs from {sources(name)}:\n  "
                                + "\n  ".join(list(diff)[2:])))
            rewritten.append((i, name))
            new[i + 1:j] = want
    for name in TABLES:
        if seen[name] != 1:
            problems.append((len(lines), f"{name}: marked {seen[name]} times in the document "
                                         "(once expected)"))
    problems = [p for _, p in sorted(problems)]
    if a.write:
        if new != lines:
            with open(a.doc, "w", encoding="utf-8") as f:
                f.write("\n".join(new))
        for _, name in sorted(rewritten):
            print(f"rendered {name} again from {sources(name)}")
        left = [p for p in problems if " differs from " not in p]
        for p in left:
            print(p, file=sys.stderr)
        return 1 if left else 0
    for p in problems:
        print(p)
    if not problems:
        print(f"{len(TABLES)} tables of {os.path.relpath(a.doc, ROOT)} match their raw files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
