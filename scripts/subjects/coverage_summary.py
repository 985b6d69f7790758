#!/usr/bin/env python3
"""Per-function summary of an `llvm-cov export` (source-based coverage) for
the files named, for reading where a campaign's request space ends: the
functions never entered, then those entered, each with its code regions
reached of all and the lines of the regions never reached (runs of lines).

  llvm-cov export BIN -object MOD.so -instr-profile=P > export.json
  scripts/subjects/coverage_summary.py export.json --file mod_webdav.c --file dav/main/util.c

A --file is a path's tail: util.c names Apache's server/util.c and
modules/dav/main/util.c, each summarized apart; dav/main/util.c the one.

(scripts/subjects/source-coverage.sh runs it with its --file arguments.)
"""
import argparse
import json
import sys

CODE = 0  # a region's kind: code (not an expansion, a skipped or a gap region)


def runs(lines):
    """'3-5, 9' for {3, 4, 5, 9}."""
    out, start, prev = [], None, None
    for n in sorted(lines):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(out)


def matches(path, tail):
    return path == tail or path.endswith("/" + tail)


def summarize(export, wanted):
    """{(path, function): row} for the functions of the files a tail in
    wanted names."""
    rows = {}
    for data in export["data"]:
        for fn in data["functions"]:
            path = fn["filenames"][0]
            if not any(matches(path, w) for w in wanted):
                continue
            # (a function in several modules or inlined copies: one row, its
            # regions' counts summed by position)
            key = (path, fn["name"])
            row = rows.setdefault(key, {"entered": 0, "regions": {}})
            row["entered"] += fn["count"]
            for r in fn["regions"]:
                if r[7] != CODE or r[5] != 0:
                    continue
                pos = tuple(r[0:4])
                row["regions"][pos] = row["regions"].get(pos, 0) + r[4]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("export")
    ap.add_argument("--file", action="append", default=[],
                    help="a source file's name, or its path's tail")
    a = ap.parse_args()
    if not a.file:
        ap.error("--file NAME, at least one")
    rows = summarize(json.load(open(a.export)), set(a.file))
    for tail in a.file:
        paths = sorted({p for p, _ in rows if matches(p, tail)})
        if not paths:
            print(f"== {tail}: no function in the export", file=sys.stderr)
        for path in paths:
            report(path, [(name, r) for (p, name), r in rows.items() if p == path])


def report(path, fns):
    reached = sum(1 for _, r in fns if r["entered"])
    total_regions = sum(len(r["regions"]) for _, r in fns)
    hit_regions = sum(1 for _, r in fns for c in r["regions"].values() if c)
    print(f"== {path}: {reached} of {len(fns)} functions entered, "
          f"{hit_regions} of {total_regions} code regions reached")
    fns.sort(key=lambda x: (x[1]["entered"] > 0,
                            -sum(1 for c in x[1]["regions"].values() if not c)))
    for name, r in fns:
        regs = r["regions"]
        hit = sum(1 for c in regs.values() if c)
        first = min(p[0] for p in regs) if regs else 0
        if not r["entered"]:
            print(f"  never  {name} (line {first}, {len(regs)} regions)")
            continue
        missed = set()
        for (l0, _, l1, _), c in regs.items():
            if not c:
                missed.update(range(l0, l1 + 1))
        # (a line also inside a reached region that starts or ends there
        # is still partly reached: only lines no reached region covers)
        for (l0, _, l1, _), c in regs.items():
            if c and l1 - l0 < 3:
                missed.difference_update(range(l0, l1 + 1))
        print(f"  {hit:4d}/{len(regs):<4d} {name} (entered {r['entered']}×)"
              + (f"; unreached lines {runs(missed)}" if missed else ""))


if __name__ == "__main__":
    main()
