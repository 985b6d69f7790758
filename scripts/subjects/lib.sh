# Shared by the subject scripts (subject.sh, proxy.sh): sourced, not run.

# Installs the Debian packages that are missing; their own services never
# start (policy-rc.d), so nothing takes port 80 or the system's config.
install_pkg() {
  local pkgs=("$@") missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  $SUDO rm -f /usr/sbin/policy-rc.d
}

# Waits (10 s at most) until something accepts on 127.0.0.1:$1.
wait_for_port() {
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# Waits (5 s at most) until process $1 (may be empty) has exited.
await_exit() {
  for _ in $(seq 50); do
    [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  # Still there after 5 s: a server that hangs never reads its SIGTERM
  # (lighttpd 1.4.69 looping on a LOCK Timeout, docs/real-servers.md).
  kill -9 "$1" 2>/dev/null || true
  for _ in $(seq 20); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
}
