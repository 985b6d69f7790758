#!/usr/bin/env bash
# AFL++ -M main and -S s1 (one -o folder, the custom mutator) per planted bug,
# stopped at the first crash of either instance: seconds to it, and whether
# the crash file aborts the target again (what ClusterFuzzLite or a user
# replays). Needs `scripts/afl/fuzz.sh build` (build-afl-target/) and the
# mutator library of build/ or build-afl/.
#
#   bench/afl_parallel_bugs.sh            # every bug, 60 s at most each
#   SECS=120 bench/afl_parallel_bugs.sh lost-update delete-prefix
# Prints "<bug> found <seconds> replay <1|0>" or "<bug> missed <seconds>".
set -uo pipefail
cd "$(dirname "$0")/.."
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_QUIET=1
MUTATOR=$PWD/build-afl/mutator/libdualfuzz_afl_mutator.so
[ -f "$MUTATOR" ] || MUTATOR=$PWD/build/mutator/libdualfuzz_afl_mutator.so
export AFL_CUSTOM_MUTATOR_LIBRARY=$MUTATOR AFL_CUSTOM_MUTATOR_ONLY=1
T=$PWD/build-afl-target/tests/fuzz/http_inprocess_fuzzer
[ -x "$T" ] && [ -f "$MUTATOR" ] || { echo "run scripts/afl/fuzz.sh build first"; exit 2; }
secs=${SECS:-60}
bugs=("$@")
[ ${#bugs[@]} -gt 0 ] || mapfile -t bugs < <(build/cli/dualfuzz bugs | cut -f1)
racy=$(build/cli/dualfuzz bugs | grep -F $'\t[concurrency]' | cut -f1)
for bug in "${bugs[@]}"; do
  out=${AFL_OUT:-afl-out}/parallel-bugs/$bug
  rm -rf "$out" && mkdir -p "$out/seeds"
  # Seeds that do not show the bug already (afl-fuzz refuses crashing seeds).
  for f in corpora/fuzz/http_inprocess_fuzzer/*; do
    (DUALFUZZ_BUG=$bug "$T" "$f") >/dev/null 2>&1 && cp "$f" "$out/seeds/"
  done
  [ -n "$(ls "$out/seeds")" ] ||
    printf 'req 1 on c0: {"method":"GET","path":"/"}\n' > "$out/seeds/get.txt"
  # (whose findings are races)
  if grep -qx "$bug" <<<"$racy"; then export DUALFUZZ_STOP_ON_RACES=1; else unset DUALFUZZ_STOP_ON_RACES; fi
  start=$(date +%s.%N)
  DUALFUZZ_BUG=$bug afl-fuzz -s 1 -V "$secs" -i "$out/seeds" -o "$out/afl" -M main -- "$T" \
    > "$out/main.log" 2>&1 &
  m=$!
  DUALFUZZ_BUG=$bug afl-fuzz -s 2 -V "$secs" -i "$out/seeds" -o "$out/afl" -S s1 -- "$T" \
    > "$out/s1.log" 2>&1 &
  s=$!
  found=""
  while kill -0 $m 2>/dev/null || kill -0 $s 2>/dev/null; do
    found=$(ls "$out"/afl/*/crashes/id:* 2>/dev/null | head -1)
    [ -n "$found" ] && break
    sleep 0.25
  done
  t=$(python3 -c "import time; print(round(time.time() - $start, 1))")
  kill $m $s 2>/dev/null
  wait $m $s 2>/dev/null
  if [ -n "$found" ]; then
    r=0
    (DUALFUZZ_BUG=$bug "$T" "$found") >/dev/null 2>&1 || r=1
    echo "$bug found $t replay $r"
  else
    echo "$bug missed $t"
  fi
done
