#!/usr/bin/env bash
# Builds a real server from its Debian source package with clang and the
# server-coverage instrumentation (-fsanitize-coverage=trace-pc-guard, linked
# with harness/coverage/sancov_shm.c as libdualfuzz_sancov.so), optionally
# with patches applied in order (a fix, a mutant), and installs it into DIR;
# prints DIR.
#
#   scripts/subjects/build-instrumented.sh lighttpd                  # -> ~/.cache/dualfuzz/lighttpd-<id>
#   scripts/subjects/build-instrumented.sh lighttpd --patch m.patch --out /tmp/l-m
#   scripts/subjects/build-instrumented.sh lighttpd --patch fix.patch --patch m.patch
#   LIGHTTPD=DIR/sbin/lighttpd scripts/subjects/subject.sh start lighttpd 18080 /tmp/s
#
# The build started with DUALFUZZ_COVERAGE_SHM=/name writes its edges into
# that shared-memory map (subject.sh passes it through); without it the
# server runs as if uninstrumented. Cached: the build id hashes the runtime,
# this script and the patches, and a DIR holding that id is not rebuilt; the
# source package is fetched once (apt-get source, after adding a deb-src
# entry next to the system's, in its own file) into $DUALFUZZ_CACHE
# (default ~/.cache/dualfuzz), configured and built once unpatched, and a
# patched build recompiles only the files the patch touches.
# Environment: JOBS (default 2), DUALFUZZ_CACHE.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
usage() { awk 'NR > 1 && /^set /{exit} NR > 1' "$0" >&2; exit 2; }
NAME=${1:-}; [ -n "$NAME" ] || usage; shift
PATCHES=() OUT=""
while (($#)); do
  case $1 in
    --patch)
      [ -f "${2:?--patch FILE}" ] || { echo "build-instrumented: no patch $2" >&2; exit 2; }
      PATCHES+=("$(realpath "$2")"); shift 2 ;;
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    *) usage ;;
  esac
done
[ "$NAME" = lighttpd ] || { echo "build-instrumented: only lighttpd so far" >&2; exit 2; }
JOBS=${JOBS:-2}
CACHE=${DUALFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz}
RUNTIME=$ROOT/harness/coverage/sancov_shm.c
ID=$(cat "$RUNTIME" "$ROOT/harness/include/dualfuzz/harness/coverage_map.h" "$0" \
  ${PATCHES[@]+"${PATCHES[@]}"} | sha256sum | cut -c1-12)
OUT=$(realpath -m "${OUT:-$CACHE/$NAME-$ID}")
if [ -x "$OUT/sbin/lighttpd" ] && [ "$(cat "$OUT/.dualfuzz-build-id" 2>/dev/null)" = "$ID" ]; then
  echo "$OUT"; exit 0
fi

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# The pristine source tree (Debian's patches applied by dpkg-source), once.
SRC_DIR=$CACHE/src/$NAME
fetch_source() {
  [ -f "$SRC_DIR/.fetched" ] && return 0
  apt_install clang ccache dpkg-dev
  if ! apt-cache showsrc "$NAME" 2>/dev/null | grep -q '^Package:'; then
    local list=/etc/apt/sources.list.d/dualfuzz-deb-src.sources
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        $SUDO tee "$list" >/dev/null
    else  # the older one-line format
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        $SUDO tee /etc/apt/sources.list.d/dualfuzz-deb-src.list >/dev/null
    fi
    $SUDO apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get build-dep -y -qq "$NAME" >/dev/null
  rm -rf "$SRC_DIR" && mkdir -p "$SRC_DIR"
  (cd "$SRC_DIR" && apt-get source -qq "$NAME" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
  compgen -G "$SRC_DIR/$NAME-*/configure" >/dev/null ||
    { echo "build-instrumented: apt-get source $NAME gave no source tree" >&2; exit 2; }
  touch "$SRC_DIR/.fetched"
}
fetch_source
apt_install clang ccache
PRISTINE=$(compgen -G "$SRC_DIR/$NAME-*/configure" | head -1); PRISTINE=${PRISTINE%/configure}

# The runtime, one per version of it, shared by every build (their rpath):
# one copy for the executable and every module it dlopen()s (a copy in
# each would hand out colliding edge indices).
RT_DIR=$CACHE/runtime-$(cat "$RUNTIME" "$ROOT/harness/include/dualfuzz/harness/coverage_map.h" |
  sha256sum | cut -c1-12)
if [ ! -f "$RT_DIR/libdualfuzz_sancov.so" ]; then
  mkdir -p "$RT_DIR"
  clang -O2 -fPIC -shared -I"$ROOT/harness/include" "$RUNTIME" -o "$RT_DIR/.tmp.so" -lpthread
  mv "$RT_DIR/.tmp.so" "$RT_DIR/libdualfuzz_sancov.so"
fi

# The unpatched tree configured and built once, and kept: a patched build
# copies it and recompiles only what the patch touches (seconds, not the
# minutes of configure + make).
BASE=$CACHE/build/$NAME-base-$(cat "$RUNTIME" "$ROOT/harness/include/dualfuzz/harness/coverage_map.h" \
  "$0" | sha256sum | cut -c1-12)
if [ ! -f "$BASE/.built" ]; then
  rm -rf "$BASE" && mkdir -p "$(dirname "$BASE")" && cp -a "$PRISTINE" "$BASE"
  (
    cd "$BASE"
    # Debian's options for mod_webdav (properties and locks: sqlite,
    # libxml2); the other modules are not loaded by subject.sh. The runtime
    # goes in LDFLAGS, not LIBS: configure also links test programs for the
    # build machine's gcc, with LIBS but without LDFLAGS.
    # -fno-sanitize-link-runtime: else clang links compiler-rt's weak default
    # callbacks into the executable, and they win over the runtime's. The
    # prefix is the install's (make install prefix=DIR); subject.sh gives
    # the module directory with -m.
    ./configure --prefix="$CACHE/$NAME-unused-prefix" --with-webdav-props --with-webdav-locks \
      --with-pcre2 CC="ccache clang" CFLAGS="-O2 -g -fsanitize-coverage=trace-pc-guard" \
      LDFLAGS="-fno-sanitize-link-runtime -L$RT_DIR -Wl,-rpath,$RT_DIR -Wl,--no-as-needed -ldualfuzz_sancov"
    nice -n 5 make -j"$JOBS" -C src
  ) >"$BASE/build.log" 2>&1 ||
    { tail -40 "$BASE/build.log" >&2; echo "build-instrumented: build failed ($BASE/build.log)" >&2; exit 1; }
  touch "$BASE/.built"
fi

WORK=$CACHE/build/$NAME-$ID
rm -rf "$WORK" && cp -a "$BASE" "$WORK"
for PATCH in ${PATCHES[@]+"${PATCHES[@]}"}; do
  patch -d "$WORK" -p1 --forward --batch <"$PATCH" >"$WORK/.patch.log" ||
    { cat "$WORK/.patch.log" >&2; echo "build-instrumented: $PATCH does not apply" >&2; exit 2; }
done
rm -rf "$OUT" && mkdir -p "$OUT"
LOG=$WORK/build.log
(cd "$WORK" && nice -n 5 make -j"$JOBS" -C src && make -C src install prefix="$OUT") >"$LOG" 2>&1 ||
  { tail -40 "$LOG" >&2; echo "build-instrumented: build failed ($LOG)" >&2; exit 1; }
[ -f "$OUT/lib/mod_webdav.so" ] || { echo "build-instrumented: no mod_webdav.so in $OUT/lib" >&2; exit 1; }
echo "$ID" >"$OUT/.dualfuzz-build-id"
rm -rf "$WORK"
echo "$OUT"
