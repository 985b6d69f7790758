#!/usr/bin/env bash
# The whole test suite, whatever was built before: set-up and the full build
# of build/ (scripts/setup.sh forces tests, examples and benchmarks ON and keeps
# build/'s build type, so after scripts/demo.sh nothing is built twice), ctest
# (an empty run is an error), then every libFuzzer target (clang, ASan+UBSan,
# build-fuzz/) for a bounded time and that tree's own ctest. Prints how many
# tests ran and why each skipped one did not; fails on any failure.
#   scripts/test.sh                    # FUZZ_SECONDS=30 per fuzz target
# The scripts themselves (demo then test in a scratch clone): scripts/check-fresh-clone.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-build}  # (as scripts/setup.sh and scripts/demo.sh)
export BUILD
scripts/setup.sh

summaries=()
run_ctest() {  # run_ctest DIR LABEL: ctest in DIR, then its summary (kept for the end)
  local dir=$1 label=$2 junit rc=0
  junit=$(cd "$dir" && pwd)/Testing/ctest-junit.xml
  rm -f "$junit"
  (cd "$dir" && ctest --no-tests=error --output-on-failure -j "$JOBS" --output-junit "$junit") || rc=$?
  if [ -f "$junit" ]; then
    summaries+=("$(python3 scripts/ctest-summary.py "$junit" "$label" ||
                   echo "$label: no summary ($junit unreadable)")")
    echo; echo "${summaries[-1]}"
  fi
  if [ "$rc" -ne 0 ]; then echo "test: ctest in $dir/ failed (exit $rc)"; exit "$rc"; fi
}
run_ctest "$BUILD" "ctest ($BUILD/)"

# Fuzz build: clang + libFuzzer + ASan/UBSan, separate tree.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_SANITIZE=ON \
  -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$JOBS" --target dualfuzz_fuzzers
fuzzers=0  # (the targets scripts/run-fuzzers.sh runs)
for f in build-fuzz/tests/fuzz/*_fuzzer build-fuzz/examples/*/*_fuzzer; do
  [ -x "$f" ] && fuzzers=$((fuzzers + 1))
done
[ "$fuzzers" -gt 0 ] || { echo "test: no fuzz target built in build-fuzz/"; exit 1; }
scripts/run-fuzzers.sh build-fuzz "${FUZZ_SECONDS:-30}"
# Its ctest holds one test, fuzz_lighttpd_inprocess, which runs only when
# -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR names lighttpd's in-process build. Without
# it the tree's ctest would run nothing and skip one test: say so instead, so
# that the last ctest this script prints is one that ran tests.
if grep -q '^DUALFUZZ_LIGHTTPD_INPROCESS:PATH=.' build-fuzz/CMakeCache.txt; then
  run_ctest build-fuzz "ctest (build-fuzz/)"
else
  summaries+=("fuzz_lighttpd_inprocess (build-fuzz/ ctest) not configured: it needs -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR (scripts/subjects/build-inprocess.sh lighttpd)")
fi

echo
echo "test: all passed"
printf '%s\n' "${summaries[@]}"
echo "fuzz targets: $fuzzers run for ${FUZZ_SECONDS:-30} s each (build-fuzz/)"
