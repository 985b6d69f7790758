#!/usr/bin/env bash
# Regenerates the evaluation sections of docs/evaluation-journal.md (and the plots in
# docs/eval/) from this checkout: builds what the chosen engines need, then
# runs bench/eval_report.py, which runs each engine's script and renders the
# combined section "Time to first violation: four engines".
#
#   scripts/evaluate.sh --all            # everything: 4 engines x 32 bugs x 5 seeds, the
#                                        # correct server 10 min under libFuzzer and AFL++,
#                                        # afl-tmin, throughput and Jepsen benchmarks, and
#                                        # the real servers (~3-4 h)
#   scripts/evaluate.sh --realservers --engines none   # the real servers only (~75 min):
#                                        # bench/eval_realservers.py, dualfuzz fuzz 10 min per
#                                        # server with 2 and 1 connections, and libFuzzer, every
#                                        # finding judged by protocols/http/judgements.json
#   scripts/evaluate.sh                  # the 4 engines only (60 s per run; crash-only 15 s)
#   scripts/evaluate.sh --bugs lost-update,etag-reuse,head-with-body --seeds 2 --seconds 20 \
#                       --crashonly-seconds 20          # a quick subset
#   scripts/evaluate.sh --engines libfuzzer            # re-run (a), re-render the table
#   scripts/evaluate.sh --reuse          # run only what bench/results/*.jsonl lacks
#   scripts/evaluate.sh --render-only    # run nothing: re-render from bench/results/
#
# Options are those of bench/eval_report.py (--help), plus:
#   --all        add --bench --afl-correct-seconds 600 --lf-correct-seconds 600
#                --tmin lost-update,412-on-match,etag-from-length,racy-if-match
#   --realservers  also Apache, nginx and lighttpd (bench/eval_realservers.py
#                --connections 2,1 --libfuzzer build-lf/...; with --render-only, --reuse)
#   --no-build   do not configure/build anything
# Build trees (each configured on first use; JOBS=2 parallel jobs, nice):
#   build/             dualfuzz CLI, crash_only_bench, throughput_bench, jepsen_bench,
#                      libdualfuzz_afl_mutator.so (unless build-afl/ has one)
#   build-lf/          clang, -DDUALFUZZ_BUILD_FUZZERS=ON: the libFuzzer target
#   build-afl-target/  afl-clang-fast++: the AFL++ target (scripts/afl/fuzz.sh build)
# Raw results: bench/results/*.jsonl (git-ignored). Wall-clock times on a
# shared machine are upper bounds; executions and messages are not.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

args=() build=1 engines="libfuzzer,afl,blackbox,crashonly" bench=0 render=0 real=0
while [ $# -gt 0 ]; do
  case "$1" in
    --all)
      args+=(--bench --afl-correct-seconds 600 --lf-correct-seconds 600
             --tmin lost-update,412-on-match,etag-from-length,racy-if-match)
      bench=1 real=1 ;;
    --realservers) real=1 ;;
    --no-build) build=0 ;;
    --engines) engines=$2; args+=("$1" "$2"); shift ;;
    --engines=*) engines=${1#*=}; args+=("$1") ;;
    --bench) bench=1; args+=("$1") ;;
    --render-only) render=1; args+=("$1") ;;
    -h|--help) awk 'NR > 1 && /^set /{exit} NR > 1' "$0"; exec python3 bench/eval_report.py --help ;;
    *) args+=("$1") ;;
  esac
  shift
done

has() { [[ ",$engines," == *",$1,"* ]]; }

configure() {  # configure DIR cmake-args...: only when DIR has no build system yet
  local dir=$1; shift
  [ -f "$dir/build.ninja" ] || nice -n 5 cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}

if [ "$build" -eq 1 ] && [ "$render" -eq 0 ]; then
  targets=(dualfuzz)
  has crashonly && targets+=(crash_only_bench)
  [ "$bench" -eq 1 ] && targets+=(throughput_bench jepsen_bench)
  has afl && [ ! -f build-afl/mutator/libdualfuzz_afl_mutator.so ] &&
    targets+=(dualfuzz_afl_mutator)
  configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_TESTS=OFF
  nice -n 5 cmake --build build -j "$JOBS" --target "${targets[@]}"
  if has libfuzzer || [ "$real" -eq 1 ]; then
    configure build-lf -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_BUILD_TESTS=OFF -DDUALFUZZ_BUILD_BENCH=OFF \
      -DDUALFUZZ_BUILD_AFL_MUTATOR=OFF
    nice -n 5 cmake --build build-lf -j "$JOBS" --target http_inprocess_fuzzer
  fi
  if has afl; then
    CC=afl-clang-fast CXX=afl-clang-fast++ AFL_QUIET=1 configure build-afl-target \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_FUZZERS=ON \
      -DDUALFUZZ_BUILD_TESTS=OFF -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_AFL_MUTATOR=OFF
    AFL_QUIET=1 nice -n 5 cmake --build build-afl-target -j "$JOBS" --target http_inprocess_fuzzer
  fi
fi

if [ "$engines" != none ] || [ "$bench" -eq 1 ] || [ "$real" -eq 0 ]; then
  python3 bench/eval_report.py "${args[@]}"
fi
if [ "$real" -eq 1 ]; then
  if [ "$render" -eq 1 ]; then
    python3 bench/eval_realservers.py --reuse
  else
    python3 bench/eval_realservers.py --connections 2,1 \
      --libfuzzer build-lf/tests/fuzz/http_inprocess_fuzzer
  fi
fi
