#!/usr/bin/env bash
# Starts or stops a real HTTP server as a black-box subject on a loopback port,
# with a private document root, config, logs and pid file under WORKDIR; the
# system service is never touched.
#   scripts/subjects/subject.sh start nginx 18080 /tmp/subj-nginx   # waits until it answers
#   scripts/subjects/subject.sh stop  nginx 18080 /tmp/subj-nginx   # stops it, removes WORKDIR
#   scripts/subjects/subject.sh version nginx
# Subjects: apache2 (mod_dav + mod_dav_fs), nginx (dav module, PUT DELETE),
# lighttpd (mod_webdav), gowebdav (Go's golang.org/x/net/webdav handler over a
# directory: scripts/subjects/gowebdav/main.go, built once into
# ~/.cache/dualfuzz), rclone (`rclone serve webdav`). Installs the Debian
# packages when they are missing.
#
# LIGHTTPD=DIR/sbin/lighttpd runs a build of its own instead (e.g. one from
# scripts/subjects/build-instrumented.sh: its modules from DIR/lib), in the
# foreground of a supervisor that restarts it when it dies (a crash is a
# finding; the campaign goes on), single process; DUALFUZZ_COVERAGE_SHM in the
# environment reaches it (its server-coverage map).
#
# NGINX_BIN=DIR/sbin/nginx likewise runs a build of its own (default: the system's
# nginx), with the same configuration: master and worker as usual (the master
# respawns a worker that dies; a crash is a finding), DUALFUZZ_COVERAGE_SHM
# reaching both (the worker inherits the master's mapping). Every other run of
# the binary (-v, -s stop) is without the variable, so that it does not
# attach to the map. (Not NGINX=: nginx reads that variable itself, as the
# listening sockets a binary upgrade inherits.)
#
# APACHE2_BIN=DIR/sbin/apache2 runs a build of its own (modules from
# DIR/modules; default: the system's apache2 and /usr/lib/apache2/modules),
# the same configuration plus one child process that is never retired
# (StartServers/ServerLimit 1, spare threads that never make the parent stop
# or start one): the map names the newest child, so a child the parent
# replaced for idleness would look like a crash. The parent respawns a child
# that dies (a finding), as nginx's master does.
set -euo pipefail
ACTION=${1:?start|stop|version}; NAME=${2:?apache2|nginx|lighttpd|gowebdav|rclone}
PORT=${3:-18080}; WORK=${4:-/tmp/dualfuzz-subject-$NAME-$PORT}
# (`stop NAME WORKDIR` would otherwise stop nothing, silently.)
if ! [[ $PORT =~ ^[0-9]+$ ]]; then
  echo "subject.sh: PORT must be a number, not '$PORT' (usage: $ACTION NAME PORT WORKDIR)" >&2
  exit 2
fi

# shellcheck source=lib.sh
. "$(dirname "$(realpath "$0")")/lib.sh"

case $NAME in
  apache2) [ -n "${APACHE2_BIN:-}" ] || install_pkg apache2 ;;
  nginx) [ -n "${NGINX_BIN:-}" ] || install_pkg nginx ;;
  lighttpd) [ -n "${LIGHTTPD:-}" ] || install_pkg lighttpd lighttpd-mod-webdav ;;
  gowebdav) install_pkg golang-go golang-golang-x-net-dev ;;
  rclone) install_pkg rclone ;;
  *) echo "subject.sh: unknown subject $NAME" >&2; exit 2 ;;
esac

version() {
  case $NAME in
    apache2) env -u DUALFUZZ_COVERAGE_SHM "${APACHE2_BIN:-apache2}" -v | head -1 ;;
    nginx) env -u DUALFUZZ_COVERAGE_SHM "${NGINX_BIN:-nginx}" -v 2>&1 ;;
    lighttpd) env -u DUALFUZZ_COVERAGE_SHM "${LIGHTTPD:-lighttpd}" -v | head -1 ;;
    gowebdav) echo "golang.org/x/net/webdav $(dpkg-query -W -f='${Version}' golang-golang-x-net-dev) ($(go version | cut -d' ' -f3))" ;;
    rclone) rclone version | head -1 ;;
  esac
}

# The gowebdav binary, built from its source once per source version.
GOWEBDAV_SRC=$(dirname "$(realpath "$0")")/gowebdav/main.go
gowebdav_bin() {
  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz
  local bin
  bin=$cache/gowebdav-$(sha256sum "$GOWEBDAV_SRC" | cut -c1-12)
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$cache/go-build \
      go build -o "$bin.tmp" "$GOWEBDAV_SRC" && mv "$bin.tmp" "$bin"
  fi
  echo "$bin"
}

# A server without a daemon mode of its own: in the background, its pid in
# WORK/NAME.pid.
background() {
  setsid "$@" </dev/null >>"$WORK/logs/error.log" 2>&1 &
  echo $! >"$WORK/$NAME.pid"
}

start() {
  mkdir -p "$WORK/root" "$WORK/logs" "$WORK/tmp"
  # The servers run as root here only because the session is root; their
  # workers do not (Apache: www-data, nginx: nobody), so the docroot must be
  # writable and every directory above it searchable by them (a WORK made
  # by `mktemp -d` is 0700: every GET would be 403 and every PUT 500).
  chmod 777 "$WORK/root" "$WORK/tmp" "$WORK/logs"
  chmod 755 "$WORK"
  local d=$WORK
  while [ "$d" != / ]; do
    d=$(dirname "$d")
    if [ "$(id -u)" -eq 0 ] && ! runuser -u nobody -- test -x "$d" 2>/dev/null; then
      echo "subject.sh: $d is not searchable by the server's worker user" >&2
      exit 2
    fi
  done
  case $NAME in
    apache2)
      local mods=/usr/lib/apache2/modules
      [ -z "${APACHE2_BIN:-}" ] || mods=$(dirname "$(dirname "$(realpath "$APACHE2_BIN")")")/modules
      cat >"$WORK/httpd.conf" <<CONF
ServerRoot "$WORK"
Listen 127.0.0.1:$PORT
PidFile "$WORK/httpd.pid"
ErrorLog "$WORK/logs/error.log"
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule dav_module $mods/mod_dav.so
LoadModule dav_fs_module $mods/mod_dav_fs.so
User www-data
Group www-data
ServerName localhost
DocumentRoot "$WORK/root"
DAVLockDB "$WORK/tmp/DAVLock"
MaxKeepAliveRequests 0
<Directory "$WORK/root">
  Dav On
  Require all granted
</Directory>
CONF
      [ -z "${APACHE2_BIN:-}" ] || cat >>"$WORK/httpd.conf" <<CONF
StartServers 1
ServerLimit 1
ThreadsPerChild 25
MaxRequestWorkers 25
MinSpareThreads 1
MaxSpareThreads 25
MaxConnectionsPerChild 0
CONF
      "${APACHE2_BIN:-apache2}" -f "$WORK/httpd.conf" -k start ;;
    nginx)
      cat >"$WORK/nginx.conf" <<CONF
daemon on;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$PORT;
    root $WORK/root;
    dav_methods PUT DELETE;
    create_full_put_path on;
    dav_access user:rw group:rw all:rw;
  }
}
CONF
      "${NGINX_BIN:-nginx}" -c "$WORK/nginx.conf" -p "$WORK" ;;
    lighttpd)
      cat >"$WORK/lighttpd.conf" <<CONF
server.modules = ("mod_webdav")
server.document-root = "$WORK/root"
server.bind = "127.0.0.1"
server.port = $PORT
server.pid-file = "$WORK/lighttpd.pid"
server.errorlog = "$WORK/logs/error.log"
server.upload-dirs = ("$WORK/tmp")
server.max-keep-alive-requests = 100000
webdav.activate = "enable"
webdav.is-readonly = "disable"
# Properties and locks (PROPPATCH, LOCK) need mod_webdav's database; without
# one lighttpd refuses them (Debian builds it --with-webdav-props --with-webdav-locks).
webdav.sqlite-db-name = "$WORK/webdav.db"
# A default MIME type, as Debian's own lighttpd.conf has (create-mime.conf.pl):
# lighttpd sends no ETag/Last-Modified and skips conditional GET for the
# implicit application/octet-stream (http-header-glue.c, allow_caching).
mimetype.assign = ("" => "application/octet-stream")
CONF
      if [ -z "${LIGHTTPD:-}" ]; then
        lighttpd -f "$WORK/lighttpd.conf"
      else
        local bin modules
        bin=$(realpath "$LIGHTTPD"); modules=$(dirname "$(dirname "$bin")")/lib
        env -u DUALFUZZ_COVERAGE_SHM "$bin" -tt -m "$modules" -f "$WORK/lighttpd.conf" >/dev/null
        # (setsid: the supervisor outlives this script and its terminal)
        setsid bash -c 'echo $$ >"$1/supervisor.pid"
          while :; do "$2" -D -m "$3" -f "$1/lighttpd.conf" 2>>"$1/logs/stderr.log"; rc=$?
            echo "$(date +%T) lighttpd exited: $rc" >>"$1/logs/restarts.log"; sleep 0.2; done' \
          _ "$WORK" "$bin" "$modules" </dev/null >/dev/null 2>&1 &
      fi ;;
    gowebdav) background "$(gowebdav_bin)" -addr "127.0.0.1:$PORT" -root "$WORK/root" ;;
    rclone)
      background rclone serve webdav "$WORK/root" --addr "127.0.0.1:$PORT" \
        --config /dev/null --cache-dir "$WORK/tmp" ;;
  esac
  if ! wait_for_port "$PORT"; then
    echo "subject.sh: $NAME did not answer on port $PORT" >&2
    cat "$WORK/logs/error.log" >&2 || true
    exit 2
  fi
  # Answering is not enough: a misconfigured subject (unwritable docroot)
  # would make every finding an artefact. PUT, GET back, DELETE.
  local base="http://127.0.0.1:$PORT/dualfuzz-smoke-$$" put get del
  put=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary smoke "$base")
  get=$(curl -s "$base")
  del=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$base")
  if [[ $put != 2?? || $get != smoke || $del != 2?? ]]; then
    echo "subject.sh: $NAME failed the smoke test (PUT $put, GET '$get', DELETE $del)" >&2
    cat "$WORK/logs/error.log" >&2 || true
    stop
    exit 2
  fi
  echo "$NAME: $(version) on 127.0.0.1:$PORT, root $WORK/root"
}

stop() {
  local pid sup
  # The supervisor first, or it restarts the server it sees die.
  sup=$(cat "$WORK/supervisor.pid" 2>/dev/null || true)
  [ -z "$sup" ] || kill "$sup" 2>/dev/null || true
  pid=$(cat "$WORK"/{httpd,nginx,lighttpd,gowebdav,rclone}.pid 2>/dev/null || true)
  case $NAME in
    apache2) [ -f "$WORK/httpd.conf" ] && env -u DUALFUZZ_COVERAGE_SHM "${APACHE2_BIN:-apache2}" \
      -f "$WORK/httpd.conf" -k stop 2>/dev/null || true ;;
    nginx) [ -f "$WORK/nginx.conf" ] && env -u DUALFUZZ_COVERAGE_SHM "${NGINX_BIN:-nginx}" \
      -c "$WORK/nginx.conf" -p "$WORK" -s stop 2>/dev/null || true ;;
    lighttpd | gowebdav | rclone) [ -n "$pid" ] && kill "$pid" 2>/dev/null || true ;;
  esac
  await_exit "$pid"
  rm -rf "$WORK"
}

case $ACTION in
  start) start ;;
  stop) stop ;;
  version) version ;;
  *) echo "subject.sh: start|stop|version" >&2; exit 2 ;;
esac
