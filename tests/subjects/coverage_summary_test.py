#!/usr/bin/env python3
"""scripts/subjects/coverage_summary.py on a made-up llvm-cov export: two
sources with one name (Apache's server/util.c and modules/dav/main/util.c)
are summarized apart, a path's tail names one of them, and a function in
two modules is one row with its regions' counts summed."""
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


EXPORT = {"data": [
    {"functions": [
        fn("/b/server/util.c", "ap_getword", 5, [region(10, 5), region(12, 0)]),
        fn("/b/modules/dav/main/util.c", "dav_validate", 0, [region(20, 0), region(21, 0)]),
        fn("/b/modules/dav/main/util.c", "dav_get_depth", 2, [region(30, 2), region(31, 0)]),
    ]},
    # the same function in a second module: summed, one row
    {"functions": [
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
expect("== /b/server/util.c: 1 of 1 functions entered, 1 of 2 code regions" in out,
       "server's util.c: its own function only", out)
expect("never  dav_validate (line 20, 2 regions)" in out, "a function never entered", out)
expect("2/2    dav_get_depth (entered 3×)" in out, "counts summed by position", out)
expect("ap_getword (entered 5×); unreached lines 12" in out, "unreached lines", out)

out, _ = run("dav/main/util.c")
expect(out.count("==") == 1 and "server/util.c" not in out, "a tail names one file", out)

out, err = run("nothere.c")
expect(out == "" and "nothere.c: no function" in err, "a name that matches nothing", out + err)
print("ok")
