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
# Servers configured the way people run them (issue 40), read-only, over one
# generated document root (make_docroot: index.html linking every file, files
# of 0 B, 1 B, ~100 B, 10 KB and 200 KB, sub/inner.txt, sitemap.xml):
#   pyhttp          python3 -m http.server
#   nginx-static    nginx like Debian's default site, no dav_methods (PUT: 405)
#   nginx-limit     the same with `limit_except GET { deny all; }`
#   nginx-auth      the same with auth_basic (user dualfuzz, password dualfuzz)
#   apache2-static  Debian's default modules, no mod_dav, a plain DocumentRoot
#   lighttpd-static Debian's lighttpd.conf modules, no mod_webdav
#   caddy-static    `caddy file-server` (Debian's caddy 2.6)
#   h2o-static      h2o 2.2 with one `file.dir` path
#   busybox-static  `busybox httpd -f`
#   twisted-static  `twistd3 web --path` (Twisted 22.4)
#   webfs-static    `webfsd -F` (webfs 1.21)
#   mini-httpd-static `mini_httpd -D` (1.30)
#   node-http-server npm http-server 14.1.1 (`http-server ROOT -s`)
#   node-serve      npm serve 14.2.7 (`serve -l tcp://...`)
#   rclone-http     `rclone serve http` (read-only; `rclone` is its WebDAV)
# and webdav-node: npm webdav-server 2.6.3 (installed once into
# ~/.cache/dualfuzz/webdav-server-2.6.3) run by scripts/subjects/webdav-node/
# server.js, no authentication, a physical file system at WORKDIR/root, under
# a supervisor that restarts it when it dies.
# The -static/-limit/-auth variants take NGINX_BIN, APACHE2_BIN, LIGHTTPD as
# their base server does.
#
# LIGHTTPD=DIR/sbin/lighttpd runs a build of its own instead (e.g. one from
# scripts/subjects/build-instrumented.sh: its modules from DIR/lib), in the
# foreground of a supervisor that restarts it when it dies (a crash is a
# finding; the campaign goes on), single process; DUALFUZZ_COVERAGE_SHM in the
# environment reaches it (its server-coverage map).
#
# SUBJECT_SKIP_SMOKE=1 skips the smoke test that `start` runs (PUT, GET back,
# DELETE; a static site's GET): for a build broken on purpose there, such as
# a mutant whose DELETE answers 404 (bench/eval_mutants_baseline.py).
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
ACTION=${1:?start|stop|version}
NAME=${2:?apache2|nginx|lighttpd|gowebdav|rclone|pyhttp|nginx-static|nginx-limit|nginx-auth|apache2-static|lighttpd-static|webdav-node|caddy-static|h2o-static|busybox-static|twisted-static|webfs-static|mini-httpd-static|node-http-server|node-serve|rclone-http}
PORT=${3:-18080}; WORK=${4:-/tmp/dualfuzz-subject-$NAME-$PORT}
# (`stop NAME WORKDIR` would otherwise stop nothing, silently.)
if ! [[ $PORT =~ ^[0-9]+$ ]]; then
  echo "subject.sh: PORT must be a number, not '$PORT' (usage: $ACTION NAME PORT WORKDIR)" >&2
  exit 2
fi

# shellcheck source=lib.sh
. "$(dirname "$(realpath "$0")")/lib.sh"

# The server program behind NAME (SERVER), and whether NAME serves the
# generated read-only document root (STATIC) instead of a writable store.
STATIC=1
case $NAME in
  apache2 | nginx | lighttpd) SERVER=$NAME; STATIC= ;;
  apache2-static) SERVER=apache2 ;;
  nginx-static | nginx-limit | nginx-auth) SERVER=nginx ;;
  lighttpd-static) SERVER=lighttpd ;;
  pyhttp) SERVER=pyhttp ;;
  caddy-static | h2o-static | busybox-static | twisted-static | webfs-static | \
    mini-httpd-static | node-http-server | node-serve | rclone-http) SERVER=$NAME ;;
  gowebdav | rclone | webdav-node) SERVER=$NAME; STATIC= ;;
  *) echo "subject.sh: unknown subject $NAME" >&2; exit 2 ;;
esac

case $NAME in
  apache2 | apache2-static) [ -n "${APACHE2_BIN:-}" ] || install_pkg apache2 ;;
  nginx*) [ -n "${NGINX_BIN:-}" ] || install_pkg nginx ;;
  lighttpd) [ -n "${LIGHTTPD:-}" ] || install_pkg lighttpd lighttpd-mod-webdav ;;
  lighttpd-static) [ -n "${LIGHTTPD:-}" ] || install_pkg lighttpd ;;
  gowebdav) install_pkg golang-go golang-golang-x-net-dev ;;
  rclone) install_pkg rclone ;;
  pyhttp) install_pkg python3 ;;
  webdav-node | node-http-server | node-serve) command -v npm >/dev/null || install_pkg nodejs npm ;;
  caddy-static) install_pkg caddy ;;
  h2o-static) install_pkg h2o ;;
  busybox-static) install_pkg busybox ;;
  twisted-static) install_pkg python3-twisted ;;
  webfs-static) install_pkg webfs ;;
  mini-httpd-static) install_pkg mini-httpd ;;
  rclone-http) install_pkg rclone ;;
esac

# npm's webdav-server, installed once (no other version: its answers are
# what the evaluation records).
WEBDAV_NODE_VERSION=2.6.3
webdav_node_modules() {
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz/webdav-server-$WEBDAV_NODE_VERSION
  if [ ! -f "$dir/node_modules/webdav-server/package.json" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent "webdav-server@$WEBDAV_NODE_VERSION") >&2
  fi
  echo "$dir/node_modules"
}

version() {
  case $SERVER in
    apache2) env -u DUALFUZZ_COVERAGE_SHM "${APACHE2_BIN:-apache2}" -v | head -1 ;;
    nginx) env -u DUALFUZZ_COVERAGE_SHM "${NGINX_BIN:-nginx}" -v 2>&1 ;;
    lighttpd) env -u DUALFUZZ_COVERAGE_SHM "${LIGHTTPD:-lighttpd}" -v | head -1 ;;
    gowebdav) echo "golang.org/x/net/webdav $(dpkg-query -W -f='${Version}' golang-golang-x-net-dev) ($(go version | cut -d' ' -f3))" ;;
    rclone) rclone version | head -1 ;;
    pyhttp) echo "http.server of $(python3 --version)" ;;
    caddy-static) echo "caddy $(caddy version | cut -d' ' -f1)" ;;
    h2o-static) h2o --version | head -1 ;;
    busybox-static) busybox | head -1 | cut -d' ' -f1-3 ;;
    twisted-static) twistd3 --version | head -1 ;;
    webfs-static) echo "webfs $(dpkg-query -W -f='${Version}' webfs)" ;;
    mini-httpd-static) mini_httpd -V 2>&1 | head -1 ;;
    node-http-server | node-serve)
      local pkg=http-server
      [ "$SERVER" = node-serve ] && pkg=serve
      echo "npm $pkg $(node -p "require('$(node_static_modules)/$pkg/package.json').version") (node $(node --version))" ;;
    rclone-http) rclone version | head -1 ;;
    webdav-node)
      local pkg
      pkg=$(webdav_node_modules)/webdav-server/package.json
      echo "webdav-server $(node -p "require('$pkg').version") (node $(node --version))" ;;
  esac
}

# npm's static servers, pinned, installed once: the node_modules directory.
NODE_STATIC_PACKAGES="http-server@14.1.1 serve@14.2.7"
node_static_modules() {
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/dualfuzz/node-static-1
  if [ ! -f "$dir/node_modules/serve/package.json" ]; then
    mkdir -p "$dir"
    # shellcheck disable=SC2086  # a list of packages
    (cd "$dir" && npm install --no-audit --no-fund --silent $NODE_STATIC_PACKAGES) >&2
  fi
  echo "$dir/node_modules"
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

# The document root of the static subjects, the same for all of them and on
# every run: index.html links every file; the bytes are fixed (the 200 KB
# file is SHA-256 of a counter, not /dev/urandom). sitemap.xml's URLs name
# this PORT. Directories 755, files 644: readable by the workers, writable
# by nobody but root.
make_docroot() {
  local root=$1 base=http://127.0.0.1:$PORT
  mkdir -p "$root/sub"
  : >"$root/empty.txt"
  printf x >"$root/one-byte.txt"
  printf 'A small text file of about a hundred bytes, served by a static subject of dualfuzz.\n' \
    >"$root/small.txt"
  local i
  for i in $(seq 1 128); do
    printf 'line %03d of a ten-kilobyte text file: abcdefghijklmnopqrstuvwxyz 0123456789 ...\n' "$i"
  done >"$root/medium.txt"
  python3 -c 'import hashlib, sys
sys.stdout.buffer.write(b"".join(hashlib.sha256(b"dualfuzz-%d" % i).digest() for i in range(6400)))' \
    >"$root/large.bin"
  printf 'The one file of a subfolder.\n' >"$root/sub/inner.txt"
  local files=(empty.txt one-byte.txt small.txt medium.txt large.bin sub/inner.txt sitemap.xml)
  {
    printf '<!DOCTYPE html>\n<html><head><title>dualfuzz static subject</title></head><body>\n<ul>\n'
    for f in "${files[@]}"; do printf '<li><a href="/%s">%s</a></li>\n' "$f" "$f"; done
    printf '</ul>\n</body></html>\n'
  } >"$root/index.html"
  {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    for f in "" "${files[@]}"; do
      [ "$f" = sitemap.xml ] || printf '  <url><loc>%s/%s</loc></url>\n' "$base" "$f"
    done
    printf '</urlset>\n'
  } >"$root/sitemap.xml"
  find "$root" -type d -exec chmod 755 {} +
  find "$root" -type f -exec chmod 644 {} +
}

# nginx-static, nginx-limit, nginx-auth: Debian's nginx.conf and default
# site (sendfile, gzip, the MIME types, try_files), loopback only, one
# worker; what the location adds is the variant's.
nginx_static_conf() {
  local types="include /etc/nginx/mime.types;" extra=
  [ -f /etc/nginx/mime.types ] ||
    types="types { text/html html; text/plain txt; application/xml xml; }"
  case $NAME in
    nginx-limit) extra="limit_except GET { deny all; }" ;;
    nginx-auth) extra="auth_basic \"x\"; auth_basic_user_file $WORK/htpasswd;" ;;
  esac
  cat <<CONF
daemon on;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 768; }
http {
  sendfile on;
  tcp_nopush on;
  types_hash_max_size 2048;
  $types
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path $WORK/tmp;
  gzip on;
  server {
    listen 127.0.0.1:$PORT;
    root $WORK/root;
    index index.html index.htm;
    server_name _;
    location / {
      try_files \$uri \$uri/ =404;
      $extra
    }
  }
}
CONF
}

# apache2-static: the modules Debian enables by default (less mod_status,
# and those of them a build of its own lacks) and what their .conf files
# and apache2.conf say that matters here; no mod_dav.
apache2_static_conf() {
  local mods=$1 m
  cat <<CONF
ServerRoot "$WORK"
Listen 127.0.0.1:$PORT
PidFile "$WORK/httpd.pid"
ErrorLog "$WORK/logs/error.log"
LogLevel warn
CONF
  for m in mpm_event access_compat alias auth_basic authn_core authn_file authz_core \
    authz_host authz_user autoindex deflate dir env filter mime negotiation reqtimeout setenvif; do
    [ ! -f "$mods/mod_$m.so" ] || echo "LoadModule ${m}_module $mods/mod_$m.so"
  done
  cat <<CONF
User www-data
Group www-data
ServerName localhost
Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
KeepAliveTimeout 5
HostnameLookups Off
<IfModule mod_mime.c>
  TypesConfig /etc/mime.types
</IfModule>
<IfModule mod_dir.c>
  DirectoryIndex index.html index.cgi index.pl index.php index.xhtml index.htm
</IfModule>
<IfModule mod_filter.c>
  AddOutputFilterByType DEFLATE text/html text/plain text/xml text/css text/javascript
  AddOutputFilterByType DEFLATE application/x-javascript application/javascript application/ecmascript
  AddOutputFilterByType DEFLATE application/rss+xml application/wasm application/xml
</IfModule>
<Directory />
  Options FollowSymLinks
  AllowOverride None
  Require all denied
</Directory>
DocumentRoot "$WORK/root"
<Directory "$WORK/root">
  Options Indexes FollowSymLinks
  AllowOverride None
  Require all granted
</Directory>
AccessFileName .htaccess
<FilesMatch "^\\.ht">
  Require all denied
</FilesMatch>
CONF
}

# lighttpd-static: Debian's lighttpd.conf (its modules, parse options, index
# files, access rules and MIME types), without mod_webdav.
lighttpd_static_conf() {
  local mime='mimetype.assign = ("" => "application/octet-stream")'
  [ ! -x /usr/share/lighttpd/create-mime.conf.pl ] ||
    mime='include_shell "/usr/share/lighttpd/create-mime.conf.pl"'
  cat <<CONF
server.modules = ("mod_indexfile", "mod_access", "mod_alias", "mod_redirect",
                  "mod_dirlisting", "mod_staticfile")
server.document-root = "$WORK/root"
server.bind = "127.0.0.1"
server.port = $PORT
server.pid-file = "$WORK/lighttpd.pid"
server.errorlog = "$WORK/logs/error.log"
server.upload-dirs = ("$WORK/tmp")
server.feature-flags += ("server.h2proto" => "enable")
server.feature-flags += ("server.h2c" => "enable")
server.feature-flags += ("server.graceful-shutdown-timeout" => 5)
server.http-parseopts = (
  "header-strict" => "enable",
  "host-strict" => "enable",
  "host-normalize" => "enable",
  "url-normalize-unreserved" => "enable",
  "url-normalize-required" => "enable",
  "url-ctrls-reject" => "enable",
  "url-path-2f-decode" => "enable",
  "url-path-dotseg-remove" => "enable",
)
index-file.names = ("index.php", "index.html")
url.access-deny = ("~", ".inc")
static-file.exclude-extensions = (".php", ".pl", ".fcgi")
$mime
CONF
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
  [ -z "$STATIC" ] || make_docroot "$WORK/root"
  local mods=/usr/lib/apache2/modules
  [ -z "${APACHE2_BIN:-}" ] || mods=$(dirname "$(dirname "$(realpath "$APACHE2_BIN")")")/modules
  # The configuration: NAME's.
  case $NAME in
    apache2)
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
      ;;
    apache2-static) apache2_static_conf "$mods" >"$WORK/httpd.conf" ;;
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
      ;;
    nginx-static | nginx-limit | nginx-auth)
      # user dualfuzz, password dualfuzz (apr1, fixed salt: the same file every run)
      printf 'dualfuzz:%s\n' "$(openssl passwd -apr1 -salt dualfuzz dualfuzz)" >"$WORK/htpasswd"
      chmod 644 "$WORK/htpasswd"
      nginx_static_conf >"$WORK/nginx.conf" ;;
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
      ;;
    lighttpd-static) lighttpd_static_conf >"$WORK/lighttpd.conf" ;;
  esac
  # The server: SERVER's.
  case $SERVER in
    apache2)
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
    nginx) "${NGINX_BIN:-nginx}" -c "$WORK/nginx.conf" -p "$WORK" ;;
    lighttpd)
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
    pyhttp)
      background python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$WORK/root" ;;
    caddy-static)
      HOME=$WORK XDG_DATA_HOME=$WORK/tmp XDG_CONFIG_HOME=$WORK/tmp \
        background caddy file-server --root "$WORK/root" --listen "127.0.0.1:$PORT" ;;
    h2o-static)
      # (No pid-file: h2o opens it after dropping root, in a directory of root's.)
      printf 'listen:\n  host: 127.0.0.1\n  port: %s\nhosts:\n  default:\n    paths:\n      /:\n        file.dir: %s\n' \
        "$PORT" "$WORK/root" >"$WORK/h2o.conf"
      background h2o -c "$WORK/h2o.conf" ;;
    busybox-static) background busybox httpd -f -p "127.0.0.1:$PORT" -h "$WORK/root" ;;
    twisted-static)
      background twistd3 -n --pidfile= web --listen "tcp:$PORT:interface=127.0.0.1" \
        --path "$WORK/root" ;;
    webfs-static) background webfsd -F -p "$PORT" -r "$WORK/root" -i 127.0.0.1 ;;
    mini-httpd-static) background mini_httpd -D -p "$PORT" -d "$WORK/root" -h 127.0.0.1 ;;
    node-http-server)
      background node "$(node_static_modules)/http-server/bin/http-server" "$WORK/root" \
        -p "$PORT" -a 127.0.0.1 -s ;;
    node-serve)
      background node "$(node_static_modules)/serve/build/main.js" \
        -l "tcp://127.0.0.1:$PORT" --no-clipboard "$WORK/root" ;;
    rclone-http)
      background rclone serve http "$WORK/root" --addr "127.0.0.1:$PORT" \
        --config /dev/null --cache-dir "$WORK/tmp" ;;
    webdav-node)
      # Under a supervisor, as a lighttpd build of its own: one request can
      # kill webdav-server 2.6.3 (an unhandled TypeError, docs/eval/everyday);
      # a crash is a finding (logs/restarts.log), the campaign goes on.
      local node_modules
      node_modules=$(webdav_node_modules)
      setsid bash -c 'echo $$ >"$1/supervisor.pid"
        while :; do NODE_PATH=$2 node "$3" "$1/root" "$4" </dev/null >>"$1/logs/error.log" 2>&1 &
          echo $! >"$1/webdav-node.pid"; wait $!; rc=$?
          echo "$(date +%T) webdav-server exited: $rc" >>"$1/logs/restarts.log"; sleep 0.2; done' \
        _ "$WORK" "$node_modules" "$(dirname "$(realpath "$0")")/webdav-node/server.js" "$PORT" \
        </dev/null >/dev/null 2>&1 & ;;
  esac
  if ! wait_for_port "$PORT"; then
    echo "subject.sh: $NAME did not answer on port $PORT" >&2
    cat "$WORK/logs/error.log" >&2 || true
    exit 2
  fi
  # Answering is not enough: a misconfigured subject (unwritable docroot)
  # would make every finding an artefact. PUT, GET back, DELETE; a static
  # subject: GET of a file back as written (nginx-auth: 401 without the
  # password, the file with it).
  local base="http://127.0.0.1:$PORT/dualfuzz-smoke-$$" put get del
  if [ -n "${SUBJECT_SKIP_SMOKE:-}" ]; then
    :
  elif [ -n "$STATIC" ]; then
    local auth=() want
    want=$(cat "$WORK/root/small.txt")
    if [ "$NAME" = nginx-auth ]; then
      put=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/small.txt")
      [ "$put" = 401 ] || want="401 without the password, not $put"
      auth=(-u dualfuzz:dualfuzz)
    fi
    get=$(curl -s "${auth[@]}" "http://127.0.0.1:$PORT/small.txt")
    if [ "$get" != "$want" ]; then
      echo "subject.sh: $NAME failed the smoke test (GET /small.txt: '$get', expected '$want')" >&2
      cat "$WORK/logs/error.log" >&2 || true
      stop
      exit 2
    fi
  else
    put=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary smoke "$base")
    get=$(curl -s "$base")
    del=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$base")
    if [[ $put != 2?? || $get != smoke || $del != 2?? ]]; then
      echo "subject.sh: $NAME failed the smoke test (PUT $put, GET '$get', DELETE $del)" >&2
      cat "$WORK/logs/error.log" >&2 || true
      stop
      exit 2
    fi
  fi
  echo "$NAME: $(version) on 127.0.0.1:$PORT, root $WORK/root"
}

stop() {
  local pid sup
  # The supervisor first, or it restarts the server it sees die.
  sup=$(cat "$WORK/supervisor.pid" 2>/dev/null || true)
  [ -z "$sup" ] || kill "$sup" 2>/dev/null || true
  pid=$(cat "$WORK"/{httpd,nginx,lighttpd,gowebdav,rclone,pyhttp,webdav-node}.pid \
    "$WORK/$NAME.pid" 2>/dev/null | sort -u || true)
  case $SERVER in
    apache2) [ -f "$WORK/httpd.conf" ] && env -u DUALFUZZ_COVERAGE_SHM "${APACHE2_BIN:-apache2}" \
      -f "$WORK/httpd.conf" -k stop 2>/dev/null || true ;;
    nginx) [ -f "$WORK/nginx.conf" ] && env -u DUALFUZZ_COVERAGE_SHM "${NGINX_BIN:-nginx}" \
      -c "$WORK/nginx.conf" -p "$WORK" -s stop 2>/dev/null || true ;;
    *) [ -n "$pid" ] && kill "$pid" 2>/dev/null || true ;;
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
