#!/usr/bin/env bash
# Checks the ClusterFuzzLite template (examples/clusterfuzzlite/) the way its
# builder image would run it, without Docker: $SRC/dualfuzz is a snapshot of
# this repository (what the Dockerfile clones), build.sh runs with
# ClusterFuzzLite's environment ($CC $CXX $CFLAGS $CXXFLAGS
# $LIB_FUZZING_ENGINE $SRC $WORK $OUT: clang, -O1 -gline-tables-only,
# AddressSanitizer, libFuzzer), then
#   1. $OUT holds each target with its seed corpus, dictionary and options,
#      and every shared library a target needs beyond libc's and the C++
#      runtime's is in $OUT/lib;
#   2. the target fuzzes the example server with its planted bug fixed
#      (FILE_SERVER_FIXED=1) for $SECS seconds from its seeds: no finding;
#   3. with the bug, it finds it, and the crash file reproduces when the
#      target is run on it again (ClusterFuzzLite re-runs a crash before it
#      reports it): of $RERUNS re-runs, how many reproduce is printed, and
#      the check fails unless the first does.
#
#   scripts/check-clusterfuzzlite.sh                 # HEAD, as committed
#   CHECK_SRC=worktree scripts/check-clusterfuzzlite.sh
#   SECS=30 RERUNS=10 scripts/check-clusterfuzzlite.sh
# Scratch: $CHECK_TMP (default a new /tmp/dualfuzz-cflite.*), removed on
# success unless KEEP=1. Needs clang with libFuzzer, zip and python3 (unzips).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-10}
RERUNS=${RERUNS:-5}
scratch=${CHECK_TMP:-$(mktemp -d /tmp/dualfuzz-cflite.XXXXXX)}
step() { echo "== check-clusterfuzzlite: $*"; }
fail() { echo "check-clusterfuzzlite: FAIL: $*"; exit 1; }
for tool in clang clang++ zip python3; do
  command -v "$tool" >/dev/null || { echo "check-clusterfuzzlite: no $tool: skipped"; exit 77; }
done

export SRC=$scratch/src WORK=$scratch/work OUT=$scratch/out
rm -rf "$SRC" "$WORK" "$OUT"
mkdir -p "$SRC/dualfuzz" "$WORK" "$OUT"
step "sources: ${CHECK_SRC:-head} of $ROOT into \$SRC/dualfuzz"
if [ "${CHECK_SRC:-head}" = worktree ]; then
  (cd "$ROOT" && git ls-files -co --exclude-standard -z | tar -c --null -T - 2>/dev/null) |
    tar -x -C "$SRC/dualfuzz"
else
  git -C "$ROOT" archive HEAD | tar -x -C "$SRC/dualfuzz"
fi
cp "$SRC/dualfuzz/examples/clusterfuzzlite/.clusterfuzzlite/build.sh" "$SRC/build.sh"

export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
step "build.sh (${CFLAGS})"
start=$(date +%s)
(cd "$SRC/dualfuzz" && bash "$SRC/build.sh") > "$scratch/build.log" 2>&1 ||
  { tail -40 "$scratch/build.log"; fail "build.sh failed (log: $scratch/build.log)"; }
echo "build.sh took $(($(date +%s) - start)) s"

name=file_server_fuzzer
target=$OUT/$name
step "1. what \$OUT holds"
[ -x "$target" ] || fail "no $target"
for f in "${name}_seed_corpus.zip" "$name.dict" "$name.options"; do
  [ -s "$OUT/$f" ] || fail "no $OUT/$f"
done
missing=$(env -u LD_LIBRARY_PATH ldd "$target" | awk '/not found/ {print $1}')
[ -z "$missing" ] || fail "libraries not found beside the target: $missing"
outside=$(ldd "$target" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libcrypt|libstdc\+\+|libgcc_s|ld-linux.*)\.so/ && $3 !~ "^'"$OUT"'/lib/" {print $3}')
[ -z "$outside" ] || fail "libraries from outside \$OUT/lib: $outside"
corpus=$scratch/corpus
rm -rf "$corpus" && mkdir -p "$corpus" && python3 -m zipfile -e "$OUT/${name}_seed_corpus.zip" "$corpus"
echo "$(ls "$corpus" | wc -l) seeds, $(ls "$OUT/lib" | tr '\n' ' ')"

step "2. the fixed server, $SECS s: no finding"
(cd "$scratch" && FILE_SERVER_FIXED=1 "$target" -max_total_time="$SECS" -max_len=4096 \
   -dict="$OUT/$name.dict" -artifact_prefix="$scratch/fixed-" "$corpus" > fixed.log 2>&1) ||
  { tail -30 "$scratch/fixed.log"; fail "a finding on the fixed server"; }
grep -E '^#[0-9]+.*DONE' "$scratch/fixed.log" | tail -1

step "3. the planted bug: found, and its crash file reproduces"
rm -f "$scratch"/bug-*
(cd "$scratch" && "$target" -max_total_time=120 -max_len=4096 -dict="$OUT/$name.dict" \
   -artifact_prefix="$scratch/bug-" "$corpus" > bug.log 2>&1) && fail "the planted bug was not found in 120 s"
crash=$(ls "$scratch"/bug-* 2>/dev/null | head -1)
[ -n "$crash" ] || { tail -20 "$scratch/bug.log"; fail "no crash file"; }
grep -m1 'stat::number_of_executed_units\|^#[0-9]' "$scratch/bug.log" | head -1 || true
grep -m1 '^==dualfuzz==' "$scratch/bug.log" || true
reproduced=0
first=no
for i in $(seq 1 "$RERUNS"); do
  if ! "$target" "$crash" > "$scratch/rerun-$i.log" 2>&1; then
    reproduced=$((reproduced + 1))
    [ "$i" = 1 ] && first=yes
  fi
done
echo "re-runs of the crash file that reproduce it: $reproduced of $RERUNS (first: $first)"
[ "$first" = yes ] || fail "the crash file did not reproduce on its first re-run"
step "PASS"
[ "${KEEP:-0}" = 1 ] || [ -n "${CHECK_TMP:-}" ] || rm -rf "$scratch"
