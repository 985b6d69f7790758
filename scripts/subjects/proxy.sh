#!/usr/bin/env bash
# Starts or stops a real HTTP proxy as a black-box subject on loopback, with a
# private config, logs and pid file under WORKDIR; the system service is never
# touched. The proxy forwards to 127.0.0.1:ORIGIN_PORT, where `dualfuzz fuzz
# --origin 127.0.0.1:ORIGIN_PORT` listens as the origin server (docs/proxy.md).
#   scripts/subjects/proxy.sh start tinyproxy 18100 18190 /tmp/subj-tinyproxy
#   dualfuzz fuzz --spec proxy --target 127.0.0.1:18100 --origin 127.0.0.1:18190
#   scripts/subjects/proxy.sh stop  tinyproxy 18100 18190 /tmp/subj-tinyproxy
#   scripts/subjects/proxy.sh kind tinyproxy      # proxy (forward) or gateway
# Subjects: tinyproxy, squid, apache2 (mod_proxy, ProxyRequests On): forward
# proxies (`--spec proxy`); apache2-reverse (ProxyPass), nginx (proxy_pass),
# haproxy: gateways (`--spec gateway`); nginx-via, haproxy-via: the same two
# configured to add Via both ways (RFC 9110 §7.6.3), which neither does by
# default, so what a missing Via masks in a trace shows. Installs the Debian
# packages when they are missing. start checks one GET through the proxy
# against a throw-away origin.
set -euo pipefail
ACTION=${1:?start|stop|version|kind}
NAME=${2:?tinyproxy|squid|apache2|apache2-reverse|nginx|nginx-via|haproxy|haproxy-via}
PORT=${3:-18100}; ORIGIN=${4:-18190}; WORK=${5:-/tmp/dualfuzz-proxy-$NAME-$PORT}
# shellcheck source=lib.sh
. "$(dirname "$(realpath "$0")")/lib.sh"

case $NAME in
  tinyproxy) KIND=proxy; PKG=tinyproxy-bin ;;
  squid) KIND=proxy; PKG=squid ;;
  apache2) KIND=proxy; PKG=apache2 ;;
  apache2-reverse) KIND=gateway; PKG=apache2 ;;
  nginx | nginx-via) KIND=gateway; PKG=nginx ;;
  haproxy | haproxy-via) KIND=gateway; PKG=haproxy ;;
  *) echo "proxy.sh: unknown subject $NAME" >&2; exit 2 ;;
esac
[ "$ACTION" = kind ] && { echo "$KIND"; exit 0; }
install_pkg "$PKG"

version() {
  case $NAME in
    tinyproxy) tinyproxy -v 2>&1 | head -1 ;;
    squid) squid -v | head -1 ;;
    apache2*) apache2 -v | head -1 ;;
    nginx*) nginx -v 2>&1 ;;
    haproxy*) haproxy -v | head -1 ;;
  esac
}

start() {
  mkdir -p "$WORK/logs" "$WORK/tmp" "$WORK/root"
  # Their workers drop root (nobody, proxy, www-data): logs and pid files
  # must be theirs to write.
  chmod 755 "$WORK"; chmod 777 "$WORK/logs" "$WORK/tmp"
  case $NAME in
    tinyproxy)
      cat >"$WORK/tinyproxy.conf" <<CONF
User nobody
Group nogroup
Port $PORT
Listen 127.0.0.1
Timeout 30
MaxClients 64
PidFile "$WORK/tmp/tinyproxy.pid"
LogFile "$WORK/logs/error.log"
LogLevel Warning
Allow 127.0.0.1
CONF
      tinyproxy -c "$WORK/tinyproxy.conf" ;;
    squid)
      cat >"$WORK/squid.conf" <<CONF
http_port 127.0.0.1:$PORT
pid_filename $WORK/tmp/squid.pid
cache_log $WORK/logs/error.log
access_log none
cache deny all
cache_mem 8 MB
coredump_dir $WORK/tmp
visible_hostname dualfuzz-squid
shutdown_lifetime 1 seconds
acl localnet src 127.0.0.1
http_access allow localnet
http_access deny all
CONF
      squid -f "$WORK/squid.conf" ;;
    apache2 | apache2-reverse)
      local mods=/usr/lib/apache2/modules proxying="ProxyRequests On"
      [ "$NAME" = apache2-reverse ] && proxying="ProxyRequests Off
ProxyPass / http://127.0.0.1:$ORIGIN/
ProxyPassReverse / http://127.0.0.1:$ORIGIN/"
      cat >"$WORK/httpd.conf" <<CONF
ServerRoot "$WORK"
Listen 127.0.0.1:$PORT
PidFile "$WORK/tmp/httpd.pid"
ErrorLog "$WORK/logs/error.log"
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule proxy_module $mods/mod_proxy.so
LoadModule proxy_http_module $mods/mod_proxy_http.so
User www-data
Group www-data
ServerName localhost
MaxKeepAliveRequests 0
$proxying
ProxyVia On
<Proxy "*">
  Require all granted
</Proxy>
CONF
      apache2 -f "$WORK/httpd.conf" -k start ;;
    nginx | nginx-via)
      # (With Via: appended to the client's, and added to every response
      # after the origin's own Via line.)
      local via_map="" via_conf=""
      [ "$NAME" = nginx-via ] && {
        via_map='map $http_via $dualfuzz_via { "" "1.1 nginx"; default "$http_via, 1.1 nginx"; }'
        via_conf='proxy_set_header Via $dualfuzz_via; add_header Via "1.1 nginx" always;'
      }
      cat >"$WORK/nginx.conf" <<CONF
daemon on;
worker_processes 1;
pid $WORK/tmp/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp/body;
  proxy_temp_path $WORK/tmp/proxy;
  keepalive_requests 100000;
  $via_map
  server {
    listen 127.0.0.1:$PORT;
    location / { proxy_pass http://127.0.0.1:$ORIGIN; $via_conf }
  }
}
CONF
      nginx -c "$WORK/nginx.conf" -p "$WORK" ;;
    haproxy | haproxy-via)
      # (add-header appends a field line: after the message's own Via.)
      local via_conf=""
      [ "$NAME" = haproxy-via ] && via_conf='  http-request add-header Via "1.1 haproxy"
  http-response add-header Via "1.1 haproxy"'
      cat >"$WORK/haproxy.cfg" <<CONF
global
  pidfile $WORK/tmp/haproxy.pid
  daemon
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend clients
  bind 127.0.0.1:$PORT
$via_conf
  default_backend origin
backend origin
  server tester 127.0.0.1:$ORIGIN
CONF
      haproxy -f "$WORK/haproxy.cfg" ;;
  esac
  if ! wait_for_port "$PORT"; then
    echo "proxy.sh: $NAME did not answer on port $PORT" >&2
    cat "$WORK/logs/error.log" >&2 || true
    exit 2
  fi
  # Answering is not enough: a proxy that cannot reach the origin would make
  # every finding an artefact. One GET through it to a throw-away origin.
  echo smoke >"$WORK/root/smoke"
  python3 -m http.server "$ORIGIN" --bind 127.0.0.1 -d "$WORK/root" >/dev/null 2>&1 &
  local origin_pid=$! got
  wait_for_port "$ORIGIN" || true
  if [ "$KIND" = proxy ]; then
    got=$(curl -s -m 5 -x "http://127.0.0.1:$PORT" "http://127.0.0.1:$ORIGIN/smoke" || true)
  else
    got=$(curl -s -m 5 "http://127.0.0.1:$PORT/smoke" || true)
  fi
  kill "$origin_pid" 2>/dev/null || true
  wait "$origin_pid" 2>/dev/null || true
  if [ "$got" != smoke ]; then
    echo "proxy.sh: $NAME failed the smoke test (GET through it: '$got')" >&2
    cat "$WORK/logs/error.log" >&2 || true
    stop
    exit 2
  fi
  echo "$NAME ($KIND): $(version) on 127.0.0.1:$PORT, origin 127.0.0.1:$ORIGIN"
}

stop() {
  local pid
  pid=$(cat "$WORK/tmp/"*.pid 2>/dev/null | head -1 || true)
  case $NAME in
    apache2*) [ -f "$WORK/httpd.conf" ] && apache2 -f "$WORK/httpd.conf" -k stop 2>/dev/null || true ;;
    nginx*) [ -f "$WORK/nginx.conf" ] && nginx -c "$WORK/nginx.conf" -p "$WORK" -s stop 2>/dev/null || true ;;
    squid) [ -f "$WORK/squid.conf" ] && squid -f "$WORK/squid.conf" -k shutdown 2>/dev/null || true ;;
    tinyproxy | haproxy*) [ -n "$pid" ] && kill "$pid" 2>/dev/null || true ;;
  esac
  await_exit "$pid"
  rm -rf "$WORK"
}

case $ACTION in
  start) start ;;
  stop) stop ;;
  version) version ;;
  *) echo "proxy.sh: start|stop|version|kind" >&2; exit 2 ;;
esac
