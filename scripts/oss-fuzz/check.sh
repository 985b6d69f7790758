#!/usr/bin/env bash
# Checks scripts/oss-fuzz/build.sh the way OSS-Fuzz would use it, without
# Docker: builds with libFuzzer+ASan and with AFL++ (afl-clang-fast +
# libAFLDriver.a, ASan) into temporary $OUT directories, then runs every
# produced target briefly on its seed corpus with its dictionary.
# Exit status: 0 all good; 1 a build failure, a missing artefact or a target
# that does not run; 3 everything built and ran but a target crashed (a
# finding: the crash file and the first lines of its report are printed).
#
#   scripts/oss-fuzz/check.sh                 # both engines, 10 s per target
#   SECS=30 ENGINES=libfuzzer scripts/oss-fuzz/check.sh
#   CHECK_SRC=worktree scripts/oss-fuzz/check.sh   # uncommitted changes too
#
# By default the sources are a snapshot of HEAD (git archive), which is what
# OSS-Fuzz clones, and which stays consistent while the working tree changes.
# Scratch space: $CHECK_TMP (default a new /tmp/dualfuzz-oss-fuzz.*), kept;
# SKIP_BUILD=1 CHECK_TMP=<earlier> reruns only the targets.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SECS=${SECS:-10}
ENGINES=${ENGINES:-libfuzzer afl}
TMP=${CHECK_TMP:-$(mktemp -d /tmp/dualfuzz-oss-fuzz.XXXXXX)}
AFL_DRIVER=${AFL_DRIVER:-/usr/lib/afl/libAFLDriver.a}  # Debian's afl++ package
mkdir -p "$TMP"

# $SRC/dualfuzz, as in the OSS-Fuzz image.
mkdir -p "$TMP/src"
if [ -n "${SKIP_BUILD:-}" ] && [ -d "$TMP/src/dualfuzz" ]; then
  :
elif [ "${CHECK_SRC:-head}" = worktree ]; then
  ln -sfn "$ROOT" "$TMP/src/dualfuzz"
else
  rm -rf "$TMP/src/dualfuzz" && mkdir -p "$TMP/src/dualfuzz"
  git archive HEAD | tar -x -C "$TMP/src/dualfuzz"
fi

fail=0 findings=0
report=()
note() { report+=("$(printf '%-10s %-30s %s' "$1" "$2" "$3")"); }

build() {  # build ENGINE: runs build.sh with that engine's environment
  local engine=$1 out=$TMP/out-$1 work=$TMP/work-$1
  rm -rf "$out" && mkdir -p "$out" "$work"
  local env=(SRC="$TMP/src" WORK="$work" OUT="$out" JOBS="${JOBS:-2}")
  case "$engine" in
    libfuzzer)
      env+=(CC=clang CXX=clang++ CFLAGS="-fsanitize=address,fuzzer-no-link"
            CXXFLAGS="-fsanitize=address,fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer) ;;
    afl)
      env+=(CC=afl-clang-fast CXX=afl-clang-fast++ CFLAGS="-fsanitize=address"
            CXXFLAGS="-fsanitize=address" LIB_FUZZING_ENGINE="$AFL_DRIVER" AFL_QUIET=1) ;;
  esac
  echo "oss-fuzz check: building for $engine (log: $TMP/build-$engine.log)"
  env "${env[@]}" nice -n 5 bash -eu "$TMP/src/dualfuzz/scripts/oss-fuzz/build.sh" \
    >"$TMP/build-$engine.log" 2>&1
}

finding() {  # finding ENGINE TARGET CRASH LOG [PREFIX]: a crash the target reported
  note "$1" "$2" "FINDING: ${5:-}${5:+ }$3"
  findings=$((findings + 1))
  report+=("$(grep -m1 -E '==dualfuzz==|ERROR: AddressSanitizer|runtime error|deadly signal' "$4" | cut -c1-160 | sed 's/^/             /')")
  report+=("$(grep -m2 -E 'VIOLATION|LIVENESS|expected' "$4" | cut -c1-160 | sed 's/^/             /')")
}

run() {  # run ENGINE TARGET
  local engine=$1 f=$2 name
  name=$(basename "$f")
  local dir=$TMP/run-$engine/$name
  rm -rf "$dir" && mkdir -p "$dir/seeds"
  for a in "${name}_seed_corpus.zip" "$name.dict" "$name.options"; do
    [ -s "$TMP/out-$engine/$a" ] || { note "$engine" "$name" "FAIL: no $a"; fail=1; return; }
  done
  unzip -q "$TMP/out-$engine/${name}_seed_corpus.zip" -d "$dir/seeds"
  # Z3 must come from $OUT/lib (the runner image has none). (ldd's output is
  # captured first: grep -q closing the pipe early would fail under pipefail.)
  local libs
  libs=$(ldd "$f")
  if grep -q libz3 <<<"$libs" && ! grep -q "libz3.* => $TMP/out-$engine/lib/" <<<"$libs"; then
    note "$engine" "$name" "FAIL: libz3 not from \$OUT/lib"; fail=1; return
  fi
  case "$engine" in
    libfuzzer)
      mkdir -p "$dir/corpus"
      if (cd "$dir" && nice -n 5 "$f" -max_total_time="$SECS" -max_len=4096 -dict="$TMP/out-$engine/$name.dict" \
            -print_final_stats=1 corpus seeds >log 2>&1); then
        note "$engine" "$name" "ok: $(awk '/stat::number_of_executed_units/ {print $2}' "$dir/log") execs in ${SECS}s"
      elif crash=$(ls "$dir"/crash-* 2>/dev/null | head -1) && [ -n "$crash" ]; then
        finding "$engine" "$name" "$crash" "$dir/log"
      else
        note "$engine" "$name" "FAIL: see $dir/log"; fail=1
      fi ;;
    afl)
      if (cd "$dir" && AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
            nice -n 5 afl-fuzz -V "$SECS" -i seeds -o out -x "$TMP/out-$engine/$name.dict" -- "$f" >log 2>&1); then
        local stats=$dir/out/default/fuzzer_stats execs crashes
        execs=$(awk -F: '/^execs_done/ {print $2+0}' "$stats")
        crashes=$(awk -F: '/^saved_crashes/ {print $2+0}' "$stats")
        if [ "$execs" -eq 0 ]; then
          note "$engine" "$name" "FAIL: no executions ($dir/log)"; fail=1
        elif [ "$crashes" -gt 0 ]; then
          local crash
          crash=$(ls "$dir"/out/default/crashes/id:* | head -1)
          (cd "$dir" && "$f" "$crash"; exit $?) >"$dir/replay.log" 2>&1 || true
          finding "$engine" "$name" "$crash" "$dir/replay.log" "$execs execs, $crashes crashes, first:"
        else
          note "$engine" "$name" "ok: $execs execs in ${SECS}s"
        fi
      else
        note "$engine" "$name" "FAIL: afl-fuzz, see $dir/log"; fail=1
      fi ;;
  esac
}

for engine in $ENGINES; do
  if [ -n "${SKIP_BUILD:-}" ] && [ -d "$TMP/out-$engine" ]; then
    echo "oss-fuzz check: reusing $TMP/out-$engine"
  elif ! build "$engine"; then
    note "$engine" "(build)" "FAIL: see $TMP/build-$engine.log"; fail=1; tail -20 "$TMP/build-$engine.log"
    continue
  fi
  targets=("$TMP/out-$engine"/*_fuzzer)
  [ -x "${targets[0]}" ] || { note "$engine" "(build)" "FAIL: no targets"; fail=1; continue; }
  for f in "${targets[@]}"; do run "$engine" "$f"; done
done

echo "oss-fuzz check ($TMP):"
printf '  %s\n' "${report[@]}"
if [ "$fail" -ne 0 ]; then echo "oss-fuzz check: FAILED"; exit 1; fi
if [ "$findings" -ne 0 ]; then echo "oss-fuzz check: builds and runs fine; $findings target(s) crashed (findings above)"; exit 3; fi
echo "oss-fuzz check: passed"
