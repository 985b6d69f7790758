#!/usr/bin/env bash
# Checks scripts/oss-fuzz/build.sh the way OSS-Fuzz would use it, without
# Docker: builds with libFuzzer+ASan and with AFL++ (afl-clang-fast +
# libAFLDriver.a, ASan) into temporary $OUT directories, with OSS-Fuzz's
# -O1 -fno-omit-frame-pointer -gline-tables-only, then runs every produced
# target briefly on its seed corpus with its dictionary. Every shared library a
# target needs beyond libc's and the C++ runtime's must come from $OUT/lib.
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
#
# lighttpd_inprocess_fuzzer: the image's $SRC/lighttpd1.4 is a git clone
# (Dockerfile); here $SRC/lighttpd1.4 is a copy of Debian's lighttpd source
# package (scripts/subjects/debsrc.sh fetches it once, as build-inprocess.sh
# does; a release tree, with ./configure), or of CHECK_LIGHTTPD_SRC=DIR (a
# git checkout of tag lighttpd-1.4.69, say). LIGHTTPD_AUTOGEN=1 removes the
# copy's configure and the other files autotools generate, so that the build
# takes a git checkout's route (./autogen.sh); CHECK_LIGHTTPD=0 leaves
# lighttpd out (no source: build.sh then skips the target). With the source,
# the check fails unless lighttpd_inprocess_fuzzer was built, and reports its
# inline counters (libFuzzer; lighttpd's edges make thousands) or edges found
# (AFL++). lighttpd 1.4.69's known RFC violations are counted, not crashes,
# as on OSS-Fuzz: build.sh installs lighttpd_inprocess_fuzzer.known_violations
# next to the target, which reads it from there. Any other violation is
# counted too (DUALFUZZ_KEEP_GOING=1; distinct ones, first scripts in
# run-ENGINE/lighttpd_inprocess_fuzzer/findings/), so that the run lasts and
# a sanitizer report would show; CHECK_KEEP_GOING=0 aborts at the first
# unknown one, as the target does on OSS-Fuzz.
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

# $SRC/lighttpd1.4, as in the OSS-Fuzz image (see above).
if [ "${CHECK_LIGHTTPD:-1}" = 0 ]; then
  rm -rf "$TMP/src/lighttpd1.4"
elif [ -n "${SKIP_BUILD:-}" ] && [ -d "$TMP/src/lighttpd1.4" ]; then
  :
else
  lighttpd_src=${CHECK_LIGHTTPD_SRC:-}
  if [ -z "$lighttpd_src" ]; then
    lighttpd_src=$(NAME=lighttpd CACHE=${DUALFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz} \
      bash -c 'set -euo pipefail; . scripts/subjects/debsrc.sh; pristine_source >&2; echo "$PRISTINE"') ||
      { echo "oss-fuzz check: Debian's lighttpd source could not be fetched (CHECK_LIGHTTPD=0:" \
          "check without lighttpd_inprocess_fuzzer)" >&2; exit 1; }
  fi
  rm -rf "$TMP/src/lighttpd1.4" && cp -a "$lighttpd_src" "$TMP/src/lighttpd1.4"
  if [ "${LIGHTTPD_AUTOGEN:-0}" = 1 ]; then
    (cd "$TMP/src/lighttpd1.4" && rm -f configure aclocal.m4 config.h.in ltmain.sh &&
      find . -name Makefile.in -delete)
  fi
fi

fail=0 findings=0
report=()
note() { report+=("$(printf '%-10s %-30s %s' "$1" "$2" "$3")"); }

build() {  # build ENGINE: runs build.sh with that engine's environment
  local engine=$1 out=$TMP/out-$1 work=$TMP/work-$1
  rm -rf "$out" && mkdir -p "$out" "$work"
  local env=(SRC="$TMP/src" WORK="$work" OUT="$out" JOBS="${JOBS:-2}")
  # OSS-Fuzz's flags for an ASan build (base-builder's CFLAGS).
  local flags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope"
  case "$engine" in
    libfuzzer)
      env+=(CC=clang CXX=clang++ CFLAGS="$flags -fsanitize=fuzzer-no-link"
            CXXFLAGS="$flags -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer) ;;
    afl)
      env+=(CC=afl-clang-fast CXX=afl-clang-fast++ CFLAGS="$flags"
            CXXFLAGS="$flags" LIB_FUZZING_ENGINE="$AFL_DRIVER" AFL_QUIET=1) ;;
  esac
  echo "oss-fuzz check: building for $engine (log: $TMP/build-$engine.log)"
  env "${env[@]}" nice -n 5 bash -eu "$TMP/src/dualfuzz/scripts/oss-fuzz/build.sh" \
    >"$TMP/build-$engine.log" 2>&1
}

finding() {  # finding ENGINE TARGET CRASH LOG [PREFIX]: a crash the target reported
  note "$1" "$2" "FINDING: ${5:-}${5:+ }$3"
  findings=$((findings + 1))
  report+=("$(grep -m1 -E '==dualfuzz==|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|deadly signal' "$4" | cut -c1-160 | sed 's/^/             /')")
  report+=("$(grep -m2 -E 'VIOLATION|LIVENESS|expected' "$4" | cut -c1-160 | sed 's/^/             /')")
}

distinct() {  # distinct DIR: the violations DIR/findings has (DUALFUZZ_FINDINGS)
  if [ -f "$1/findings/findings.jsonl" ]; then wc -l <"$1/findings/findings.jsonl"; else echo 0; fi
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
  # Z3 and any other shared library but libc's and the C++ runtime's must come
  # from $OUT/lib (the runner image has none of them).
  local foreign
  foreign=$(ldd "$f" | awk -v lib="$TMP/out-$engine/lib/" '$3 ~ /^\// && index($3, lib) != 1 &&
    $1 !~ /^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libcrypt|libstdc\+\+|libgcc_s|ld-linux.*)\.so/ {print $1}')
  if [ -n "$foreign" ]; then
    note "$engine" "$name" "FAIL: not from \$OUT/lib: $(echo "$foreign" | tr '\n' ' ')"; fail=1; return
  fi
  # lighttpd 1.4.69's known RFC violations (docs/EVALUATION.md: If-Match and
  # If-Unmodified-Since ignored on GET, ...) would abort the target within
  # seconds; the list build.sh installs next to it makes them counted, as on
  # OSS-Fuzz. Unknown ones are counted too (DUALFUZZ_KEEP_GOING=1, the first
  # script of each in DIR/findings), so that the run lasts its SECS and shows
  # whether lighttpd runs clean under the sanitizer. CHECK_KEEP_GOING=0 aborts
  # at the first unknown one, as OSS-Fuzz does.
  local keep=() violations=""
  if [ "$name" = lighttpd_inprocess_fuzzer ]; then
    [ -s "$TMP/out-$engine/$name.known_violations" ] ||
      { note "$engine" "$name" "FAIL: no $name.known_violations"; fail=1; return; }
    if [ "${CHECK_KEEP_GOING:-1}" = 1 ]; then
      keep=(DUALFUZZ_KEEP_GOING=1 DUALFUZZ_FINDINGS="$dir/findings")
      mkdir -p "$dir/findings"  # (the target writes into it, never makes it)
      violations=", violations counted, not aborted on"
    fi
  fi
  case "$engine" in
    libfuzzer)
      mkdir -p "$dir/corpus"
      if (cd "$dir" && env ${keep[@]+"${keep[@]}"} nice -n 5 "$f" -max_total_time="$SECS" -max_len=4096 -dict="$TMP/out-$engine/$name.dict" \
            -print_final_stats=1 corpus seeds >log 2>&1); then
        # (lighttpd's: its objects are instrumented, thousands of counters)
        local counters
        counters=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$dir/log" | head -1)
        # (and edges reached: a run without a serving lighttpd stays at ~1,500,
        # one with it passes 6,000 on the seeds alone)
        local cov
        cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*cov: \([0-9]*\) .*/\1/p' "$dir/log" | tail -1)
        if [ "$name" = lighttpd_inprocess_fuzzer ] && [ "${counters:-0}" -lt 5000 ]; then
          note "$engine" "$name" "FAIL: only ${counters:-no} inline counters: lighttpd not instrumented?"; fail=1
        elif [ "$name" = lighttpd_inprocess_fuzzer ] && [ "${cov:-0}" -lt 3000 ]; then
          note "$engine" "$name" "FAIL: ${cov:-no} edges reached: lighttpd did not serve? ($dir/log)"; fail=1
        else
          [ -z "$violations" ] || violations=", $(distinct "$dir") distinct unknown violations"
          # (the target's count at exit of those its known list matched)
          local known
          known=$(sed -n 's/^==dualfuzz== known violations: \([0-9]*\) in [0-9]* scripts:$/\1/p' "$dir/log" | tail -1)
          [ -z "$known" ] || violations="$violations, $known known"
          note "$engine" "$name" "ok: $(awk '/stat::number_of_executed_units/ {print $2}' "$dir/log") execs in ${SECS}s, ${counters:-?} inline counters, cov ${cov:-?}$violations"
        fi
      elif crash=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -1) && [ -n "$crash" ]; then
        finding "$engine" "$name" "$crash" "$dir/log"
      else
        note "$engine" "$name" "FAIL: see $dir/log"; fail=1
      fi ;;
    afl)
      if (cd "$dir" && env ${keep[@]+"${keep[@]}"} AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
            nice -n 5 afl-fuzz -V "$SECS" -i seeds -o out -x "$TMP/out-$engine/$name.dict" -- "$f" >log 2>&1); then
        local stats=$dir/out/default/fuzzer_stats execs crashes hangs
        execs=$(awk -F: '/^execs_done/ {print $2+0}' "$stats")
        hangs=$(awk -F: '/^saved_hangs/ {print $2+0}' "$stats")
        crashes=$(awk -F: '/^saved_crashes/ {print $2+0}' "$stats")
        if [ "$execs" -eq 0 ]; then
          note "$engine" "$name" "FAIL: no executions ($dir/log)"; fail=1
        elif [ "$crashes" -gt 0 ]; then
          local crash
          crash=$(find "$dir/out/default/crashes" -name 'id:*' | sort | head -1)
          (cd "$dir" && "$f" "$crash"; exit $?) >"$dir/replay.log" 2>&1 || true
          finding "$engine" "$name" "$crash" "$dir/replay.log" "$execs execs, $crashes crashes, first:"
        else
          [ -z "$violations" ] || violations=", $(distinct "$dir") distinct unknown violations"
          note "$engine" "$name" "ok: $execs execs in ${SECS}s, $(awk -F: '/^edges_found/ {print $2+0}' "$stats") edges, $hangs hangs$violations"
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
  if [ -d "$TMP/src/lighttpd1.4" ] && [ ! -x "$TMP/out-$engine/lighttpd_inprocess_fuzzer" ]; then
    note "$engine" lighttpd_inprocess_fuzzer "FAIL: not built (lighttpd's source was there)"; fail=1
  fi
  for f in "${targets[@]}"; do run "$engine" "$f"; done
done

echo "oss-fuzz check ($TMP):"
printf '  %s\n' "${report[@]}"
if [ "$fail" -ne 0 ]; then echo "oss-fuzz check: FAILED"; exit 1; fi
if [ "$findings" -ne 0 ]; then echo "oss-fuzz check: builds and runs fine; $findings target(s) crashed (findings above)"; exit 3; fi
echo "oss-fuzz check: passed"
