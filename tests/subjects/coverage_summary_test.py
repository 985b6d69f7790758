#!/usr/bin/env python3
"""scripts/subjects/coverage_summary.py on a made-up llvm-cov export: two
sources with one name (Apache's server/util.c and modules/dav/main/util.c)
are summarized apart, a path's tail names one of them, a function in two
modules is one row with its regions' counts summed, and a function's
unreached lines are those llvm-cov shows with count 0."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
TOOL = os.path.join(ROOT, "scripts/subjects/coverage_summary.py")


def region(line, count):
    # [line start, col start, line end, col end, count, file id, expanded file id, kind]
    return [line, 1, line, 9, count, 0, 0, 0]


def fn(path, name, count, regions):
    return {"name": name, "count": count, "filenames": [path], "regions": regions}


def seg(line, col, count, has_count=True, entry=True, gap=False):
    return [line, col, count, has_count, entry, gap]


def region_span(l0, l1, count):
    return [l0, 1, l1, 9, count, 0, 0, 0]


EXPORT = {"data": [
    {"files": [
        {"filename": "/b/server/util.c", "segments": [
            seg(10, 1, 5), seg(10, 9, 0, False, False),
            seg(12, 1, 0), seg(12, 9, 0, False, False),
            # a region of lines 40-43 never run, a nested one on line 41 run:
            # 41 is reached, 42 and 43 (inside the outer one) are not
            seg(40, 1, 0), seg(41, 1, 7), seg(41, 9, 0, True, False),
            seg(43, 9, 0, False, False),
            # lines 50-56 never run but for a nested region of 52-55
            seg(50, 1, 0), seg(52, 1, 4), seg(55, 9, 0, True, False),
            seg(56, 9, 0, False, False)]},
        {"filename": "/b/modules/dav/main/util.c", "segments": [
            seg(20, 1, 0), seg(21, 9, 0, False, False),
            # a line where a region never run and one run start: reached
            seg(30, 1, 2), seg(31, 1, 0), seg(31, 5, 2), seg(31, 9, 0, False, False)]},
     ],
     "functions": [
        fn("/b/server/util.c", "ap_getword", 5, [region(10, 5), region(12, 0)]),
        fn("/b/server/util.c", "ap_nested", 7, [region_span(40, 43, 0), region(41, 7),
                                                  region_span(50, 56, 0), region_span(52, 55, 4)]),
        fn("/b/modules/dav/main/util.c", "dav_validate", 0, [region(20, 0), region(21, 0)]),
        fn("/b/modules/dav/main/util.c", "dav_get_depth", 2, [region(30, 2), region(31, 0)]),
    ]},
    # the same function in a second module: summed, one row
    {"files": [
        {"filename": "/b/modules/dav/main/util.c", "segments": [
            seg(30, 1, 1), seg(31, 1, 3), seg(31, 9, 0, False, False)]}],
     "functions": [
        fn("/b/modules/dav/main/util.c", "dav_get_depth", 1, [region(30, 1), region(31, 3)]),
    ]},
]}


def run(*files):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(EXPORT, f)
    args = [sys.executable, TOOL, f.name]
    for name in files:
        args += ["--file", name]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return out.stdout, out.stderr


def expect(cond, what, out):
    if not cond:
        print(f"FAIL: {what}\n{out}")
        sys.exit(1)


out, _ = run("util.c")
heads = [ln for ln in out.splitlines() if ln.startswith("==")]
expect(len(heads) == 2, "util.c names both files, each apart", out)
expect("== /b/modules/dav/main/util.c: 1 of 2 functions entered, 2 of 4 code regions" in out,
       "dav's util.c: its own functions only, the module copies summed", out)
expect("== /b/server/util.c: 2 of 2 functions entered, 3 of 6 code regions" in out,
       "server's util.c: its own function only", out)
expect("never  dav_validate (line 20, 2 regions)" in out, "a function never entered", out)
expect("2/2    dav_get_depth (entered 3×)\n" in out, "counts summed by position", out)
expect("ap_getword (entered 5×); unreached lines 12\n" in out, "unreached lines", out)
expect("ap_nested (entered 7×); unreached lines 40, 42-43, 50-51, 56\n" in out,
       "a line inside a region never run, one with a nested region run", out)

out, _ = run("dav/main/util.c")
expect(out.count("==") == 1 and "server/util.c" not in out, "a tail names one file", out)

out, err = run("nothere.c")
expect(out == "" and "nothere.c: no function" in err, "a name that matches nothing", out + err)
print("ok")
