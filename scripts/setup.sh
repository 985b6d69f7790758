#!/usr/bin/env bash
# Idempotent set-up: installs the Debian packages dualfuzz needs (apt-get update
# at most once, only when something is missing), then configures and builds.
#   scripts/setup.sh            # deps + the full build in build/ (tests, examples, benchmarks)
#   scripts/setup.sh --deps     # deps only
# One build type for every script that builds build/ (this one, scripts/demo.sh,
# scripts/test.sh): the one already cached in build/, else $BUILD_TYPE
# (default RelWithDebInfo, as CMakeLists.txt), so running them in any order
# builds each object once. The options that decide which tests exist are forced
# ON whatever an earlier configure (demo.sh, evaluate.sh) cached.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake ninja-build g++ clang libclang-rt-14-dev llvm unison
      libz3-dev libboost-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      libbenchmark-dev libcli11-dev libgumbo-dev zlib1g-dev pkg-config afl++ zip python3
      libjemalloc2)  # (linked into dualfuzz and jepsen_bench when present)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ "${1:-}" = "--deps" ] && exit 0

BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
# shellcheck source=scripts/build-type.sh
. scripts/build-type.sh
type=$(dualfuzz_build_type "$BUILD")
echo "setup: configuring $BUILD/ ($type; tests, examples and benchmarks ON)"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DDUALFUZZ_BUILD_TESTS=ON \
  -DDUALFUZZ_BUILD_EXAMPLES=ON -DDUALFUZZ_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS"
