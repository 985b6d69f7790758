#!/usr/bin/env bash
# Builds lighttpd from its Debian source package (the same tree as
# build-instrumented.sh) for linking into a fuzz target: clang with
# -fsanitize=fuzzer-no-link (the engine's inline counters, so libFuzzer and
# AFL++ see lighttpd's edges directly, no shared memory), static
# (LIGHTTPD_STATIC: mod_indexfile, mod_dirlisting, mod_staticfile and
# mod_webdav compiled in, the modules subject.sh's configuration loads),
# server.c through scripts/subjects/inprocess/lighttpd_inprocess.c (main()
# renamed lighttpd_inprocess_main, no signal handlers, stdio left alone).
# Optionally with patches applied in order (a fix, a mutant). Installs into
# DIR and prints DIR:
#
#   DIR/lib/liblighttpd_inprocess.a   lighttpd's objects
#   DIR/include/lighttpd_inprocess.h  lighttpd_inprocess_main(), _stop()
#   DIR/link-libs                     the libraries it needs (-lsqlite3 ...), one line
#   DIR/sbin/lighttpd                 the same objects as an executable (with
#                                     main, the signal handlers; for replaying
#                                     a finding under subject.sh: LIGHTTPD=)
#
#   scripts/subjects/build-inprocess.sh lighttpd          # -> ~/.cache/dualfuzz/lighttpd-inprocess-<id>
#   scripts/subjects/build-inprocess.sh lighttpd --patch m.patch --out /tmp/l-m
#   scripts/subjects/build-inprocess.sh lighttpd --asan   # ASan too (a target built with
#                                                         # -DDUALFUZZ_SANITIZE=ON)
#   cmake -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR ...           # builds lighttpd_inprocess_fuzzer
#
# For OSS-Fuzz (scripts/oss-fuzz/build.sh) and other builds that bring their
# own source, compilers and flags:
#
#   --source DIR   the lighttpd 1.4.69 tree to build instead of Debian's
#                  source package (nothing is fetched or installed): a release
#                  tree with ./configure, or a git checkout (tag
#                  lighttpd-1.4.69) without one, for which the build's copy
#                  runs ./autogen.sh (autoconf, automake, libtool, pkg-config).
#                  DIR itself is only read.
#   --env-flags    $CC and $CFLAGS exactly as the environment has them (also
#                  DUALFUZZ_ENV_FLAGS=1): OSS-Fuzz's, e.g. CC=clang CFLAGS='-O1
#                  -fno-omit-frame-pointer -gline-tables-only -fsanitize=address
#                  -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link',
#                  or CC=afl-clang-fast (which instruments by itself) with
#                  -fsanitize=address; instead of this script's
#                  '-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link'.
#                  (--asan still adds -fsanitize=address.)
#   --static-libs  DIR/link-libs names the static archives (/usr/lib/.../libxml2.a)
#                  of the libraries lighttpd links, with their own dependencies
#                  (pkg-config --static), wherever the system has one: for a
#                  target run where they are not installed (OSS-Fuzz's runner).
#                  Libraries without an archive stay -lNAME. With ICU's
#                  archives (libxml2's), libstdc++.so.6 too, which they need
#                  in a target linked with libc++.
#
#   scripts/subjects/build-inprocess.sh lighttpd --env-flags --static-libs \
#       --source "$SRC/lighttpd1.4" --patch P --out "$WORK/lighttpd"
#
# Cached like build-instrumented.sh: the build id hashes this script, the
# wrapper and the patches (and a --source tree's files); the unpatched tree is
# configured and built once per source and flags, and a patched build
# recompiles what the patch touches.
# Environment: JOBS (default 2), DUALFUZZ_CACHE, CC (default clang),
# CFLAGS (with --env-flags), DUALFUZZ_ENV_FLAGS. ccache is used when installed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
usage() { awk 'NR > 1 && /^set /{exit} NR > 1' "$0" >&2; exit 2; }
NAME=${1:-}; [ -n "$NAME" ] || usage; shift
PATCHES=() OUT="" ASAN=0 SOURCE="" ENV_FLAGS=${DUALFUZZ_ENV_FLAGS:-0} STATIC_LIBS=0
while (($#)); do
  case $1 in
    --patch)
      [ -f "${2:?--patch FILE}" ] || { echo "build-inprocess: no patch $2" >&2; exit 2; }
      PATCHES+=("$(realpath "$2")"); shift 2 ;;
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    --asan) ASAN=1; shift ;;
    --source)
      if [ ! -f "${2:?--source DIR}/configure.ac" ] || [ ! -d "$2/src" ]; then
        echo "build-inprocess: $2 is not a lighttpd source tree (no configure.ac, src/)" >&2; exit 2
      fi
      SOURCE=$(realpath "$2"); shift 2 ;;
    --env-flags) ENV_FLAGS=1; shift ;;
    --static-libs) STATIC_LIBS=1; shift ;;
    *) usage ;;
  esac
done
[ "$NAME" = lighttpd ] || { echo "build-inprocess: lighttpd only (not $NAME)" >&2; exit 2; }
JOBS=${JOBS:-2}
CACHE=${DUALFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz}
CC=${CC:-clang}
WRAP=$ROOT/scripts/subjects/inprocess
if [ "$ENV_FLAGS" = 1 ]; then
  CFLAGS=${CFLAGS:-}
else
  # -O1 -g: OSS-Fuzz's flags for a fuzzing build. -fno-omit-frame-pointer:
  # stacks of a crash inside lighttpd.
  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link"
fi
((ASAN)) && CFLAGS+=" -fsanitize=address"
# A --source tree's identity: its files' contents (not .git, not the path).
SOURCE_ID=""
if [ -n "$SOURCE" ]; then
  SOURCE_ID=$(cd "$SOURCE" && find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-12)
  version=$(sed -n 's/^AC_INIT(\[lighttpd\], *\[\([^]]*\)\].*/\1/p' "$SOURCE/configure.ac")
  [ "$version" = 1.4.69 ] || echo "build-inprocess: $SOURCE is lighttpd ${version:-?}, not 1.4.69:" \
    "the wrapper and the patches are made for 1.4.69" >&2
fi
# (The default route's id is computed as it always was; a --source tree and
# --static-libs are added only when given.)
ID=$( (cat "$0" "$ROOT/scripts/subjects/debsrc.sh" "$WRAP"/lighttpd_inprocess.[ch] \
  ${PATCHES[@]+"${PATCHES[@]}"}; echo "$CC $CFLAGS"
  [ -z "$SOURCE" ] || echo "source $SOURCE_ID"; ((STATIC_LIBS == 0)) || echo static-libs) |
  sha256sum | cut -c1-12)
OUT=$(realpath -m "${OUT:-$CACHE/$NAME-inprocess-$ID}")
if [ -f "$OUT/lib/liblighttpd_inprocess.a" ] && [ "$(cat "$OUT/.dualfuzz-build-id" 2>/dev/null)" = "$ID" ]; then
  echo "$OUT"; exit 0
fi

# shellcheck source=debsrc.sh
. "$ROOT/scripts/subjects/debsrc.sh"
if [ -n "$SOURCE" ]; then
  PRISTINE=$SOURCE  # (build_base copies it; nothing is built in it)
else
  pristine_source
fi
LAUNCHER=""; command -v ccache >/dev/null && LAUNCHER="ccache "

configure_inprocess() {
  # A git checkout has no configure yet (a release tree, Debian's, has).
  [ -x configure ] || ./autogen.sh
  # Debian's options for mod_webdav (properties and locks: sqlite, libxml2),
  # as build-instrumented.sh; LIGHTTPD_STATIC=yes selects src/Makefile.am's
  # static lighttpd (every module's source in the executable, -DLIGHTTPD_STATIC);
  # which modules plugins_load() knows is src/plugin-static.h, written here.
  LIGHTTPD_STATIC=yes ./configure --prefix="$CACHE/$NAME-unused-prefix" --with-webdav-props \
    --with-webdav-locks --with-pcre2 CC="$LAUNCHER$CC" CFLAGS="$CFLAGS"
  printf 'PLUGIN_INIT(mod_%s)\n' indexfile dirlisting staticfile webdav >src/plugin-static.h
  make -C src versionstamp  # (generated by `make all`, which also builds what is not needed)
  nice -n 5 make -j"$JOBS" -C src lighttpd
}
BASE=$CACHE/build/$NAME-inprocess-base-$( (declare -f configure_inprocess; echo "$CC $CFLAGS"
  [ -z "$SOURCE" ] || echo "source $SOURCE_ID") | sha256sum | cut -c1-12)
build_base "$BASE" configure_inprocess
WORK=$CACHE/build/$NAME-inprocess-$ID
patched_copy "$BASE" "$WORK"
LOG=$WORK/build.log
# Make's own values of the static executable's compile flags, objects and
# libraries (automake's rule for lighttpd-*.o), for the wrapper and the archive.
make_var() {  # make_var VAR...: their values, on one line
  local v expr=""
  for v; do expr+=" \$($v)"; done
  printf 'print-var:\n\t@echo %s\n' "$expr" | make -s -C "$WORK/src" -f Makefile -f - print-var
}
(
  cd "$WORK/src"
  nice -n 5 make -j"$JOBS" lighttpd
  # shellcheck disable=SC2046  # (make's flags, split as make splits them)
  $CC $(make_var DEFS DEFAULT_INCLUDES INCLUDES lighttpd_CPPFLAGS CPPFLAGS AM_CFLAGS CFLAGS) \
    -I"$WRAP" -c "$WRAP/lighttpd_inprocess.c" -o lighttpd_inprocess.o
  objs=$(make_var lighttpd_OBJECTS | tr ' ' '\n' | grep -v '^lighttpd-server\.o$' | grep .)
  rm -f liblighttpd_inprocess.a
  # shellcheck disable=SC2086
  ar rcs liblighttpd_inprocess.a $objs lighttpd_inprocess.o
) >"$LOG" 2>&1 || { tail -40 "$LOG" >&2; echo "build-inprocess: build failed ($LOG)" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT/lib" "$OUT/include" "$OUT/sbin"
cp "$WORK/src/liblighttpd_inprocess.a" "$OUT/lib/"
cp "$WRAP/lighttpd_inprocess.h" "$OUT/include/"
cp "$WORK/src/lighttpd" "$OUT/sbin/lighttpd"
# --static-libs: each -lNAME of lighttpd's with its pkg-config module's static
# dependencies (libxml2 brings ICU, lzma, zlib), then every -lNAME that has an
# archive replaced by its path, each library kept at its last place (the
# order an archive's users before it); libc's own stay -lNAME.
static_libs() {
  local w m libs=() out=() seen=" " i a
  for w in "$@"; do
    case $w in
      -lxml2) m=libxml-2.0 ;; -lsqlite3) m=sqlite3 ;; -lpcre2-8) m=libpcre2-8 ;;
      -luuid) m=uuid ;; -lz) m=zlib ;; *) m="" ;;
    esac
    if [ -n "$m" ] && pkg-config --exists "$m"; then
      # shellcheck disable=SC2207  # (pkg-config's words)
      libs+=($(pkg-config --static --libs-only-l "$m"))
    else
      libs+=("$w")
    fi
  done
  for ((i = ${#libs[@]} - 1; i >= 0; i--)); do
    w=${libs[i]}
    case $seen in *" $w "*) continue ;; esac
    seen+="$w "
    case $w in
      -lc | -lm | -ldl | -lpthread | -lrt | -lcrypt) ;;
      -l*) a=$($CC -print-file-name="lib${w#-l}.a"); [ "$a" = "lib${w#-l}.a" ] || w=$a ;;
    esac
    out=("$w" ${out[@]+"${out[@]}"})
  done
  # ICU's archives are C++ compiled against libstdc++ (std::condition_variable,
  # std::__once_call): a target linked with libc++, as OSS-Fuzz's are
  # (-stdlib=libc++), needs libstdc++ named too. Its shared library: the
  # runner image has it (libz3 needs it as well).
  case " ${out[*]} " in
    *"/libicuuc.a "*)
      a=$($CC -print-file-name=libstdc++.so.6)
      [ "$a" != libstdc++.so.6 ] || a=-lstdc++
      out+=("$a") ;;
  esac
  echo "${out[*]}"
}
LINK_LIBS=$(make_var lighttpd_LDADD LIBS | tr -s ' ' | sed 's/^ //; s/ $//')
# shellcheck disable=SC2086  # (make's words)
((STATIC_LIBS == 0)) || LINK_LIBS=$(static_libs $LINK_LIBS)
echo "$LINK_LIBS" >"$OUT/link-libs"
echo "$CFLAGS" >"$OUT/cflags"
if [ -n "$SOURCE" ]; then  # (finish_build's provenance is Debian's package)
  finish_build "$OUT" "$ID" "$WORK"
  describe="not a git checkout"
  [ ! -e "$SOURCE/.git" ] || describe=$(git -C "$SOURCE" describe --tags --always 2>/dev/null || echo "git")
  echo "lighttpd $version from $SOURCE ($describe)" >"$OUT/.dualfuzz-source"
else
  finish_build "$OUT" "$ID" "$WORK"
fi
