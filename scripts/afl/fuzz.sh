#!/usr/bin/env bash
# AFL++ (4.04c, Debian's afl++) on the functional fuzz target
# tests/fuzz/http_inprocess_fuzzer, mutating with the structure-aware
# library libdualfuzz_afl_mutator.so instead of AFL's byte-level stages.
#
#   scripts/afl/fuzz.sh build                        # both build trees (below)
#   scripts/afl/fuzz.sh run lost-update 60           # one afl-fuzz, 60 s; out: afl-out/lost-update
#   scripts/afl/fuzz.sh parallel lost-update 4 300   # -M main + 3 -S secondaries, 300 s
#   scripts/afl/fuzz.sh eval 60 lost-update etag-reuse ...   # 5 seeds each (afl-fuzz -s):
#                                      # time and executions to the first crash, replayed;
#                                      # bench/eval_afl.py, into docs/evaluation-journal.md
#   scripts/afl/fuzz.sh eval 60                      # ... for every planted bug
#   scripts/afl/fuzz.sh correct 600                  # the correct server, 10 min: no crash
#   scripts/afl/fuzz.sh tmin lost-update CRASH       # afl-tmin, afl-fuzz custom trim, and
#                                                    # dualfuzz minimize on one crash file
#   scripts/afl/fuzz.sh table                        # run/parallel results again from afl-out/
#   scripts/afl/fuzz.sh example 60                   # the user-server example
#                                      # (examples/beast_file_server) with the library
#                                      # its CMakeLists.txt makes: time to its bug
#
# What it runs, by hand:
#   export AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/build-afl/mutator/libdualfuzz_afl_mutator.so
#   export AFL_CUSTOM_MUTATOR_ONLY=1     # every input stays a parseable script
#   DUALFUZZ_BUG=lost-update afl-fuzz -i corpora/fuzz/http_inprocess_fuzzer -o out \
#       -- build-afl-target/tests/fuzz/http_inprocess_fuzzer
#   parallel: the same with `-M main` once and `-S s1`, `-S s2`, ... (same -o)
#
# Two build trees, because afl-fuzz dlopen()s the mutator into its own
# (uninstrumented) process while the target is compiled by afl-clang-fast++:
#   build-afl/         clang++: libdualfuzz_afl_mutator.so, its tests, the dualfuzz CLI
#   build-afl-target/  afl-clang-fast++ with DUALFUZZ_BUILD_FUZZERS=ON: afl-cc
#                      turns -fsanitize=fuzzer into libAFLDriver.a (persistent
#                      mode, shared-memory input; it never calls
#                      LLVMFuzzerCustomMutator and first runs one 4-byte dummy
#                      input, which is no script and so a no-op).
# A violation of the oracle aborts the target: AFL saves it under crashes/;
# `dualfuzz run --liveness --target inprocess:<bug> <crash file>` replays it
# (--liveness: the target counts an unanswered request as a violation).
#
# Environment: JOBS (default 2), DUALFUZZ_CLI (lists the bugs), SEEDS (seed directory, default
# corpora/fuzz/http_inprocess_fuzzer), AFL_OUT (default afl-out), SEED (afl-fuzz -s, run
# and parallel; default: afl-fuzz's own random seed), EVAL_SEEDS (eval: seeds 1..N, default 5).
# The mutator library is build-afl/'s, else build/'s (any tree with
# DUALFUZZ_BUILD_AFL_MUTATOR=ON, the default, builds it).
#
# afl-tmin 4.04c cannot use the custom mutator: it never loads
# AFL_CUSTOM_MUTATOR_LIBRARY (support for custom trimming reached afl-tmin in
# 2025, AFLplusplus/AFLplusplus#2243). It shrinks bytes blindly; candidates
# that no longer parse do not crash and are rejected. afl-fuzz's trim stage
# does call afl_custom_trim: `tmin` runs it on a crash file through crash
# exploration mode (AFL_BENCH_JUST_ONE=1 afl-fuzz -C -i DIR-WITH-THE-CRASH:
# the trimmed seed is queue/id:000000), next to afl-tmin and dualfuzz minimize.
# Seeds that already trigger the planted bug are left out (afl-fuzz refuses
# crashing seeds, and a bug found by a seed is not found by fuzzing).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
JOBS=${JOBS:-2}
SEEDS=${SEEDS:-corpora/fuzz/http_inprocess_fuzzer}
AFL_OUT=${AFL_OUT:-afl-out}
MUTATOR=$ROOT/build-afl/mutator/libdualfuzz_afl_mutator.so
[ -f "$MUTATOR" ] || [ ! -f "$ROOT/build/mutator/libdualfuzz_afl_mutator.so" ] ||
  MUTATOR=$ROOT/build/mutator/libdualfuzz_afl_mutator.so
TARGET=$ROOT/build-afl-target/tests/fuzz/http_inprocess_fuzzer
CLI=${DUALFUZZ_CLI:-$ROOT/build-afl/cli/dualfuzz}
[ -x "$CLI" ] || CLI=$ROOT/build/cli/dualfuzz  # any build lists the bugs

export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
export AFL_CUSTOM_MUTATOR_LIBRARY=$MUTATOR AFL_CUSTOM_MUTATOR_ONLY=1
export AFL_QUIET=1  # afl-clang-fast banners

build() {
  nice -n 5 cmake -S . -B build-afl -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_BENCH=OFF >/dev/null
  nice -n 5 cmake --build build-afl -j "$JOBS" --target dualfuzz_afl_mutator \
    file_server_afl_mutator
  CC=afl-clang-fast CXX=afl-clang-fast++ nice -n 5 cmake -S . -B build-afl-target -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_BUILD_TESTS=OFF \
    -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_AFL_MUTATOR=OFF >/dev/null
  nice -n 5 cmake --build build-afl-target -j "$JOBS" --target http_inprocess_fuzzer \
    file_server_fuzzer
  # The CLI only lists the bugs for `eval` (any build of it will do).
  nice -n 5 cmake --build build-afl -j "$JOBS" --target dualfuzz ||
    echo "afl: the dualfuzz CLI did not build; eval falls back to build/cli/dualfuzz" >&2
}

need_build() {
  [ -f "$MUTATOR" ] && [ -x "$TARGET" ] || { echo "afl: run '$0 build' first" >&2; exit 2; }
}

# seeds_for BUG DIR: copies the seeds that do not trigger BUG into DIR.
seeds_for() {
  local bug=$1 dir=$2 f n=0
  mkdir -p "$dir"
  for f in "$SEEDS"/*; do
    [ -f "$f" ] || continue
    if (DUALFUZZ_BUG=$bug "$TARGET" "$f") >/dev/null 2>&1; then
      cp "$f" "$dir/"; n=$((n + 1))
    else
      echo "afl: seed $(basename "$f") already triggers $bug: left out" >&2
    fi
  done
  if [ "$n" -eq 0 ]; then  # a one-request script is the least a seed can be
    printf 'req 1 on c0: {"method":"GET","path":"/"}\n' >"$dir/get.txt"
  fi
}

# run BUG SECONDS [OUT] [afl-fuzz options...]
run() {
  local bug=$1 secs=$2 out=${3:-$AFL_OUT/$1}
  shift 3 || shift $#
  need_build
  rm -rf "$out" && mkdir -p "$out"
  seeds_for "$bug" "$out/seeds"
  DUALFUZZ_BUG=$bug nice -n 5 afl-fuzz ${SEED:+-s "$SEED"} -V "$secs" -i "$out/seeds" \
    -o "$out/afl" "$@" -- "$TARGET" \
    >"$out/afl-fuzz.log" 2>&1 || { tail -20 "$out/afl-fuzz.log"; return 1; }
}

# first_crash OUT: "<ms> <file>" of the earliest crash of any instance under OUT/afl.
first_crash() {
  local f best_ms="" best_file=""
  for f in "$1"/afl/*/crashes/id:*; do
    [ -e "$f" ] || continue
    local ms=${f##*,time:}; ms=${ms%%,*}
    if [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ]; then best_ms=$ms; best_file=$f; fi
  done
  [ -n "$best_ms" ] && echo "$best_ms $best_file"
}

# replay BUG FILE: "yes" when the crash is the planted bug's: the target
# itself aborts on the file with the bug planted and passes without it (the
# same check as `dualfuzz run --liveness --target inprocess:BUG FILE`, exit 1,
# and `--target inprocess`, exit 0).
replay() {
  local with=0 without=0
  (DUALFUZZ_BUG=$1 "$TARGET" "$2") >/dev/null 2>&1 || with=$?
  (DUALFUZZ_BUG= "$TARGET" "$2") >/dev/null 2>&1 || without=$?
  if [ "$with" -ne 0 ] && [ "$without" -eq 0 ]; then echo yes; else echo "no ($with/$without)"; fi
}

summary() {  # summary BUG OUT
  local stats=("$2"/afl/*/fuzzer_stats) execs=0 crashes=0 s fc
  for s in "${stats[@]}"; do
    [ -f "$s" ] || continue
    execs=$((execs + $(awk -F: '/^execs_done/ {print $2+0}' "$s")))
    crashes=$((crashes + $(awk -F: '/^saved_crashes/ {print $2+0}' "$s")))
  done
  if fc=$(first_crash "$2"); then
    printf '%-28s %10.1f %10d %8d  %s\n' "$1" "$(echo "${fc%% *}" | awk '{print $1/1000}')" \
      "$execs" "$crashes" "$(replay "$1" "${fc#* }")"
  else
    printf '%-28s %10s %10d %8d  %s\n' "$1" "-" "$execs" 0 "-"
  fi
}

# example SECONDS: the fuzz target a user writes (DUALFUZZ_FUZZ_TARGET) for
# the Beast file server, built by afl-clang-fast++, mutated by the library
# its author makes with DUALFUZZ_AFL_CUSTOM_MUTATOR
# (examples/beast_file_server/file_server_afl_mutator.cpp: structural
# mutation only, as afl-fuzz's process cannot reach the target's server).
example() {
  local secs=$1 out=$AFL_OUT/example
  local target=$ROOT/build-afl-target/examples/beast_file_server/file_server_fuzzer
  local lib=$ROOT/build-afl/examples/beast_file_server/libfile_server_afl_mutator.so
  [ -f "$lib" ] || [ ! -f "$ROOT/build/examples/beast_file_server/libfile_server_afl_mutator.so" ] ||
    lib=$ROOT/build/examples/beast_file_server/libfile_server_afl_mutator.so
  [ -f "$lib" ] && [ -x "$target" ] || { echo "afl: run '$0 build' first" >&2; exit 2; }
  rm -rf "$out" && mkdir -p "$out"
  AFL_CUSTOM_MUTATOR_LIBRARY=$lib nice -n 5 afl-fuzz ${SEED:+-s "$SEED"} -V "$secs" \
    -i examples/beast_file_server/seeds -o "$out/afl" -- "$target" \
    >"$out/afl-fuzz.log" 2>&1 || { tail -20 "$out/afl-fuzz.log"; return 1; }
  local fc with=0 without=0 execs
  execs=$(awk -F: '/^execs_done/ {print $2+0}' "$out"/afl/default/fuzzer_stats)
  if ! fc=$(first_crash "$out"); then
    echo "example: no crash in ${secs} s ($execs executions)"; return 1
  fi
  # The crash is the planted bug's: it aborts the target, and the fixed
  # server passes it.
  { ("$target" "${fc#* }") >"$out/replay.log" 2>&1; } 2>/dev/null || with=$?
  (FILE_SERVER_FIXED=1 "$target" "${fc#* }") >/dev/null 2>&1 || without=$?
  printf 'example: first crash after %.1f s (%d executions in all); replay %s\n' \
    "$(echo "${fc%% *}" | awk '{print $1/1000}')" "$execs" \
    "$([ "$with" -ne 0 ] && [ "$without" -eq 0 ] && echo "aborts, passes when fixed" ||
      echo "NOT the planted bug ($with/$without)")"
}

cmd=${1:-}
case "$cmd" in
  example) example "${2:-60}" ;;
  build) build ;;
  run)
    bug=${2:?bug (dualfuzz bugs lists them)}; secs=${3:-60}
    run "$bug" "$secs" "$AFL_OUT/$bug"
    summary "$bug" "$AFL_OUT/$bug"
    ;;
  parallel)
    bug=${2:?bug}; n=${3:-2}; secs=${4:-300}; out=$AFL_OUT/$bug
    need_build
    rm -rf "$out" && mkdir -p "$out"
    seeds_for "$bug" "$out/seeds"
    pids=()
    for ((i = 0; i < n; i++)); do
      role=(-S "s$i"); [ "$i" -eq 0 ] && role=(-M main)
      DUALFUZZ_BUG=$bug nice -n 5 afl-fuzz ${SEED:+-s "$((SEED + i))"} -V "$secs" \
        -i "$out/seeds" -o "$out/afl" "${role[@]}" \
        -- "$TARGET" >"$out/afl-fuzz.$i.log" 2>&1 &
      pids+=($!)
    done
    wait "${pids[@]}" || true
    summary "$bug" "$out"
    ;;
  eval)  # 5 seeds per bug, replayed, written into docs/evaluation-journal.md
    secs=${2:-60}; shift 2 || shift $#
    need_build
    bugs=$(IFS=,; echo "$*")
    exec python3 bench/eval_afl.py --seconds "$secs" --seeds "${EVAL_SEEDS:-5}" \
      --mutator "$MUTATOR" --target "$TARGET" ${bugs:+--bugs "$bugs"}
    ;;
  correct)  # the correct server: no crash expected
    secs=${2:-600}
    need_build
    exec python3 bench/eval_afl.py --seconds "${EVAL_SECONDS:-60}" --seeds "${EVAL_SEEDS:-5}" \
      --mutator "$MUTATOR" --target "$TARGET" --correct-seconds "$secs" --bugs none
    ;;
  tmin)  # tmin BUG CRASHFILE [OUTDIR]
    bug=${2:?bug}; crash=${3:?crash file}; dir=${4:-$AFL_OUT/tmin-$bug}
    need_build
    mkdir -p "$dir/seeds"
    DUALFUZZ_BUG=$bug nice -n 5 afl-tmin -i "$crash" -o "$dir/afl-tmin.txt" -- "$TARGET" \
      >"$dir/afl-tmin.log" 2>&1 || true
    cp "$crash" "$dir/seeds/crash.txt"; rm -rf "$dir/trim"
    AFL_BENCH_JUST_ONE=1 DUALFUZZ_BUG=$bug nice -n 5 afl-fuzz -C -V 120 -i "$dir/seeds" \
      -o "$dir/trim" -- "$TARGET" >"$dir/afl-fuzz-trim.log" 2>&1 || true
    cp "$dir"/trim/default/queue/id:000000* "$dir/custom-trim.txt" 2>/dev/null || true
    "$CLI" minimize --target "inprocess:$bug" "$crash" -o "$dir/dualfuzz-minimize.txt" \
      >"$dir/minimize.log" 2>&1 || true
    for f in "$crash" "$dir/afl-tmin.txt" "$dir/custom-trim.txt" "$dir/dualfuzz-minimize.txt"; do
      [ -f "$f" ] || { echo "$f: none"; continue; }
      with=0; without=0
      "$CLI" replay --target "inprocess:$bug" "$f" >/dev/null 2>&1 || with=$?
      "$CLI" replay --target inprocess "$f" >/dev/null 2>&1 || without=$?
      printf '%-60s %6d bytes %3d requests  replay: bug %d, correct %d\n' "$f" \
        "$(wc -c <"$f")" "$(grep -c '^req ' "$f" || true)" "$with" "$without"
    done
    ;;
  table)  # the eval table again, from the outputs already under $AFL_OUT
    shift
    bugs=("$@")
    if [ ${#bugs[@]} -eq 0 ]; then mapfile -t bugs < <(ls "$AFL_OUT"); fi
    printf '%-28s %10s %10s %8s  %s\n' bug first_crash_s execs crashes replayed
    found=0
    for bug in "${bugs[@]}"; do
      line=$(summary "$bug" "$AFL_OUT/$bug"); echo "$line"
      [[ "$line" == *" yes" ]] && found=$((found + 1))
    done
    echo "afl: $found of ${#bugs[@]} planted bugs found (crash replayed)"
    ;;
  *) awk 'NR > 1 && /^set /{exit} NR > 1' "$0"; exit 2 ;;
esac
