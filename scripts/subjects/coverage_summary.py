#!/usr/bin/env python3
"""Per-function summary of an `llvm-cov export` (source-based coverage) for
the files named, for reading where a campaign's request space ends: the
functions never entered, then those entered, each with its code regions
reached of all and its lines llvm-cov shows as run 0 times (runs of lines).

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


def line_counts(segments):
    """{line: execution count} of the mapped lines of one file, computed from
    its segments ([line, col, count, has count, region entry, gap]) as
    llvm-cov does for its line view (LineCoverageStats): a line's count is the
    largest of the regions starting on it, else the one it is inside of."""
    by_line = {}
    for seg in segments:
        by_line.setdefault(seg[0], []).append(seg)
    counts, wrapped = {}, None
    first = segments[0][0] if segments else 0
    last = segments[-1][0] if segments else -1
    for line in range(first, last + 1):
        segs = by_line.get(line, [])
        starts = [g for g in segs if g[3] and g[4] and not g[5]]
        skipped = bool(segs) and not segs[0][3] and segs[0][4]
        if not skipped and ((wrapped and wrapped[3]) or starts):
            n = wrapped[2] if wrapped else 0
            if starts:
                n = max([n] + [g[2] for g in starts])
            counts[line] = n
        if segs:
            wrapped = segs[-1]
    return counts


def summarize(export, wanted):
    """{(path, function): row} for the functions of the files a tail in
    wanted names."""
    rows, lines = {}, {}
    for data in export["data"]:
        for f in data.get("files", []):
            if any(matches(f["filename"], w) for w in wanted):
                # (the same file in several modules: a line reached in any)
                counts = lines.setdefault(f["filename"], {})
                for n, c in line_counts(f["segments"]).items():
                    counts[n] = counts.get(n, 0) + c
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
    return rows, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("export")
    ap.add_argument("--file", action="append", default=[],
                    help="a source file's name, or its path's tail")
    a = ap.parse_args()
    if not a.file:
        ap.error("--file NAME, at least one")
    rows, lines = summarize(json.load(open(a.export)), set(a.file))
    for tail in a.file:
        paths = sorted({p for p, _ in rows if matches(p, tail)})
        if not paths:
            print(f"== {tail}: no function in the export", file=sys.stderr)
        for path in paths:
            report(path, [(name, r) for (p, name), r in rows.items() if p == path],
                   lines.get(path, {}))


def report(path, fns, lines):
    """lines: {line: count} of the file's mapped lines (line_counts)."""
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
        # (the lines of the function's extent that llvm-cov shows as run 0 times)
        last = max(p[2] for p in regs)
        missed = {n for n in range(first, last + 1) if lines.get(n) == 0}
        print(f"  {hit:4d}/{len(regs):<4d} {name} (entered {r['entered']}×)"
              + (f"; unreached lines {runs(missed)}" if missed else ""))


if __name__ == "__main__":
    main()
