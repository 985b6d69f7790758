#!/usr/bin/env bash
# dualfuzz as another project uses it (issue 44), from an already built tree:
#   1. `cmake --install BUILD --prefix SCRATCH/prefix` (nothing is rebuilt),
#      then examples/out_of_tree built against it with
#      find_package(dualfuzz CONFIG), and its fuzz target run once on the
#      example's seeds with the server's bug fixed (exit 0: the installed
#      libraries, headers and Z3 back end work together);
#   2. the same project with dualfuzz added by add_subdirectory(): tests,
#      benchmarks and examples off, no GoogleTest needed, and "all" nothing
#      beyond what the example links. Building that (66 objects) takes
#      longer than this check may (>5 min on 2 busy cores), so only one small
#      library target is built: the Z3 back end (2 objects), unless
#      CHECK_PACKAGE_SUBDIR_TARGET names another (file_server_fuzzer: all).
#   scripts/check-package.sh [BUILD]    # BUILD: build/ by default
# ctest runs it (label `package`). Environment: CXX for the example
# (default clang++ when installed, for -fsanitize=fuzzer; else c++, whose
# target only replays files), JOBS (2), KEEP=1 keeps the scratch folder.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
jobs=${JOBS:-2}
if [ -z "${CXX:-}" ]; then
  if command -v clang++ >/dev/null; then CXX=clang++; else CXX=c++; fi
fi
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
build_type=$(cache CMAKE_BUILD_TYPE)
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# A sanitized build's libraries need the sanitizers' runtimes in the program.
flags=()
if [ "$(cache DUALFUZZ_SANITIZE)" = ON ]; then
  flags=("-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=undefined")
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/dualfuzz-package.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "check-package: scratch folder $scratch"
else trap 'rm -rf "$scratch"' EXIT; fi
fail() { echo "check-package: FAILED: $*" >&2; exit 1; }
step() { echo "check-package: $*"; }
log() {  # log NAME CMD...: CMD's output to SCRATCH/NAME.log, shown on failure
  local name=$1; shift
  if ! "$@" >"$scratch/$name.log" 2>&1; then
    tail -n 60 "$scratch/$name.log" >&2
    fail "$name: $*"
  fi
}

# 1. The installed package.
prefix=$scratch/prefix
step "cmake --install $build --prefix $prefix"
log install cmake --install "$build" --prefix "$prefix"
for f in lib/cmake/dualfuzz/dualfuzzConfig.cmake lib/cmake/dualfuzz/dualfuzzConfigVersion.cmake \
         lib/cmake/dualfuzz/dualfuzzTargets.cmake include/dualfuzz/fuzz_target.h \
         include/dualfuzz/http/protocol.h include/dualfuzz/result.h \
         lib/libdualfuzz_campaign.a bin/dualfuzz; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
log dualfuzz_help "$prefix/bin/dualfuzz" --help

find_dir=$scratch/find_package
step "examples/out_of_tree with find_package(dualfuzz) ($CXX)"
log configure_find cmake -S "$src/examples/out_of_tree" -B "$find_dir" "${generator[@]}" \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${flags[@]}"
found=$(sed -n 's/^dualfuzz_DIR:PATH=//p' "$find_dir/CMakeCache.txt")
[ "$found" = "$prefix/lib/cmake/dualfuzz" ] || fail "dualfuzz_DIR is '$found', not the scratch prefix"
log build_find cmake --build "$find_dir" -j "$jobs"
step "its fuzz target on the example's seeds (the server's bug fixed)"
# Each file runs once; the Z3 back end is the installed one, copied beside it.
(cd "$find_dir" && export FILE_SERVER_FIXED=1 && log run_find ./file_server_fuzzer \
  "$src"/examples/beast_file_server/seeds/*)

# 2. add_subdirectory().
sub_dir=$scratch/add_subdirectory
step "examples/out_of_tree with add_subdirectory(dualfuzz) ($CXX)"
log configure_sub cmake -S "$src/examples/out_of_tree" -B "$sub_dir" "${generator[@]}" \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE="$build_type" -DDUALFUZZ_SOURCE_DIR="$src" \
  "${flags[@]}"
for opt in DUALFUZZ_BUILD_TESTS DUALFUZZ_BUILD_BENCH DUALFUZZ_BUILD_EXAMPLES DUALFUZZ_INSTALL; do
  grep -qx "$opt:BOOL=OFF" "$sub_dir/CMakeCache.txt" || fail "$opt is not OFF under add_subdirectory"
done
if grep -q '^GTest_DIR' "$sub_dir/CMakeCache.txt"; then fail "GoogleTest was looked for"; fi
if [ ${#generator[@]} -gt 0 ]; then
  compiles() { ninja -C "$sub_dir" -t commands "$1" | grep -c -- ' -c ' || true; }
  all=$(compiles all) needed=$(compiles file_server_fuzzer)
  step "\"all\" compiles $all files, the fuzz target needs $needed"
  [ "$all" = "$needed" ] || fail "\"all\" builds more than the example links"
fi
target=${CHECK_PACKAGE_SUBDIR_TARGET:-dualfuzz_z3}
step "building $target there"
log build_sub cmake --build "$sub_dir" -j "$jobs" --target "$target"
step "OK"
