#!/usr/bin/env bash
# The whole test suite from a fresh machine: set-up, build, ctest, then every
# libFuzzer target (clang, ASan+UBSan) for a bounded time. Fails on any failure.
#   scripts/test.sh                    # FUZZ_SECONDS=30 per fuzz target
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
JOBS=${JOBS:-$(nproc)}
(cd build && ctest --output-on-failure -j "$JOBS")

# Fuzz build: clang + libFuzzer + ASan/UBSan, separate tree.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_SANITIZE=ON \
  -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$JOBS" --target dualfuzz_fuzzers
scripts/run-fuzzers.sh build-fuzz "${FUZZ_SECONDS:-30}"
