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
#   scripts/subjects/build-instrumented.sh nginx                     # -> ~/.cache/dualfuzz/nginx-<id>
#   NGINX_BIN=DIR/sbin/nginx scripts/subjects/subject.sh start nginx 18080 /tmp/s
#   scripts/subjects/build-instrumented.sh apache2                   # -> ~/.cache/dualfuzz/apache2-<id>
#   APACHE2_BIN=DIR/sbin/apache2 scripts/subjects/subject.sh start apache2 18080 /tmp/s
#   scripts/subjects/build-instrumented.sh lighttpd --profile        # source-based coverage instead
#
# --profile builds with clang's source-based coverage (-fprofile-instr-generate
# -fcoverage-mapping) instead of the edge map: a build for reading which lines
# a campaign reached (scripts/subjects/source-coverage.sh), not for steering
# an engine. It writes LLVM_PROFILE_FILE when the server exits.
#
# Servers: lighttpd (mod_webdav and Debian's default modules, as DIR/lib/*.so)
# and nginx (Debian's static configure options without the dynamic modules
# and mail/stream: the dav module, threads, ssl, v2 and the other static
# http modules; one executable, DIR/sbin/nginx). nginx forks workers: the
# map is mapped before main() and inherited, so master and workers count
# into the same map (the runtime records the newest child's pid, i.e. the
# worker's, and a worker respawned after a crash shows as a restart).
# apache2: httpd with Debian's static modules (so, watchdog, log_config,
# logio, version, unixd) and, as DIR/modules/*.so, the ones subject.sh loads
# (mpm_event, authz_core, dav, dav_fs), against the system's APR and
# APR-util; DIR/sbin/apache2. Like nginx it forks (a parent and a child that
# serves); httpd reads its configuration twice at start-up and unloads and
# reloads the modules in between, so each module's guards are numbered twice
# (the first numbering only counts the first configuration pass).
#
# The build started with DUALFUZZ_COVERAGE_SHM=/name writes its edges into
# that shared-memory map (subject.sh passes it through); without it the
# server runs as if uninstrumented. Cached: the build id hashes the runtime,
# this script and the patches, and a DIR holding that id is not rebuilt; the
# source package is fetched once (apt-get source, after adding a deb-src
# entry next to the system's, in its own file) into $DUALFUZZ_CACHE
# (default ~/.cache/dualfuzz), configured and built once unpatched, and a
# patched build recompiles only the files the patch touches. DIR holds
# .dualfuzz-build-id, .dualfuzz-source (the Debian source package built) and
# .dualfuzz-patches (the patches' file names, empty when unpatched).
# Environment: JOBS (default 2), DUALFUZZ_CACHE.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
usage() { awk 'NR > 1 && /^set /{exit} NR > 1' "$0" >&2; exit 2; }
NAME=${1:-}; [ -n "$NAME" ] || usage; shift
PATCHES=() OUT="" MODE=edges
while (($#)); do
  case $1 in
    --profile) MODE=profile; shift ;;
    --patch)
      [ -f "${2:?--patch FILE}" ] || { echo "build-instrumented: no patch $2" >&2; exit 2; }
      PATCHES+=("$(realpath "$2")"); shift 2 ;;
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    *) usage ;;
  esac
done
case $NAME in
  lighttpd | nginx | apache2) ;;
  *) echo "build-instrumented: lighttpd, nginx or apache2 (not $NAME)" >&2; exit 2 ;;
esac
JOBS=${JOBS:-2}
CACHE=${DUALFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz}
RUNTIME=$ROOT/harness/coverage/sancov_shm.c
ID=$(cat "$RUNTIME" "$ROOT/harness/include/dualfuzz/harness/coverage_map.h" "$0" \
  "$ROOT/scripts/subjects/debsrc.sh" \
  ${PATCHES[@]+"${PATCHES[@]}"} | sha256sum | cut -c1-12)
[ "$MODE" = edges ] || ID=$(echo "$MODE-$ID" | sha256sum | cut -c1-12)
OUT=$(realpath -m "${OUT:-$CACHE/$NAME-$ID}")
if [ -x "$OUT/sbin/$NAME" ] && [ "$(cat "$OUT/.dualfuzz-build-id" 2>/dev/null)" = "$ID" ]; then
  echo "$OUT"; exit 0
fi

# apt_install, pristine_source: the source package once into $CACHE/src/$NAME.
# shellcheck source=debsrc.sh
. "$ROOT/scripts/subjects/debsrc.sh"
pristine_source

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

# -fno-sanitize-link-runtime: else clang links compiler-rt's weak default
# callbacks into the executable, and they win over the runtime's.
# --no-as-needed: nothing names the runtime's symbols at link time but the
# instrumentation's calls.
RT_LDFLAGS="-fno-sanitize-link-runtime -L$RT_DIR -Wl,-rpath,$RT_DIR -Wl,--no-as-needed -ldualfuzz_sancov"
INSTR=-fsanitize-coverage=trace-pc-guard
if [ "$MODE" = profile ]; then
  INSTR="-fprofile-instr-generate -fcoverage-mapping" RT_LDFLAGS=-fprofile-instr-generate
fi
configure_lighttpd() {
  # Debian's options for mod_webdav (properties and locks: sqlite,
  # libxml2); the other modules are not loaded by subject.sh. The runtime
  # goes in LDFLAGS, not LIBS: configure also links test programs for the
  # build machine's gcc, with LIBS but without LDFLAGS. The prefix is the
  # install's (make install prefix=DIR); subject.sh gives the module
  # directory with -m.
  ./configure --prefix="$CACHE/$NAME-unused-prefix" --with-webdav-props --with-webdav-locks \
    --with-pcre2 CC="ccache clang" CFLAGS="-O2 -g $INSTR" \
    LDFLAGS="$RT_LDFLAGS"
  nice -n 5 make -j"$JOBS" -C src
}
configure_nginx() {
  # Debian's configure arguments (`nginx -V` of bookworm's package) minus
  # its dynamic modules (geoip, image_filter, perl, xslt, mail, stream) and
  # the mail/stream options; nginx's own configure (auto/), not autoconf.
  # subject.sh gives -p WORK -c WORK/nginx.conf, so the compiled-in paths
  # (prefix, temp directories) are only defaults; the error log before the
  # configuration is read goes to stderr, as Debian's. clang's -Werror
  # (auto/cc/clang) stays: nginx 1.22 builds warning-free with clang 14.
  ./configure --with-cc="ccache clang" \
    --with-cc-opt="-g -O2 $INSTR -fPIC" \
    --with-ld-opt="-fPIC $RT_LDFLAGS" \
    --prefix=/usr/share/nginx --error-log-path=stderr \
    --with-compat --with-debug --with-pcre-jit --with-http_ssl_module \
    --with-http_stub_status_module --with-http_realip_module --with-http_auth_request_module \
    --with-http_v2_module --with-http_dav_module --with-http_slice_module --with-threads \
    --with-http_addition_module --with-http_flv_module --with-http_gunzip_module \
    --with-http_gzip_static_module --with-http_mp4_module --with-http_random_index_module \
    --with-http_secure_link_module --with-http_sub_module
  nice -n 5 make -j"$JOBS"
}

configure_apache2() {
  # Debian's static modules (`apache2 -l`) and, shared, only those
  # subject.sh loads; the rest of Debian's --enable-mods-shared=reallyall is
  # not built. The prefix is unused: subject.sh gives -f and ServerRoot.
  ./configure --prefix="$CACHE/$NAME-unused-prefix" --with-apr=/usr/bin/apr-1-config \
    --with-apr-util=/usr/bin/apu-1-config --with-pcre=/usr/bin/pcre2-config --enable-so \
    --enable-modules=none --enable-mods-static="watchdog log_config logio version unixd" \
    --enable-mods-shared="authz_core dav dav_fs" --enable-mpms-shared=event --with-mpm=event \
    CC="ccache clang" CFLAGS="-O2 -g $INSTR" LDFLAGS="$RT_LDFLAGS" \
    CPPFLAGS="-DBUILD_DATETIME=\\\"$(date -u --date="$(dpkg-parsechangelog -S Date)" +%FT%T)\\\" -DPLATFORM=\\\"Debian\\\""
  # (Debian's buildmark.c wants BUILD_DATETIME, which debian/rules defines.)
  if [ "$MODE" = profile ]; then
    # APR's libtool links the shared modules with gcc (its CC), handing it
    # the compile flags, and gcc has no -fprofile-instr-generate: a copy of
    # it that links with clang.
    sed -E 's/^(LT)?CC="[^"]*"/\1CC="clang"/' /usr/share/apr-1.0/build/libtool >libtool-clang
    sed -i "s|^LIBTOOL = /usr/share/apr-1.0/build/libtool|LIBTOOL = /bin/bash $PWD/libtool-clang|" \
      build/config_vars.mk
  fi
  nice -n 5 make -j"$JOBS"
}

# The unpatched tree configured and built once, and kept: a patched build
# copies it and recompiles only what the patch touches (seconds, not the
# minutes of configure + make). Its id hashes the runtime and the server's
# configure function, not the whole script: an edit elsewhere does not
# rebuild it.
BASE=$CACHE/build/$NAME-base-$( (cat "$RUNTIME" "$ROOT/harness/include/dualfuzz/harness/coverage_map.h"
  declare -f "configure_$NAME"; echo "$INSTR $RT_LDFLAGS") | sha256sum | cut -c1-12)
build_base "$BASE" "configure_$NAME"
WORK=$CACHE/build/$NAME-$ID
patched_copy "$BASE" "$WORK"
# httpd's configure writes absolute paths into its build files: point them
# at the copy (mtimes kept, so that make rebuilds only what a patch touches).
grep -rlIF --exclude='*.log' "$BASE" "$WORK" 2>/dev/null | while read -r f; do
  t=$(stat -c %y "$f"); sed -i "s|$BASE|$WORK|g" "$f"; touch -d "$t" "$f"
done
rm -rf "$OUT" && mkdir -p "$OUT"
LOG=$WORK/build.log
if [ "$NAME" = apache2 ]; then
  # The executable and the modules libtool left in .libs.
  (cd "$WORK" && nice -n 5 make -j"$JOBS" && mkdir -p "$OUT/sbin" "$OUT/modules" &&
    cp httpd "$OUT/sbin/apache2" && find . -path '*/.libs/mod_*.so' -exec cp {} "$OUT/modules/" \;) \
    >"$LOG" 2>&1 || { tail -40 "$LOG" >&2; echo "build-instrumented: build failed ($LOG)" >&2; exit 1; }
  for m in mpm_event authz_core dav dav_fs; do
    [ -f "$OUT/modules/mod_$m.so" ] || { echo "build-instrumented: no mod_$m.so in $OUT/modules" >&2; exit 1; }
  done
elif [ "$NAME" = nginx ]; then
  # One executable, nothing else to install (subject.sh writes the config).
  (cd "$WORK" && nice -n 5 make -j"$JOBS" && mkdir -p "$OUT/sbin" && cp objs/nginx "$OUT/sbin/nginx") \
    >"$LOG" 2>&1 || { tail -40 "$LOG" >&2; echo "build-instrumented: build failed ($LOG)" >&2; exit 1; }
else
  (cd "$WORK" && nice -n 5 make -j"$JOBS" -C src && make -C src install prefix="$OUT") >"$LOG" 2>&1 ||
    { tail -40 "$LOG" >&2; echo "build-instrumented: build failed ($LOG)" >&2; exit 1; }
  [ -f "$OUT/lib/mod_webdav.so" ] || { echo "build-instrumented: no mod_webdav.so in $OUT/lib" >&2; exit 1; }
fi
if [ "$MODE" = profile ]; then
  # llvm-cov reads the sources the coverage mapping names, which are WORK's
  # (removed next): kept in DIR/source, WORK's path in .dualfuzz-build-dir
  # (llvm-cov -path-equivalence=WORK,DIR/source).
  mkdir -p "$OUT/source"
  (cd "$WORK" && find . \( -name '*.c' -o -name '*.h' \) -print0 | tar --null -T - -cf -) |
    tar -C "$OUT/source" -xf -
  echo "$WORK" >"$OUT/.dualfuzz-build-dir"
fi
finish_build "$OUT" "$ID" "$WORK"
