#!/usr/bin/env bash
# A test of the scripts themselves, as a newcomer runs them: clones this
# repository (its HEAD, or REF: committed work only) into a scratch
# directory, runs scripts/demo.sh then scripts/test.sh there, and checks that
#  - both exit 0, the demo wrote its chart, test.sh printed "test: all passed";
#  - ctest ran tests: build/'s summary says N run with N > 0, and N plus the
#    skipped ones is every test registered (`ctest -N`);
#  - nothing was built twice: no object file of the demo's build was rebuilt
#    by test.sh (same modification times).
# Not part of ctest nor of CI (.ci/run): it builds everything from nothing,
# about 45 minutes on a 2-core machine. Run it by hand after changing
# scripts/setup.sh, demo.sh, test.sh or the CMake options they set.
#   scripts/check-fresh-clone.sh [REF]   # KEEP=1 keeps the clone; FUZZ_SECONDS, JOBS passed on
set -euo pipefail
export LC_ALL=C  # (sort and comm agree)
cd "$(dirname "$0")/.."
repo=$PWD ref=${1:-HEAD}
unset BUILD BUILD_TYPE  # the newcomer's path: build/ and the scripts' own build type
top=$(mktemp -d "${TMPDIR:-/tmp}/dualfuzz-fresh-clone-XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$top"' EXIT; else echo "check: keeping $top"; fi
fail() { echo "check-fresh-clone: FAIL: $*" >&2; exit 1; }

git clone --quiet --no-local "$repo" "$top/dualfuzz"
git -C "$top/dualfuzz" checkout --quiet --detach "$(git rev-parse "$ref^{commit}")"
cd "$top/dualfuzz"
echo "check: $(git log -1 --format='%h %s' | cut -c1-100) in $PWD"

start=$SECONDS
scripts/demo.sh 2>&1 | tee "$top/demo.log" || fail "scripts/demo.sh exited ${PIPESTATUS[0]}"
demo_s=$((SECONDS - start))
[ -s demo-counterexample.html ] || fail "the demo wrote no chart"
find build -name '*.o' -printf '%P %T@\n' | sort >"$top/objects-after-demo"
[ -s "$top/objects-after-demo" ] || fail "the demo built no object"

start=$SECONDS
scripts/test.sh 2>&1 | tee "$top/test.log" || fail "scripts/test.sh exited ${PIPESTATUS[0]}"
test_s=$((SECONDS - start))
grep -q '^test: all passed' "$top/test.log" || fail "test.sh did not say 'test: all passed'"

summary=$(grep -E '^ctest \(build/\): [0-9]+ run' "$top/test.log" | tail -1) ||
  fail "test.sh printed no ctest summary for build/"
run=$(sed -E 's/.*: ([0-9]+) run.*/\1/' <<<"$summary")
skipped=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$summary")
registered=$(cd build && ctest -N | sed -n 's/^Total Tests: //p')
[ "$run" -gt 0 ] || fail "ctest ran no test"
[ $((run + skipped)) -eq "$registered" ] ||
  fail "ctest: $run run + $skipped skipped, but $registered registered"

rebuilt=$(find build -name '*.o' -printf '%P %T@\n' | sort |
  comm -13 - "$top/objects-after-demo" | cut -d' ' -f1)
[ -z "$rebuilt" ] ||
  fail "test.sh rebuilt $(wc -l <<<"$rebuilt") object(s) of the demo's build, e.g. $(head -1 <<<"$rebuilt")"

echo
echo "check-fresh-clone: PASS: demo ${demo_s} s, test ${test_s} s; $summary"
echo "  objects built by the demo: $(wc -l <"$top/objects-after-demo"), none rebuilt by test.sh"
