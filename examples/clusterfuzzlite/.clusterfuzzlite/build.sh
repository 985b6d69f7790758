#!/bin/bash -eu
# ClusterFuzzLite (and OSS-Fuzz) build of a project that fuzzes its own
# server with dualfuzz: the template's project is dualfuzz's
# examples/out_of_tree (the Beast file server and its fuzz target), with
# dualfuzz added by add_subdirectory() from $SRC/dualfuzz (the Dockerfile's
# clone). Copy this folder's .clusterfuzzlite/ and .github/ (or
# .gitlab-ci.yml) into your repository and change the three names below.
#
#   $CC $CXX $CFLAGS $CXXFLAGS  compilers and flags (sanitizer, coverage)
#   $LIB_FUZZING_ENGINE         libFuzzer (-fsanitize=fuzzer) or AFL++'s driver
#   $SRC $WORK $OUT             sources, scratch, results
#
# Into $OUT: each target, <target>_seed_corpus.zip, <target>.dict,
# <target>.options, and in $OUT/lib the shared libraries the runner image
# lacks (libz3), found through RUNPATH $ORIGIN/lib.
# dualfuzz's scripts/check-clusterfuzzlite.sh runs this outside Docker.
set -euo pipefail
DUALFUZZ_SRC=${DUALFUZZ_SRC:-$SRC/dualfuzz}
PROJECT_SRC=${PROJECT_SRC:-$DUALFUZZ_SRC/examples/out_of_tree}  # your CMakeLists.txt
TARGETS=${TARGETS:-file_server_fuzzer}                          # your fuzz targets
SEEDS=${SEEDS:-$DUALFUZZ_SRC/examples/beast_file_server/seeds}  # scripts to start from
BUILD=$WORK/build
JOBS=${JOBS:-$(nproc)}

# CMAKE_BUILD_TYPE=None: only $CXXFLAGS count (the runner picks -O, -g and
# the sanitizer). DUALFUZZ_LAZY_Z3=OFF: Z3 linked into the target (copied
# to $OUT/lib below), not a module loaded at run time, which the
# sanitizer's flags would leave without its runtime.
cmake -S "$PROJECT_SRC" -B "$BUILD" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_BUILD_TYPE=None \
  -DDUALFUZZ_SOURCE_DIR="$DUALFUZZ_SRC" -DFUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DDUALFUZZ_LAZY_Z3=OFF \
  -DCMAKE_BUILD_RPATH="\$ORIGIN/lib"
# shellcheck disable=SC2086
cmake --build "$BUILD" -j "$JOBS" --target $TARGETS

mkdir -p "$OUT/lib"
for name in $TARGETS; do
  f=$(find "$BUILD" -name "$name" -type f -perm -u+x | head -1)
  [ -n "$f" ] || { echo "build.sh: $name was not built"; exit 1; }
  cp "$f" "$OUT/$name"
  # Shared libraries beyond libc's and the C++ runtime's (libz3).
  ldd "$f" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libcrypt|libstdc\+\+|libgcc_s|ld-linux.*)\.so/ {print $3}' |
    while read -r lib; do cp -L "$lib" "$OUT/lib/"; done
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$SEEDS" && zip -q -j "$OUT/${name}_seed_corpus.zip" ./*)
  cp "$DUALFUZZ_SRC/scripts/oss-fuzz/dicts/script.dict" "$OUT/$name.dict"
  # 4 KiB inputs: dozens of script steps.
  printf '[libfuzzer]\nmax_len = 4096\ndict = %s.dict\n' "$name" > "$OUT/$name.options"
done
echo "build.sh: $(echo $TARGETS | wc -w) fuzz target(s) in $OUT"
