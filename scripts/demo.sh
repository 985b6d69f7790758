#!/usr/bin/env bash
# The main job, end to end, on a fresh machine: installs, builds, then
#  1. plays an HTTP test script against the in-process reference server —
#     correct (no violation), then with a planted bug (an update acknowledged
#     but lost): the oracle derived from the HTTP model reports the violation;
#  2. checks real Jepsen histories of etcd with the oracle derived from a
#     register model (a linearizable one, then one with a stale read).
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
DF=build/cli/dualfuzz
SCRIPT=corpora/http/conditional-put.txt
expect() {  # expect STATUS command...
  local want=$1; shift
  set +e; "$@"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || { echo "demo: expected exit $want, got $rc from: $*" >&2; exit 2; }
}
echo "== $SCRIPT against the correct reference server (expect: no violation, exit 0)"
expect 0 "$DF" run --target inprocess "$SCRIPT"
echo
echo "== the same script against the server with planted bug 'lost-update' (expect a VIOLATION, exit 1)"
expect 1 "$DF" run --target inprocess:lost-update "$SCRIPT"
DATA=${DUALFUZZ_SHARED_DIR:-../shared}/benchdata/jepsen
[ -d "$DATA" ] || DATA=/work/shared/benchdata/jepsen
if [ -d "$DATA" ]; then
  echo
  echo "== a linearizable etcd history (expect ACCEPTED)"
  expect 0 "$DF" history --format jepsen-etcd "$DATA/etcd/etcd_002.log"
  echo "== an etcd history with a stale read (expect REJECTED)"
  expect 1 "$DF" history --format jepsen-etcd "$DATA/etcd/etcd_000.log"
fi
echo
echo "demo: functional bugs found (exit status 1 from dualfuzz = violation)."
