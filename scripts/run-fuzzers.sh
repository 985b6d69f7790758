#!/usr/bin/env bash
# Runs every libFuzzer target built in BUILD_DIR for SECONDS each, seeded from
# corpora/<target>/ when present. Exit status non-zero on any finding. The
# example's target (examples/beast_file_server) runs with its planted bug
# fixed: a crash there is a false alarm of dualfuzz, or a sanitizer finding.
#   scripts/run-fuzzers.sh build-fuzz 30
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?build dir}; SECS=${2:-30}
fail=0; n=0
export FILE_SERVER_FIXED=1
for f in "$BUILD"/tests/fuzz/*_fuzzer "$BUILD"/examples/*/*_fuzzer; do
  [ -x "$f" ] || continue
  name=$(basename "$f"); n=$((n+1))
  work=$(mktemp -d); seeds=()
  [ -d "corpora/fuzz/$name" ] && seeds=("corpora/fuzz/$name")
  [ -d "$(dirname "$f" | sed "s|^$BUILD/||")/seeds" ] &&
    seeds=("$(dirname "$f" | sed "s|^$BUILD/||")/seeds")
  echo "fuzz: $name for ${SECS}s"
  if ! (cd "$work" && "$OLDPWD/$f" -max_total_time="$SECS" -print_final_stats=1 \
        -max_len=4096 "$work" "${seeds[@]/#/$OLDPWD/}" >"$work/log" 2>&1); then
    echo "fuzz: $name FOUND A FAILURE"; tail -60 "$work/log"; fail=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$work/log" | tail -2
  fi
  rm -rf "$work"
done
echo "fuzz: $n targets run"
if [ "$fail" -ne 0 ]; then echo "0 passed, 1 failed"; exit 1; fi
