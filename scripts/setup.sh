#!/usr/bin/env bash
# Idempotent set-up: installs the Debian packages dualfuzz needs (apt-get update
# at most once, only when something is missing), then configures and builds.
#   scripts/setup.sh            # deps + release build in build/
#   scripts/setup.sh --deps     # deps only
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake ninja-build g++ clang libclang-rt-14-dev llvm unison
      libz3-dev libboost-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      libbenchmark-dev libcli11-dev libgumbo-dev pkg-config afl++ zip python3
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

JOBS=${JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS"
