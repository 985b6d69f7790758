#!/usr/bin/env python3
"""The evaluation report: runs the four engines and renders docs/evaluation-journal.md.

Engines (time to the first violation per planted bug of the reference
server, seeds 1..N, one budget per run):
  libfuzzer  (a) libFuzzer + custom mutator, coverage-guided   bench/eval_libfuzzer.py
  afl        (b) AFL++ 4.04c + custom mutator library           bench/eval_afl.py
  blackbox   (c) `dualfuzz fuzz`, no coverage                   bench/eval_blackbox.py
  crashonly  (d) the same generation engine, oracle off         bench/eval_crashonly.py
Each engine script writes its own section of docs/evaluation-journal.md and keeps its
raw results in bench/results/<engine>.jsonl; this script then reads all four
raw logs and writes the section "Time to first violation: four engines" (one
table, bug x engine) with the plots docs/eval/*.svg|png, and, with --bench,
the section "Throughput and Jepsen benchmarks" (build/bench/throughput_bench,
build/bench/jepsen_bench).

  scripts/evaluate.sh                         # builds what is missing, then this, everything
  bench/eval_report.py                        # all engines, 32 bugs x 5 seeds x 60 s (d: 15 s)
  bench/eval_report.py --bugs lost-update,etag-reuse,head-with-body --seeds 2 --seconds 20
  bench/eval_report.py --engines libfuzzer --reuse   # (re)run libFuzzer only; re-render all
  bench/eval_report.py --render-only          # every section again from bench/results/
  bench/eval_report.py --bench --engines none # only the benchmark section

The combined table always shows every engine's latest runs for the chosen
budgets (--seconds; --crashonly-seconds for (d)), whatever --engines ran.
matplotlib (Debian python3-matplotlib) draws the plots; when it is missing
and we are root, it is installed with apt-get, else the plots are skipped.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402
import eval_crashonly  # noqa: E402

ROOT = eval_blackbox.ROOT
SECTION = "## Time to first violation: four engines"
BENCH_SECTION = "## Throughput and Jepsen benchmarks"
RESULTS = os.path.join(ROOT, "bench/results")
ENGINES = ["libfuzzer", "afl", "blackbox", "crashonly"]
LABEL = {"libfuzzer": "(a) libFuzzer + custom mutator",
         "afl": "(b) AFL++ 4.04c + custom mutator",
         "blackbox": "(c) `dualfuzz fuzz` (no coverage)",
         "crashonly": "(d) crash-only (oracle off)"}
SHORT = {"libfuzzer": "libFuzzer", "afl": "AFL++", "blackbox": "dualfuzz fuzz",
         "crashonly": "crash-only"}
COLOR = {"libfuzzer": "#1f77b4", "afl": "#d62728", "blackbox": "#2ca02c",
         "crashonly": "#7f7f7f"}


# ---------------------------------------------------------------------------
# Raw results, normalized: {engine, bug, seed, budget, found, seconds,
# executions, messages, kind}


def budget_of(r):
    if "budget" in r:
        return float(r["budget"])
    m = re.search(r"--seconds (\S+)", r.get("cmd", ""))
    return float(m.group(1)) if m else None


def load_engine(engine, path):
    out = []
    for r in eval_crashonly.load(path):
        if "error" in r or r.get("tmin"):
            continue
        if engine == "blackbox":
            t = r.get("target", "")
            if not t.startswith("inprocess:") or r.get("connections") != 4:
                continue
            bug, found = t[len("inprocess:"):], bool(r.get("violation"))
        elif engine == "libfuzzer":
            bug, found = r.get("bug"), bool(r.get("violation"))
        elif engine == "afl":
            bug, found = r.get("bug"), bool(r.get("violation"))
        else:
            bug, found = r.get("bug"), bool(r.get("found"))
        if not bug:
            continue
        out.append({"engine": engine, "bug": bug, "seed": r.get("seed"),
                    "budget": budget_of(r), "found": found,
                    "seconds": r.get("seconds") if found else None,
                    "executions": r.get("executions") if found else None,
                    "messages": r.get("messages") if found else None,
                    "kind": r.get("kind") if found else None,
                    "commit": r.get("commit")})
    return out


def latest(runs, budget, seeds):
    best = {}
    for r in runs:
        if r["budget"] is not None and abs(r["budget"] - budget) < 1e-9 \
                and r["seed"] is not None and 1 <= r["seed"] <= seeds:
            best[(r["bug"], r["seed"])] = r
    return best


def med(vals, n):
    return eval_crashonly.eval_blackbox_median(vals, n)


# ---------------------------------------------------------------------------
# Running the engines


def run_engines(args):
    import eval_afl
    import eval_libfuzzer
    common = ["--seeds", str(args.seeds)]
    if args.bugs:
        common += ["--bugs", args.bugs]
    if args.reuse:
        common += ["--reuse"]
    # The fast ones first; crash-only after black-box (it checks the scripts
    # at which `dualfuzz fuzz` found each bug).
    for e in sorted(args.engines, key=["blackbox", "crashonly", "afl", "libfuzzer"].index):
        print(f"== engine {e}", file=sys.stderr)
        if e == "blackbox":
            argv = common + ["--seconds", f"{args.seconds:g}"]
            if args.render_only:
                argv = ["--seconds", f"{args.seconds:g}", "--seeds", str(args.seeds),
                        "--render-only"]
            eval_blackbox.main(argv)
        elif e == "crashonly":
            argv = common + ["--seconds", f"{args.crashonly_seconds:g}"]
            if args.render_only:
                argv = ["--seconds", f"{args.crashonly_seconds:g}", "--seeds",
                        str(args.seeds), "--render-only"]
            eval_crashonly.main(argv)
        elif e == "afl":
            argv = common + ["--seconds", f"{args.seconds:g}"]
            if args.afl_correct_seconds:
                argv += ["--correct-seconds", f"{args.afl_correct_seconds:g}"]
            if args.tmin:
                argv += ["--tmin", args.tmin]
            if args.render_only:
                argv = ["--seconds", f"{args.seconds:g}", "--seeds", str(args.seeds),
                        "--render-only"]
            eval_afl.main(argv)
        elif e == "libfuzzer":
            argv = common + ["--seconds", f"{args.seconds:g}"]
            if args.lf_correct_seconds:
                argv += ["--correct-seconds", f"{args.lf_correct_seconds:g}"]
            if args.render_only:
                argv = ["--seconds", f"{args.seconds:g}", "--seeds", str(args.seeds),
                        "--render-only"]
            eval_libfuzzer.main(argv)


# ---------------------------------------------------------------------------
# Benchmarks


def run_benchmarks(args, m):
    build = os.path.join(ROOT, "build/bench")
    res = {"date": m["date"], "commit": m["commit"], "runs": []}
    for name, argv in (("throughput_bench", ["--seconds", f"{args.bench_seconds:g}"]),
                       ("jepsen_bench", ["--quiet"]),
                       ("jepsen_bench", ["--quiet", "--online"])):
        exe = os.path.join(build, name)
        if not os.access(exe, os.X_OK):
            print(f"eval_report: no {exe}; skipped", file=sys.stderr)
            continue
        cmd = ["nice", "-n", str(args.nice), exe] + argv
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        res["runs"].append({"cmd": "build/bench/" + name + " " + " ".join(argv),
                            "exit": p.returncode, "stdout": p.stdout,
                            "stderr": p.stderr[-2000:]})
        print(p.stdout, file=sys.stderr)
    with open(os.path.join(RESULTS, "benchmarks.json"), "w") as f:
        json.dump(res, f, indent=1)
    return res


def render_benchmarks(m, res):
    out = [BENCH_SECTION, ""]
    out.append(f"Generated by `bench/eval_report.py --bench` on {res['date']}; built "
               f"RelWithDebInfo (`build/`, the default C++ compiler) from the sources at commit "
               f"`{res['commit']}`. Machine: {m['nproc']} vCPU (`nproc` = {m['nproc']}), "
               f"{m['cpu']}; {m['mem']} RAM; Linux {m['kernel']} (Firecracker VM), shared "
               "with other builds and runs (the benchmarks ran under `nice`). "
               "`throughput_bench` counts executions per CPU second of its own thread, "
               "which load barely changes; its wall-clock rates and the Jepsen times are "
               "upper bounds.")
    out.append("")
    thr = next((r for r in res["runs"] if r["cmd"].startswith("build/bench/throughput")), None)
    if thr:
        on = re.search(r"exec/s oracle on:\s+(\d+)", thr["stdout"])
        off = re.search(r"exec/s oracle off:\s+(\d+)", thr["stdout"])
        share = re.search(r"oracle share \(1 - on/off\), median of (\d+) rounds:\s+([\d.]+)% "
                          r"\(rounds ([\d.]+)-([\d.]+)%\)", thr["stdout"])
        direct = re.search(r"oracle share \(direct\), median of \d+ rounds:\s+([\d.]+)% "
                           r"\(rounds ([\d.]+)-([\d.]+)%\)", thr["stdout"])
        if on and off:
            out.append(f"**Throughput** (in-process HTTP pipeline of the fuzz target, "
                       f"mutator-generated 10-request scripts, one thread): "
                       f"{on.group(1)} exec/s with the oracle on, {off.group(1)} with it "
                       f"off (per CPU second). Oracle share of an execution, median of "
                       f"{share.group(1) if share else '?'} alternating rounds: "
                       + (f"{share.group(2)} % from the two rates (rounds "
                          f"{share.group(3)}–{share.group(4)} %)" if share else "?")
                       + ", "
                       + (f"{direct.group(1)} % timed directly (rounds {direct.group(2)}–"
                          f"{direct.group(3)} %)" if direct else "?")
                       + ". Issue 6's targets: ≥ 2,500 exec/s with the oracle on, oracle "
                       "≤ 20 %.")
            out.append("")
    etcd = [r for r in res["runs"] if r["cmd"].startswith("build/bench/jepsen")]
    for r in etcd:
        e = re.search(r"etcd: (\d+) histories, (\d+) verdicts reproduced, total ([\d.]+) s, "
                      r"worst ([\d.]+) s", r["stdout"])
        kv = re.search(r"kv c50-ok: ([\d.]+) s", r["stdout"])
        mode = "online (event by event)" if "--online" in r["cmd"] else "whole trace"
        kv_rows = [l for l in r["stdout"].splitlines() if l.startswith("c") and "partitioned" in l]
        kv_bad = [l.split()[0] for l in kv_rows if "DISAGREES" in l]
        if e:
            out.append(f"**Jepsen histories, {mode}**: etcd {e.group(1)} histories, "
                       f"{e.group(2)} verdicts reproduced, total {e.group(3)} s, worst "
                       f"{e.group(4)} s (target ≤ 0.35 s total)"
                       + (f"; kv {len(kv_rows)} histories, {len(kv_rows) - len(kv_bad)} "
                          "verdicts reproduced"
                          + (f" ({', '.join(kv_bad)}: inconclusive or wrong, see below)"
                             if kv_bad else "") if kv_rows else "")
                       + (f"; kv c50-ok {kv.group(1)} s (target ≤ 0.25 s)" if kv else "")
                       + ".")
            out.append("")
    out.append("Raw output (`bench/results/benchmarks.json`):")
    out.append("")
    out.append("```")
    for r in res["runs"]:
        out.append("$ " + r["cmd"])
        lines = r["stdout"].rstrip().splitlines()
        # jepsen_bench --quiet prints only the totals (and any disagreement).
        out.extend(lines[-12:])
    out.append("```")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# The combined section


def has_matplotlib(python):
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


def ensure_matplotlib(argv):
    """True when this interpreter can import matplotlib. Else installs
    Debian's python3-matplotlib (when root) and, if this is not the system
    python3 (e.g. a pyenv shim on PATH), re-executes this script with
    /usr/bin/python3, which sees Debian's packages."""
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.exists(system) and not has_matplotlib(system) and os.geteuid() == 0 \
            and shutil.which("apt-get"):
        print("eval_report: installing python3-matplotlib", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"],
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                       stdout=subprocess.DEVNULL)
    if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system) \
            and has_matplotlib(system):
        print(f"eval_report: {sys.executable} has no matplotlib; re-running with {system}",
              file=sys.stderr)
        os.execv(system, [system, os.path.abspath(__file__)] + list(argv))
    print("eval_report: no matplotlib (apt-get install python3-matplotlib): no plots",
          file=sys.stderr)
    return False


def plot(args, engines, bugs, sel, budgets):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "dualfuzz"  # reproducible SVG ids
    import matplotlib.pyplot as plt
    os.makedirs(args.plot_dir, exist_ok=True)
    files = []
    names = [b for b, _ in bugs]
    nb = len(names)

    # Figure 1: bugs found vs time and vs executions, one curve per engine:
    # the mean over the seeds of the number of bugs found by then, and the
    # band between the worst and the best seed.
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, xlabel in ((axes[0], "seconds", "time to first violation (s, log scale)"),
                            (axes[1], "executions",
                             "executions to first violation (log scale)")):
        xmax = 1
        for e in engines:
            if key == "executions" and e == "afl":
                pass
            per_seed = []
            for s in range(1, args.seeds + 1):
                vals = sorted(sel[e][(b, s)][key] for b in names if (b, s) in sel[e]
                              and sel[e][(b, s)]["found"]
                              and sel[e][(b, s)][key] is not None)
                if any((b, s) in sel[e] for b in names):
                    per_seed.append(vals)
            if not per_seed:
                continue
            allv = sorted({v for vals in per_seed for v in vals})
            if key == "seconds":
                hi = budgets[e]
            else:
                hi = max(allv) * 1.5 if allv else 10
            xmax = max(xmax, hi)
            lo = min([v for v in allv if v > 0] or [1e-3])
            xs = [x for x in sorted(set([max(lo / 2, 1e-4)] + [max(v, 1e-4) for v in allv]
                                        + [hi]))]
            counts = [[sum(1 for v in vals if max(v, 1e-4) <= x) for x in xs]
                      for vals in per_seed]
            mean = [statistics.mean(c[i] for c in counts) for i in range(len(xs))]
            low = [min(c[i] for c in counts) for i in range(len(xs))]
            high = [max(c[i] for c in counts) for i in range(len(xs))]
            lab = SHORT[e] + (f" ({budgets[e]:g} s budget)" if key == "seconds" else "")
            ax.step(xs, mean, where="post", color=COLOR[e], label=lab, lw=1.8)
            ax.fill_between(xs, low, high, step="post", color=COLOR[e], alpha=0.15, lw=0)
        ax.axhline(nb, color="black", ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("planted bugs found (mean over seeds; band: min–max)")
        ax.set_ylim(0, nb + 1)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    axes[0].set_title(f"{nb} planted bugs × {args.seeds} seeds: bugs found vs. time",
                      fontsize=10)
    axes[1].set_title("bugs found vs. executions (scripts played)", fontsize=10)
    fig.tight_layout()
    for ext in ("svg", "png"):
        p = os.path.join(args.plot_dir, f"bugs-found.{ext}")
        fig.savefig(p, dpi=110, metadata={"Date": None} if ext == "svg" else {})
        files.append(p)
    plt.close(fig)

    # Figure 2: per bug, the time to first violation of every seed (dots) and
    # the median (bar), log scale; misses drawn at the budget as crosses.
    order = sorted(names, key=lambda b: (
        -sum(1 for e in engines for s in range(1, args.seeds + 1)
             if sel[e].get((b, s), {}).get("found")),
        med([sel["blackbox"][(b, s)]["seconds"] for s in range(1, args.seeds + 1)
             if sel["blackbox"].get((b, s), {}).get("found")], args.seeds) or 1e9
        if "blackbox" in sel else 0))
    fig, ax = plt.subplots(figsize=(9, 0.32 * nb + 2.0))
    offs = {e: (i - (len(engines) - 1) / 2) * 0.18 for i, e in enumerate(engines)}
    xmax = max(budgets[e] for e in engines) * 1.6
    hits = [max(r["seconds"], 1e-4) for e in engines for r in sel[e].values()
            if r["found"] and r["bug"] in names]
    xmin = min(hits) / 2 if hits else 1e-3
    for e in engines:
        for yi, b in enumerate(order):
            rs = [sel[e][(b, s)] for s in range(1, args.seeds + 1) if (b, s) in sel[e]]
            if not rs:
                continue
            y = yi + offs[e]
            hit = [max(r["seconds"], 1e-4) for r in rs if r["found"]]
            miss = len(rs) - len(hit)
            ax.scatter(hit, [y] * len(hit), s=9, color=COLOR[e], alpha=0.55, lw=0)
            if miss:
                ax.scatter([budgets[e] * 1.25], [y], marker="x", s=18, color=COLOR[e])
            mm = med(hit, len(rs))
            if mm is not None:
                ax.plot([mm, mm], [y - 0.08, y + 0.08], color=COLOR[e], lw=2.2)
    for e in engines:
        ax.plot([], [], color=COLOR[e], lw=2.2, label=f"{SHORT[e]} (bar: median; "
                f"×: misses, at {budgets[e]:g} s)")
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(order, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlabel("time to first violation (s, log scale); dots: one per seed")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=7,
              frameon=False)
    fig.tight_layout()
    for ext in ("svg", "png"):
        p = os.path.join(args.plot_dir, f"per-bug-time.{ext}")
        fig.savefig(p, dpi=100, metadata={"Date": None} if ext == "svg" else {})
        files.append(p)
    plt.close(fig)
    return files


def correct_runs():
    """One phrase per engine for its latest correct-server runs in bench/results."""
    out = []
    for e in ENGINES:
        rs = [r for r in eval_crashonly.load(os.path.join(RESULTS, e + ".jsonl"))
              if "error" not in r and not r.get("tmin")
              and (r.get("target") == "inprocess" if e == "blackbox" else
                   "bug" in r and r.get("bug") is None)]
        if not rs:
            if e == "blackbox":
                out.append(f"{SHORT[e]}: not re-run, see the false-alarm table of its section")
            continue
        if e == "blackbox":
            secs = sum(r.get("seconds", 0) for r in rs)
            execs = sum(r.get("executions", 0) for r in rs)
            bad = sum(1 for r in rs if r.get("violation"))
            out.append(f"{SHORT[e]} {len(rs)} runs, {secs:.0f} s, {execs} executions, "
                       f"{bad} violations")
            continue
        r = rs[-1]
        secs = r.get("wall_seconds") or r.get("seconds")
        execs = r.get("execs_done") or r.get("executions")
        bad = (r.get("saved_crashes") if e == "afl" else
               int(bool(r.get("violation") or r.get("infrastructure_crash"))))
        out.append(f"{SHORT[e]} seed {r.get('seed')}, {secs:.0f} s, {execs} executions, "
                   f"{bad or 0} crashes/violations")
    return out


def render_combined(args, m, bugs, sel, budgets, plots):
    fmt = eval_blackbox.fmt
    engines = [e for e in ENGINES if sel.get(e)]
    out = [SECTION, ""]
    commits = {e: sorted({r["commit"] for r in sel[e].values() if r.get("commit")})
               for e in engines}
    out.append(f"Generated by `bench/eval_report.py` on {m['date']} from the raw results in "
               "`bench/results/` (" + "; ".join(
                   f"{SHORT[e]}: {len(sel[e])} runs"
                   + (f" at commit{'s' if len(commits[e]) > 1 else ''} "
                      + ", ".join(f"`{c}`" for c in commits[e]) if commits[e] else "")
                   for e in engines) + "). Each engine's own section below has the exact "
               "commands; all ran one process at a time under `nice -n 10` on the machine "
               f"described above ({m['nproc']} shared vCPUs), so times are upper bounds; "
               "executions and messages do not depend on load.")
    out.append("")
    out.append("Engines: " + "; ".join(f"{LABEL[e]}, {budgets[e]:g} s per run"
                                       for e in engines) + ". Seeds 1.."
               f"{args.seeds} for every bug. Per engine: *found* k/n seeds; then the medians "
               "over the seeds (a miss counts as infinite, so a median exists when more "
               "than half the seeds found the bug) of *s* = seconds to the first violation, "
               "*ex* = executions (scripts played) up to and including the violating one, "
               "*msg* = messages (requests sent + responses received) over those executions "
               "(AFL++ cannot report it: its target process is re-forked every few "
               "thousand inputs).")
    out.append("")
    if plots:
        rel = [os.path.relpath(p, os.path.dirname(args.out)) for p in plots
               if p.endswith(".svg")]
        for p in rel:
            out.append(f"![{os.path.basename(p)}]({p})")
            out.append("")
        out.append("PNG versions next to the SVGs (`" + "`, `".join(
            os.path.relpath(p, ROOT) for p in plots if p.endswith(".png")) + "`).")
        out.append("")
    head = "| bug | category |" + "".join(f" {SHORT[e]} found | {SHORT[e]} s / ex / msg |"
                                         for e in engines)
    out.append(head)
    out.append("| --- | --- |" + " ---: | ---: |" * len(engines))
    summary = {e: {"every": 0, "some": 0, "none": 0, "ran": 0, "sum_s": 0.0, "n_med": 0,
                   "runs_found": 0, "runs": 0} for e in engines}
    medians = {}
    for name, cat in bugs:
        cells = []
        for e in engines:
            rs = [sel[e][(name, s)] for s in range(1, args.seeds + 1) if (name, s) in sel[e]]
            if not rs:
                cells += ["—", "—"]
                continue
            found = [r for r in rs if r["found"]]
            n = len(rs)
            ms = med([r["seconds"] for r in found], n)
            mx = med([r["executions"] for r in found if r["executions"] is not None], n) \
                if all(r["executions"] is not None for r in found) else None
            mm = med([r["messages"] for r in found if r["messages"] is not None], n) \
                if found and all(r["messages"] is not None for r in found) else None
            medians[(e, name)] = ms
            su = summary[e]
            su["ran"] += 1
            su["runs"] += n
            su["runs_found"] += len(found)
            if len(found) == n:
                su["every"] += 1
            elif found:
                su["some"] += 1
            else:
                su["none"] += 1
            if ms is not None:
                su["sum_s"] += ms
                su["n_med"] += 1
            f = f"{len(found)}/{n}"
            if len(found) < n:
                f = f"**{f}**" if len(found) else f"**0/{n}**"
            cells.append(f)
            if ms is None:
                cells.append("—")
            else:
                cells.append(f"{fmt(ms, 2)} / {fmt(mx, 0)} / "
                             + (fmt(mm, 0) if mm is not None else "n/a"))
        out.append(f"| `{name}` | {cat} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("| engine | budget per run | bugs found by every seed | by some seeds "
               "| by none | runs that found their bug | sum of median times (bugs with a "
               "median) |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for e in engines:
        su = summary[e]
        out.append(f"| {LABEL[e]} | {budgets[e]:g} s | {su['every']} of {su['ran']} | "
                   f"{su['some']} | {su['none']} | {su['runs_found']} of {su['runs']} | "
                   f"{su['sum_s']:.1f} s over {su['n_med']} bugs |")
    out.append("")
    common = [b for b, _ in bugs if all(medians.get((e, b)) is not None for e in engines
                                        if e != "crashonly")]
    cov = [e for e in engines if e != "crashonly"]
    if common and len(cov) > 1:
        out.append(f"Over the {len(common)} bugs that every engine except crash-only found "
                   "in most seeds, the sums of the median times are: " + ", ".join(
                       f"{SHORT[e]} {sum(medians[(e, b)] for b in common):.1f} s"
                       for e in cov) + ".")
        out.append("")
    fa = correct_runs()
    if fa:
        out.append("Correct server (no bug planted; any violation would be a false alarm): "
                   + "; ".join(fa) + ".")
        out.append("")
    if "crashonly" in engines and "blackbox" in engines:
        bb_times = [r["seconds"] for r in sel["blackbox"].values() if r["found"]]
        if bb_times:
            out.append(f"Crash-only budget: {budgets['crashonly']:g} s per run; the slowest "
                       f"of the {len(bb_times)} detections of `dualfuzz fuzz` took "
                       f"{max(bb_times):.2f} s (wall clock); for a seed both play the same "
                       "scripts, and the crash-only section counts the missed runs that "
                       "played the script at which `dualfuzz fuzz` reported the bug.")
            out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help="comma-separated subset of " + ",".join(ENGINES) + " ('none': "
                    "only re-render the combined section)")
    ap.add_argument("--bugs", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=60, help="budget of (a), (b), (c)")
    ap.add_argument("--crashonly-seconds", type=float, default=15, help="budget of (d)")
    ap.add_argument("--afl-correct-seconds", type=float, default=0,
                    help="AFL++ on the correct server this long (0: skip)")
    ap.add_argument("--lf-correct-seconds", type=float, default=0,
                    help="libFuzzer on the correct server this long (0: skip)")
    ap.add_argument("--tmin", default="", help="bugs whose AFL++ crash file to minimize")
    ap.add_argument("--bench", action="store_true",
                    help="run throughput_bench and jepsen_bench and write their section")
    ap.add_argument("--bench-seconds", type=float, default=10)
    ap.add_argument("--reuse", action="store_true",
                    help="keep runs already in bench/results (run only the missing ones)")
    ap.add_argument("--render-only", action="store_true",
                    help="run nothing: every section again from bench/results")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/evaluation-journal.md"))
    ap.add_argument("--plot-dir", default=os.path.join(ROOT, "docs/eval"))
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    args = ap.parse_args(argv)
    can_plot = ensure_matplotlib(sys.argv[1:] if argv is None else argv)
    args.engines = [e for e in args.engines.split(",") if e and e != "none"]
    for e in args.engines:
        if e not in ENGINES:
            sys.exit(f"eval_report: unknown engine {e} (one of {', '.join(ENGINES)})")
    if not os.access(args.dualfuzz, os.X_OK):
        sys.exit(f"eval_report: no dualfuzz at {args.dualfuzz} (cmake --build build "
                 "--target dualfuzz)")
    os.makedirs(RESULTS, exist_ok=True)
    m = eval_blackbox.machine()
    if args.render_only:
        args.engines = [e for e in ENGINES
                        if os.path.exists(os.path.join(RESULTS, e + ".jsonl"))]
    run_engines(args)

    bench_raw = os.path.join(RESULTS, "benchmarks.json")
    if args.bench and not args.render_only:
        res = run_benchmarks(args, m)
    else:
        res = json.load(open(bench_raw)) if os.path.exists(bench_raw) else None
    if res and (args.bench or args.render_only):
        eval_blackbox.write_section(args.out, render_benchmarks(m, res), BENCH_SECTION)

    all_bugs = eval_crashonly.list_bugs(args.dualfuzz)
    budgets = {"libfuzzer": args.seconds, "afl": args.seconds, "blackbox": args.seconds,
               "crashonly": args.crashonly_seconds}
    sel = {}
    for e in ENGINES:
        runs = load_engine(e, os.path.join(RESULTS, e + ".jsonl"))
        s = latest(runs, budgets[e], args.seeds)
        if s:
            sel[e] = s
    if not sel:
        print("eval_report: no results yet in bench/results", file=sys.stderr)
        return 0
    have = {b for e in sel for b, _ in sel[e]}
    bugs = [b for b in all_bugs if b[0] in have]
    engines = [e for e in ENGINES if e in sel]
    plots = plot(args, engines, bugs, sel, budgets) if can_plot else []
    eval_blackbox.write_section(args.out, render_combined(args, m, bugs, sel, budgets, plots),
                                SECTION)
    print(f"wrote {args.out}" + (f" and {len(plots)} plot files" if plots else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
