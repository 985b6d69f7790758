#!/usr/bin/env python3
"""ctest-summary.py JUNIT [LABEL]: the summary of one ctest run, from the file
that `ctest --output-junit JUNIT` wrote: how many tests ran, passed, failed,
and every test that did not run with the reason it gave (ctest itself prints
only "(Skipped)"). Used by scripts/test.sh. Prints one line
`LABEL: N run, P passed, F failed, S skipped` then the skipped and failed
tests; exits 0 (the caller decides from ctest's own status)."""
import re
import sys
import xml.etree.ElementTree as ET


def reason(out):
    """The line of a test's output that says why it did not run."""
    lines = [l.strip() for l in (out or "").splitlines() if l.strip()]
    for i, l in enumerate(lines):  # GoogleTest: "file:line: Skipped" then the message
        if re.search(r": Skipped$", l) and i + 1 < len(lines) and not lines[i + 1].startswith("["):
            return lines[i + 1]
    said = [l for l in lines if re.search(r"skip", l, re.I) and not l.startswith("[")]
    if said:
        return said[-1]
    return lines[-1] if lines else "(no output: the test printed no reason)"


def main():
    path = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else "ctest"
    cases = ET.parse(path).getroot().iter("testcase")
    ran, passed, failed, skipped = 0, 0, [], []
    for c in cases:
        name = c.get("name")
        out = c.findtext("system-out") or ""
        if c.find("skipped") is not None or c.get("status") in ("notrun", "disabled"):
            skipped.append((name, reason(out)))
            continue
        ran += 1
        if c.find("failure") is not None or c.get("status") == "fail":
            failed.append(name)
        else:
            passed += 1
    print(f"{label}: {ran} run, {passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    for name, why in skipped:
        print(f"  skipped {name}: {why[:300]}")
    for name in failed:
        print(f"  FAILED {name}")


if __name__ == "__main__":
    main()
