#!/bin/sh
# lighttpd_inprocess_test.sh FUZZER SOURCE_DIR: lighttpd_inprocess_fuzzer
# (lighttpd linked in, tests/fuzz/lighttpd.cmake) runs 300 inputs from the
# HTTP seeds without a crash, timeout or internal error, and lighttpd's own
# edges reach the engine. Violations are counted, not failed on: unpatched
# lighttpd 1.4.69 has known ones (docs/EVALUATION.md) that 300 runs may hit.
# Exit 0 pass, 1 fail (configured but its binary missing: never a silent pass),
# 77 skipped with the reason (not configured: -DDUALFUZZ_LIGHTTPD_INPROCESS unset).
set -u
fuzzer=$1 src=$2
[ -n "$fuzzer" ] ||
  { echo "skipped: lighttpd_inprocess_fuzzer not configured (scripts/subjects/build-inprocess.sh lighttpd, then -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR)"; exit 77; }
[ -x "$fuzzer" ] ||
  { echo "FAIL: $fuzzer is configured but not built (cmake --build BUILD --target lighttpd_inprocess_fuzzer)"; exit 1; }
top=$(mktemp -d /tmp/dualfuzz-lighttpd-test-XXXXXX)
trap 'rm -rf "$top"' EXIT
mkdir "$top/corpus" "$top/findings"
cd "$top" || exit 1
DUALFUZZ_KEEP_GOING=1 DUALFUZZ_FINDINGS=$top/findings "$fuzzer" -runs=300 -seed=1 -timeout=60 \
  "$top/corpus" "$src/corpora/fuzz/http_inprocess_fuzzer" >"$top/log" 2>&1
rc=$?
tail -5 "$top/log"
fail() { echo "FAIL: $*"; grep -E '==dualfuzz==|ERROR|SUMMARY' "$top/log" | head -20; exit 1; }
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q 'internal error' "$top/log" && fail "internal error"
grep -q 'Done 300 runs' "$top/log" || fail "did not run 300 inputs"
# The instrumented modules libFuzzer saw: lighttpd's objects bring thousands of
# inline counters (dualfuzz's own code is not instrumented but the target's file).
counters=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$top/log" | head -1)
echo "inline 8-bit counters: ${counters:-?}; distinct violations: $(wc -l <"$top/findings/findings.jsonl" 2>/dev/null || echo 0)"
[ "${counters:-0}" -gt 5000 ] || fail "only ${counters:-no} inline counters: lighttpd not instrumented?"
echo PASS
