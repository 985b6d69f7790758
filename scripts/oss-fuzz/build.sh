#!/bin/bash -eu
# OSS-Fuzz build script (https://google.github.io/oss-fuzz/getting-started/new-project-guide/):
# builds every fuzz target of tests/fuzz/ with the environment's compilers,
# flags and fuzzing engine into $OUT, each with <name>_seed_corpus.zip,
# <name>.dict and <name>.options, and <name>.known_violations when
# scripts/oss-fuzz/ has one. That includes lighttpd_inprocess_fuzzer
# (lighttpd 1.4.69 linked into the target, no daemon: docs/real-servers.md)
# when lighttpd's source is there, $SRC/lighttpd1.4 (the Dockerfile's git
# clone) unless DUALFUZZ_LIGHTTPD_SRC says otherwise.
#
#   $CC $CXX $CFLAGS $CXXFLAGS  compilers and flags (sanitizers, coverage)
#   $LIB_FUZZING_ENGINE         linked into each target: -fsanitize=fuzzer,
#                               /usr/lib/libAFLDriver.a, ...
#   $SRC $WORK $OUT             sources (the repository is $SRC/dualfuzz unless
#                               DUALFUZZ_SRC says otherwise), scratch, results
#
# Our libraries are static archives and $CXX links (through CMake). Z3 is the
# one shared dependency (no static libz3 on Debian/Ubuntu), linked into each
# target (DUALFUZZ_BUILD_FUZZERS turns DUALFUZZ_LAZY_Z3 off, so no module
# is dlopen()ed at run time): it is copied to
# $OUT/lib and found through RUNPATH $ORIGIN/lib, as the runner image has
# no libz3 (as is any other shared library a target needs beyond libc's and
# the C++ runtime's). scripts/oss-fuzz/check.sh runs this outside Docker.
#
# Known violations: a target reads <its executable>.known_violations, next
# to it in $OUT (OSS-Fuzz runs a target with its options file alone, so no
# environment variable reaches it): a violation one of its patterns matches
# is counted, not a crash. lighttpd_inprocess_fuzzer's lists lighttpd
# 1.4.69's judged RFC violations (If-Match, If-None-Match and
# If-Unmodified-Since ignored on GET, ...), which would otherwise end every
# session within seconds; any other violation still aborts. See
# docs/fuzzing.md, "Known violations".
#
# lighttpd: scripts/subjects/build-inprocess.sh builds it from that tree
# (./autogen.sh first in a git checkout) with $CC and $CFLAGS (--env-flags:
# the sanitizers, -fsanitize=fuzzer-no-link or afl-clang-fast's own
# instrumentation), with scripts/subjects/patches/lighttpd-options-missing-path.patch
# (unpatched 1.4.69 never finishes an OPTIONS on a missing path, and every seed
# with one would wait out the message timeout), and the libraries it links
# (sqlite3, libxml2 with ICU and lzma, pcre2, uuid, zlib) as static archives
# (--static-libs), which the runner image lacks.
set -euo pipefail
SRC_DIR=${DUALFUZZ_SRC:-$SRC/dualfuzz}
BUILD=$WORK/dualfuzz-build
HERE=$SRC_DIR/scripts/oss-fuzz
JOBS=${JOBS:-$(nproc)}

# lighttpd for lighttpd_inprocess_fuzzer, when its source is there.
LIGHTTPD_SRC=${DUALFUZZ_LIGHTTPD_SRC:-$SRC/lighttpd1.4}
lighttpd=()
if [ -f "$LIGHTTPD_SRC/configure.ac" ]; then
  dir=$WORK/lighttpd-inprocess
  DUALFUZZ_CACHE=${DUALFUZZ_CACHE:-$WORK/dualfuzz-cache} JOBS=$JOBS \
    "$SRC_DIR/scripts/subjects/build-inprocess.sh" lighttpd --env-flags --static-libs \
    --source "$LIGHTTPD_SRC" --out "$dir" \
    --patch "$SRC_DIR/scripts/subjects/patches/lighttpd-options-missing-path.patch" >/dev/null
  lighttpd=(-DDUALFUZZ_LIGHTTPD_INPROCESS="$dir")
  echo "oss-fuzz build: $(cat "$dir/.dualfuzz-source"), for lighttpd_inprocess_fuzzer"
else
  echo "oss-fuzz build: no lighttpd source in $LIGHTTPD_SRC: no lighttpd_inprocess_fuzzer"
fi

# CMAKE_BUILD_TYPE=None: only $CXXFLAGS count (OSS-Fuzz picks -O and -g), and
# assertions stay on. The engine is linked by tests/fuzz/CMakeLists.txt.
cmake -S "$SRC_DIR" -B "$BUILD" -G Ninja \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE=None \
  -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DDUALFUZZ_BUILD_TESTS=OFF -DDUALFUZZ_BUILD_BENCH=OFF -DDUALFUZZ_BUILD_AFL_MUTATOR=OFF \
  -DCMAKE_BUILD_RPATH="\$ORIGIN/lib" -DCMAKE_BUILD_WITH_INSTALL_RPATH=OFF \
  ${lighttpd[@]+"${lighttpd[@]}"}
cmake --build "$BUILD" -j "$JOBS" --target dualfuzz_fuzzers

# Shared libraries the targets need that a runner image lacks: all but
# libc's (libcrypt with it: Ubuntu's libc6 needs libcrypt1; lighttpd links it
# in a build without ASan, whose runtime has crypt_r), the dynamic loader and
# the C++ runtime (libz3; lighttpd's others are static).
mkdir -p "$OUT/lib"
for f in "$BUILD"/tests/fuzz/*_fuzzer; do
  ldd "$f" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libcrypt|libstdc\+\+|libgcc_s|ld-linux.*)\.so/ {print $3}' |
    while read -r lib; do cp -L "$lib" "$OUT/lib/"; done
done

n=0
for f in "$BUILD"/tests/fuzz/*_fuzzer; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  cp "$f" "$OUT/$name"

  # Seeds: the target's own corpus, else (lighttpd) the reference server's
  # scripts, else the HTTP example scripts.
  seeds=$SRC_DIR/corpora/fuzz/$name
  [ -d "$seeds" ] || [ "$name" != lighttpd_inprocess_fuzzer ] ||
    seeds=$SRC_DIR/corpora/fuzz/http_inprocess_fuzzer
  [ -d "$seeds" ] || seeds=$SRC_DIR/corpora/http
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$seeds" && zip -q -j "$OUT/${name}_seed_corpus.zip" ./*)

  # Dictionary: HTTP wire tokens for the codec targets, script tokens else.
  case "$name" in
    http_request_parser_fuzzer | http_response_parser_fuzzer) dict=http.dict ;;
    *) dict=script.dict ;;
  esac
  cp "$HERE/dicts/$dict" "$OUT/$name.dict"

  # The target's known violations (read from next to its executable).
  rm -f "$OUT/$name.known_violations"
  if [ -f "$HERE/$name.known_violations" ]; then
    cp "$HERE/$name.known_violations" "$OUT/$name.known_violations"
  fi

  # 4 KiB inputs, as scripts/run-fuzzers.sh uses: enough for dozens of steps.
  cat >"$OUT/$name.options" <<EOF
[libfuzzer]
max_len = 4096
dict = $name.dict
EOF
  n=$((n + 1))
done
echo "oss-fuzz build: $n fuzz targets in $OUT"
