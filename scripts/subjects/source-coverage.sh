#!/usr/bin/env bash
# Which lines of a real server a campaign reached: the server built with
# clang's source-based coverage (build-instrumented.sh --profile), run under
# subject.sh, fuzzed by the black-box `dualfuzz fuzz` for --seconds and/or
# sent every script of a corpus (--replay DIR: a libFuzzer corpus, an AFL++
# queue, scripts), then stopped; the profile is merged and read with llvm-cov.
# Writes OUT/report.txt (per file: regions, functions, lines, branches),
# OUT/functions.txt (per function of the files given with --file, the
# unreached first), OUT/html/ (annotated source) and OUT/fuzz.json; prints the
# report's lines for the files the campaign reached at all
# (scripts/subjects/coverage_summary.py writes functions.txt).
#
#   scripts/subjects/source-coverage.sh lighttpd --seconds 600 --out /tmp/cov-l
#   scripts/subjects/source-coverage.sh lighttpd --patch fix.patch --seconds 60 \
#       --replay /tmp/corpus --file mod_webdav.c --file request.c --out /tmp/cov-l
#
# Why: the engines' edge counts (bench/eval_servercov.py) say how much, not
# what; this says which parsing and WebDAV code no engine's scripts reach,
# i.e. where the request space ends (docs/evaluation-journal.md, "What no engine
# reaches"). nginx's and Apache's workers (users nobody, www-data) merge
# their counts into the profile their root parent created (see umask below).
# Options: --seed (1), --connections (4), --port (18400), --dualfuzz BIN
# (default build/cli/dualfuzz). Environment: as
# build-instrumented.sh (JOBS, DUALFUZZ_CACHE).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
usage() { awk 'NR > 1 && /^set /{exit} NR > 1' "$0" >&2; exit 2; }
NAME=${1:-}; [ -n "$NAME" ] || usage; shift
BUILD_ARGS=() FILES=() SECONDS_=0 SEED=1 CONNS=4 PORT=18400 REPLAY="" OUT=""
DUALFUZZ=$ROOT/build/cli/dualfuzz
while (($#)); do
  case $1 in
    --patch) BUILD_ARGS+=(--patch "$(realpath "${2:?--patch FILE}")"); shift 2 ;;
    --seconds) SECONDS_=${2:?}; shift 2 ;;
    --seed) SEED=${2:?}; shift 2 ;;
    --connections) CONNS=${2:?}; shift 2 ;;
    --port) PORT=${2:?}; shift 2 ;;
    --replay) REPLAY=$(realpath "${2:?--replay DIR}"); shift 2 ;;
    --file) FILES+=("${2:?--file NAME}"); shift 2 ;;
    --dualfuzz) DUALFUZZ=$(realpath "${2:?}"); shift 2 ;;
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    *) usage ;;
  esac
done
case $NAME in
  lighttpd) VAR=LIGHTTPD ;;
  nginx) VAR=NGINX_BIN ;;
  apache2) VAR=APACHE2_BIN ;;
  *) echo "source-coverage: lighttpd, nginx or apache2 (not $NAME)" >&2; exit 2 ;;
esac
[ -n "$OUT" ] || usage
[ "$SECONDS_" != 0 ] || [ -n "$REPLAY" ] || { echo "source-coverage: --seconds N and/or --replay DIR" >&2; exit 2; }
[ -x "$DUALFUZZ" ] || { echo "source-coverage: no dualfuzz at $DUALFUZZ (build it, or --dualfuzz)" >&2; exit 2; }
# shellcheck source=lib.sh
. "$ROOT/scripts/subjects/lib.sh"
# (clang 14 builds the server: its llvm-profdata and llvm-cov read the profile)
install_pkg llvm-14
PROFDATA=llvm-profdata-14 COV=llvm-cov-14

DIR=$("$ROOT/scripts/subjects/build-instrumented.sh" "$NAME" --profile ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"})
BIN=$DIR/sbin/$NAME
OUT=$(realpath -m "$OUT"); rm -rf "$OUT"; mkdir -p "$OUT/profraw"; chmod 777 "$OUT/profraw"
WORK=$OUT/subject
# %m: one file per instrumented module (lighttpd's modules each carry their
# own profile runtime); %p: per process (a server the supervisor restarted).
export LLVM_PROFILE_FILE="$OUT/profraw/%p-%m.profraw"
# umask 0: clang 14's runtime expands %p once, at start-up, so nginx's and
# Apache's daemon parent, master and workers all merge into the file the
# parent creates; the workers (nobody, www-data) can only if it is writable
# by all (LLVM Profile Error: Failed to write file ... Permission denied).
subject() { (umask 0; env "$VAR=$BIN" "$ROOT/scripts/subjects/subject.sh" "$1" "$NAME" "$PORT" "$WORK"); }
trap 'subject stop >/dev/null 2>&1 || true' EXIT
subject start >&2
if [ "$SECONDS_" != 0 ]; then
  # (exit 1: violations found, the usual against a real server)
  rc=0
  "$DUALFUZZ" fuzz --target "127.0.0.1:$PORT" --keep-going --seconds "$SECONDS_" --seed "$SEED" \
    --connections "$CONNS" --json >"$OUT/fuzz.json" 2>"$OUT/fuzz.log" || rc=$?
  ((rc <= 1)) || echo "source-coverage: dualfuzz fuzz exited $rc (see $OUT/fuzz.log); the profile is read anyway" >&2
  tail -1 "$OUT/fuzz.log" >&2
fi
if [ -n "$REPLAY" ]; then
  n=0
  for f in "$REPLAY"/*; do
    [ -f "$f" ] || continue
    "$DUALFUZZ" run --target "127.0.0.1:$PORT" --timeout-ms 1000 "$f" >/dev/null 2>&1 || true
    n=$((n + 1))
  done
  echo "source-coverage: replayed $n inputs from $REPLAY" >&2
fi
subject stop >&2
trap - EXIT
compgen -G "$OUT/profraw/*.profraw" >/dev/null ||
  { echo "source-coverage: the server wrote no profile (killed rather than stopped?)" >&2; exit 1; }
"$PROFDATA" merge -sparse "$OUT"/profraw/*.profraw -o "$OUT/server.profdata"

# The executable and the modules it loads.
OBJECTS=("$BIN" "-path-equivalence=$(cat "$DIR/.dualfuzz-build-dir"),$DIR/source")
for m in "$DIR"/lib/mod_*.so "$DIR"/modules/mod_*.so; do [ -f "$m" ] && OBJECTS+=(-object "$m"); done
"$COV" report "${OBJECTS[@]}" -instr-profile="$OUT/server.profdata" >"$OUT/report.txt"
"$COV" show "${OBJECTS[@]}" -instr-profile="$OUT/server.profdata" -format=html \
  -output-dir="$OUT/html" >/dev/null
if ((${#FILES[@]})); then
  "$COV" export "${OBJECTS[@]}" -instr-profile="$OUT/server.profdata" >"$OUT/export.json"
  args=(); for f in "${FILES[@]}"; do args+=(--file "$f"); done
  "$ROOT/scripts/subjects/coverage_summary.py" "$OUT/export.json" "${args[@]}" >"$OUT/functions.txt"
  grep '^==' "$OUT/functions.txt"
fi
# Files the campaign reached at all (covered lines > 0), and the total.
awk 'NR > 2 && NF >= 13 && $1 != "TOTAL" && $8 != $9 {print} $1 == "TOTAL" {t = $0}
     END {print t}' "$OUT/report.txt" |
  awk '{printf "%-28s lines %6s of %6s (%s)  branches %s of %s\n", $1, $8 - $9, $8, $10, $11 - $12, $11}'
echo "source-coverage: $OUT/report.txt, $OUT/html/index.html" >&2
