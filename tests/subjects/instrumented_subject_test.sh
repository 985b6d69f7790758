#!/bin/sh
# instrumented_subject_test.sh NAME SOURCE_DIR: an instrumented build of NAME
# (lighttpd, nginx, apache2) under scripts/subjects/subject.sh and its coverage map;
# exit 0 pass, 1 fail, 77 skipped (no such build).
# shellcheck disable=SC2045,SC2046  # (ls -t: newest first; the map's fields split on purpose)
set -u
name=$1 src=$2
cache=${DUALFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz}
case $name in
  lighttpd) var=LIGHTTPD given=${DUALFUZZ_INSTRUMENTED_LIGHTTPD:-} ;;
  nginx) var=NGINX_BIN given=${DUALFUZZ_INSTRUMENTED_NGINX:-} ;;
  apache2) var=APACHE2_BIN given=${DUALFUZZ_INSTRUMENTED_APACHE2:-} ;;
  *) echo "unknown server $name"; exit 1 ;;
esac
bin=$given
if [ -z "$bin" ]; then  # the newest unpatched build in the cache (a mutant may fail the smoke test)
  for d in $(ls -dt "$cache/$name"-*/ 2>/dev/null); do
    d=${d%/}
    case ${d##*/} in "$name"-*-*) continue ;; esac  # another kind of build (NAME-inprocess-ID)
    # (nor a source-coverage build, build-instrumented.sh --profile: no edge map)
    [ ! -f "$d/.dualfuzz-build-dir" ] || continue
    if [ -f "$d/.dualfuzz-patches" ] && [ ! -s "$d/.dualfuzz-patches" ] && [ -x "$d/sbin/$name" ]; then
      bin=$d/sbin/$name; break
    fi
  done
fi
[ -n "$bin" ] && [ -x "$bin" ] ||
  { echo "no unpatched instrumented $name (scripts/subjects/build-instrumented.sh $name): skipped"; exit 77; }
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "no curl/python3: skipped"; exit 77; }
echo "server: $bin"

shm=/dualfuzz-subjtest-$name-$$
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
top=$(mktemp -d /tmp/dualfuzz-subjtest-XXXXXX) && chmod 755 "$top"
work=$top/subject
subject() { env "$var=$bin" DUALFUZZ_COVERAGE_SHM=$shm "$src/scripts/subjects/subject.sh" "$@"; }
cleanup() { subject stop "$name" "$port" "$work" >/dev/null 2>&1; rm -f "/dev/shm$shm"; rm -rf "$top"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The map's header (harness/include/dualfuzz/harness/coverage_map.h):
# guards edges-ever starts pid.
map() {
  python3 - "/dev/shm$shm" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic, cap, guards, pid, starts, _ = struct.unpack_from("<QIIiII", d)
h = struct.calcsize("<QIIiII36x")
ever = d[h + cap:h + cap + guards]
print(guards, len(ever) - ever.count(0), starts, pid)
PY
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[^)]*) [ZX]' "/proc/$1/stat" 2>/dev/null; }

subject start "$name" "$port" "$work" || fail "subject.sh start"
[ -f "/dev/shm$shm" ] || fail "no map /dev/shm$shm"
set -- $(map); guards=$1 edges0=$2 starts=$3 pid=$4
echo "at start: $guards guards, $edges0 edges, $starts start(s), pid $pid"
[ "$guards" -gt 1000 ] || fail "only $guards guards: not instrumented?"
[ "$edges0" -gt 100 ] || fail "only $edges0 edges after start-up and the smoke test"
[ "$starts" = 1 ] || fail "$starts processes attached (-v, -t or -s stop attached to the map?)"
alive "$pid" || fail "the map names pid $pid, which is not running"

# A request the smoke test did not make reaches new edges.
curl -s -o /dev/null -H 'Range: bytes=0-1' "http://127.0.0.1:$port/missing-$$/x" || fail "curl"
curl -s -o /dev/null -X MKCOL "http://127.0.0.1:$port/dir-$$/" || fail "curl"
set -- $(map); edges1=$2
echo "after two requests: $edges1 edges"
[ "$edges1" -gt "$edges0" ] || fail "no new edges from the requests ($edges0 -> $edges1)"

# The process that serves crashes: the map names a new live one (nginx's
# master respawns its worker, Apache's parent its child, lighttpd's
# supervisor restarts it), which
# serves and counts in the same map.
kill -SEGV "$pid"
i=0 new=$pid
while [ $i -lt 100 ]; do
  set -- $(map); new=$4
  [ "$new" != "$pid" ] && alive "$new" && break
  sleep 0.1; i=$((i + 1))
done
[ "$new" != "$pid" ] && alive "$new" || fail "after SIGSEGV to $pid the map names $new"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/missing-$$")" = 404 ] ||
  fail "no 404 after the restart"
case $name in
  nginx) grep -q "worker process $pid exited on signal 11" "$work/logs/error.log" ||
    fail "nginx's error log does not say the worker died" ;;
  apache2) grep -q "AH00052: child pid $pid exit signal" "$work/logs/error.log" ||
    fail "Apache's error log does not say the child died" ;;
  lighttpd) set -- $(map); [ "$3" = 2 ] || fail "$3 starts after a restart" ;;
esac
echo "after a crash: pid $new"

subject stop "$name" "$port" "$work" || fail "subject.sh stop"
sleep 0.3
alive "$new" && fail "pid $new still running after stop"
echo pass
