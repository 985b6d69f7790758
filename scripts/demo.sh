#!/usr/bin/env bash
# The main job, end to end, on a fresh machine: installs, builds, then lets the
# oracle derived from a register model judge real Jepsen histories of etcd —
# one that a correct register could have produced, one that no correct
# register could (a functional bug: a stale read), and prints the explanation.
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
DF=build/harness/cli/dualfuzz
DATA=${DUALFUZZ_SHARED_DIR:-../shared}/benchdata/jepsen
[ -d "$DATA" ] || DATA=/work/shared/benchdata/jepsen
if [ ! -d "$DATA" ]; then echo "demo: no Jepsen data at $DATA" >&2; exit 2; fi
echo "== a linearizable etcd history (expect ACCEPTED, exit 0)"
"$DF" history --format jepsen-etcd "$DATA/etcd/etcd_002.log"
echo
echo "== a buggy one (expect REJECTED with the message that no correct server explains, exit 1)"
set +e
"$DF" history --format jepsen-etcd "$DATA/etcd/etcd_000.log"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "demo: expected a violation (exit 1), got $rc" >&2; exit 2; }
echo
echo "demo: functional bug found (exit status 1 from dualfuzz = violation)."
