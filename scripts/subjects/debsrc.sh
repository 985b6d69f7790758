# shellcheck shell=bash
# Fetching and building a Debian source package, for the subject build
# scripts (build-instrumented.sh, build-inprocess.sh): sourced, not run. Needs
# NAME (the source package) and CACHE; sets SUDO and SRC_DIR ($CACHE/src/$NAME,
# the source tree with Debian's patches applied, fetched once);
# `pristine_source` fetches it if needed, installs the compilers and sets
# PRISTINE (its tree). `build_base`, `patched_copy` and `finish_build` are the
# steps both scripts take around their own build commands.
TOOL=$(basename "$0" .sh)
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
  if [ "$NAME" = nginx ]; then
    # Only what the static build needs: build-dep would also bring the
    # dynamic modules' (perl, gd, geoip, xslt), which are not built.
    apt_install libpcre2-dev libssl-dev zlib1g-dev
  elif [ "$NAME" = apache2 ]; then
    apt_install libapr1-dev libaprutil1-dev libpcre2-dev libexpat1-dev
  else
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get build-dep -y -qq "$NAME" >/dev/null
  fi
  rm -rf "$SRC_DIR" && mkdir -p "$SRC_DIR"
  # The candidate's source first; when the mirror lacks it (seen: the
  # security archive serving bookworm's nginx 1.22.1-9+deb12u11 binaries but
  # 404 for its .dsc), the newest version whose source it has, said on stderr.
  local v
  for v in "" $(apt-cache showsrc "$NAME" | awk '/^Version:/ {print $2}' | sort -urV); do
    (cd "$SRC_DIR" && apt-get source -qq "$NAME${v:+=$v}" 2>&1 |
      grep -v '^W: Download is performed unsandboxed' >&2 || true)
    if compgen -G "$SRC_DIR/$NAME-*/configure" >/dev/null; then
      [ -z "$v" ] || echo "build-instrumented: the candidate's source is not on the mirror; built $NAME $v" >&2
      break
    fi
    find "$SRC_DIR" -mindepth 1 -delete
  done
  compgen -G "$SRC_DIR/$NAME-*/configure" >/dev/null ||
    { echo "build-instrumented: apt-get source $NAME gave no source tree" >&2; exit 2; }
  (cd "$SRC_DIR" && ls ./*.dsc | sed 's|^\./||; s|\.dsc$||') >"$SRC_DIR/.version"
  touch "$SRC_DIR/.fetched"
}

# The source tree, fetched if needed, and clang + ccache to build it:
# PRISTINE is the unpacked tree (never built in: builds copy it).
pristine_source() {
  fetch_source
  apt_install clang ccache
  PRISTINE=$(compgen -G "$SRC_DIR/$NAME-*/configure" | head -1)
  PRISTINE=${PRISTINE%/configure}
}

# build_base BASE FUNCTION: the unpatched tree configured and built once by
# FUNCTION (run in BASE, a copy of PRISTINE) and kept, so that a patched build
# copies it and recompiles only what its patches touch.
build_base() {
  local base=$1 build=$2
  [ -f "$base/.built" ] && return 0
  rm -rf "$base" && mkdir -p "$(dirname "$base")" && cp -a "$PRISTINE" "$base"
  (cd "$base" && "$build") >"$base/build.log" 2>&1 ||
    { tail -40 "$base/build.log" >&2; echo "$TOOL: build failed ($base/build.log)" >&2; exit 1; }
  touch "$base/.built"
}

# patched_copy BASE WORK: WORK a fresh copy of BASE with PATCHES applied in order.
patched_copy() {
  local base=$1 work=$2 patch
  rm -rf "$work" && cp -a "$base" "$work"
  for patch in ${PATCHES[@]+"${PATCHES[@]}"}; do
    patch -d "$work" -p1 --forward --batch <"$patch" >"$work/.patch.log" ||
      { cat "$work/.patch.log" >&2; echo "$TOOL: $patch does not apply" >&2; exit 2; }
  done
}

# finish_build OUT ID WORK: OUT's provenance (the Debian source package built;
# the patches applied, one file name a line, empty for the unpatched server;
# the build id), WORK removed; prints OUT.
finish_build() {
  local out=$1 id=$2 work=$3 patch
  cp "$SRC_DIR/.version" "$out/.dualfuzz-source" 2>/dev/null || true
  for patch in ${PATCHES[@]+"${PATCHES[@]}"}; do basename "$patch"; done >"$out/.dualfuzz-patches"
  echo "$id" >"$out/.dualfuzz-build-id"
  rm -rf "$work"
  echo "$out"
}
