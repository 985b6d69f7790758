#!/usr/bin/env bash
# The main job, end to end, from a fresh clone:
#  1. installs the Debian packages (scripts/setup.sh --deps) and builds only
#     the `dualfuzz` program (no tests, benchmarks or examples);
#  2. *finds* a planted bug by fuzzing: black-box `dualfuzz fuzz` against the
#     in-process reference server with bug `lost-update` (an update
#     acknowledged but lost); it shrinks the counterexample, prints it one
#     readable line per message, and writes its message-sequence chart;
#  3. checks two real Jepsen histories shipped in corpora/jepsen/ (Porcupine's
#     MIT-licensed test data): an etcd register history that is not
#     linearizable, and a linearizable multi-key one.
#   scripts/demo.sh            # BUILD=dir to build elsewhere (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CHART=${CHART:-demo-counterexample.html}
DF=$BUILD/cli/dualfuzz
step() { echo; echo "demo: $*"; }
expect() {  # expect STATUS command...
  local want=$1; shift
  set +e; "$@"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || { echo "demo: expected exit $want, got $rc from: $*" >&2; exit 2; }
}

step "installing missing packages, if any (scripts/setup.sh --deps)"
scripts/setup.sh --deps
# shellcheck source=scripts/build-type.sh
. scripts/build-type.sh
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  # The build type of scripts/test.sh (RelWithDebInfo unless BUILD_TYPE says):
  # the test suite later builds only what the demo did not.
  type=$(dualfuzz_build_type "$BUILD")
  step "configuring $BUILD/ ($type, no tests, benchmarks or examples yet)"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DDUALFUZZ_BUILD_TESTS=OFF \
    -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null
fi
# (An existing build directory is kept as it is: only the one target is built.)
step "building the dualfuzz program only (a few minutes on a fresh 2-core machine)"
cmake --build "$BUILD" --target dualfuzz -j "${JOBS:-$(nproc)}"

step "fuzzing the reference server with planted bug 'lost-update' (at most 60 s;" \
  "expect a violation, shrunk; exit 1)"
expect 1 "$DF" fuzz --target inprocess:lost-update --seconds 60 --seed 1 --chart "$CHART"
echo "demo: the message-sequence chart of that counterexample is in $CHART (open it in a browser)"

step "checking a Jepsen history of etcd that is not linearizable (expect REJECTED, exit 1)"
expect 1 "$DF" history --format jepsen-etcd corpora/jepsen/etcd_097.log
step "checking a linearizable Jepsen history of a multi-key store (expect ACCEPTED, exit 0)"
expect 0 "$DF" history --format jepsen-kv corpora/jepsen/c01-ok.txt

step "done: a functional bug found by fuzzing, and a non-linearizable history rejected" \
  "(dualfuzz exits 1 on a violation)."
