#!/usr/bin/env bash
# The tester against servers configured the way people run them (issue 40):
# per subject, start it on a free port (scripts/subjects/subject.sh), fuzz it
# once per connection count, stop it; save each run's --json summary line to
# OUT/<subject>-c<C>-<LABEL>.json and print one line per run (subject,
# connections, executions, wall seconds, distinct violations, advisories),
# then each violation's signature (each advisory's key) and its first reason,
# indented.
#   scripts/subjects/everyday.sh                          # every subject below
#   scripts/subjects/everyday.sh nginx-static pyhttp -- --timeout-ms 500
#   scripts/subjects/everyday.sh --curl [SUBJECT...]      # no fuzzing: what each
#       answers to a few requests by curl (the observations in docs/eval/everyday)
# Environment: DUALFUZZ (build/cli/dualfuzz), SECONDS_PER_RUN (60),
# CONNECTIONS ("1 4"), LABEL (run), OUT (docs/eval/everyday). Arguments after
# `--` go to `dualfuzz fuzz` as they are. Every run is
#   dualfuzz fuzz --target 127.0.0.1:PORT --seconds S --connections C
#                 --keep-going --json --seed 1
set -euo pipefail
ROOT=$(cd "$(dirname "$(realpath "$0")")/../.." && pwd)
SUBJECT=$ROOT/scripts/subjects/subject.sh
DUALFUZZ=${DUALFUZZ:-build/cli/dualfuzz}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-60}
CONNECTIONS=${CONNECTIONS:-1 4}
LABEL=${LABEL:-run}
OUT=${OUT:-$ROOT/docs/eval/everyday}
ALL=(pyhttp nginx-static nginx-limit nginx-auth apache2-static lighttpd-static webdav-node
  caddy-static h2o-static busybox-static twisted-static webfs-static mini-httpd-static
  node-http-server node-serve rclone-http)

CURL=
if [ "${1:-}" = --curl ]; then CURL=1; shift; fi
subjects=() extra=()
while (($#)); do
  if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
  subjects+=("$1"); shift
done
((${#subjects[@]})) || subjects=("${ALL[@]}")
if [ -z "$CURL" ] && [ ! -x "$DUALFUZZ" ]; then
  echo "everyday.sh: no dualfuzz at $DUALFUZZ (set DUALFUZZ=)" >&2
  exit 2
fi
mkdir -p "$OUT"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# What the subject on PORT answers to each request: status line, and the
# Allow, WWW-Authenticate, Connection fields when it sends them (cut to 48
# bytes).
observe() {
  local m data
  for m in "GET /" "GET /missing" "PUT /x" "DELETE /x" "POST /x" "FOO /x" "OPTIONS /" \
    "PUT /small.txt" "DELETE /small.txt"; do
    # shellcheck disable=SC2086  # "METHOD PATH"
    set -- $m
    data=(); [[ $1 == PUT || $1 == POST ]] && data=(--data-binary hello)
    curl -si -X "$1" "${data[@]}" --max-time 5 "http://127.0.0.1:$PORT$2" | tr -d '\r' |
      awk -v m="$m" 'NR == 1 { s = $0 }
        tolower($0) ~ /^(allow|www-authenticate|connection):/ {
          h = h "; " (length($0) > 48 ? substr($0, 1, 45) "..." : $0) }
        /^$/ { exit }
        END { printf "  %-18s %s%s\n", m, s, h }'
  done
}

# The summary of one run's JSON line ($1) as printed lines.
summarize() {
  python3 - "$@" <<'PY'
import json, sys
path, subject, conns, rc = sys.argv[1:5]
j = json.load(open(path))
vs = j.get("violations", [])
extra = []
if j.get("outages"):
    extra.append(f'{j["outages"]} outage(s), {j.get("hangs", 0)} hang(s)')
if j.get("server_lost"):
    extra.append("server lost")
if j.get("inconclusive"):
    extra.append(f'{j["inconclusive"]} inconclusive')
advs = j.get("advisories") or []
if not isinstance(advs, list):
    advs = []
print(f'{subject} c{conns}: {j.get("executions")} executions in {j.get("seconds", 0):.0f} s,'
      f' {len(vs)} distinct violations, {len(advs)} advisories'
      f' (exit {rc}{"; " + ", ".join(extra) if extra else ""})')

def reason(v):
    rs = v.get("reasons") or []
    if rs:
        r = rs[0]
        if not isinstance(r, dict):
            return str(r)
        # (A message rule's reason has a text, not an expected value.)
        text = (f'{r.get("clause") or "?"}: {r.get("location")}: expected {r.get("expected")},'
                f' observed {r.get("observed")}') if r.get("location") and r.get("expected") \
            else f'{r.get("clause") or "?"}: {r.get("text", "")}'.rstrip()
        return text + (f" (+{len(rs) - 1} more)" if len(rs) > 1 else "")
    lines = [l.strip() for l in v.get("explanation", "").splitlines() if l.strip()]
    return lines[0][:200] if lines else "?"

for v in vs:
    print(f'  - [{v.get("count")}x] {v.get("signature")} -- {(reason(v).splitlines() or ["?"])[0]}')
for a in advs:
    print(f'  ~ advisory [{a.get("count")}x] {a.get("key")} -- {(reason(a).splitlines() or ["?"])[0]}')
PY
}

work='' started=''
cleanup() {
  [ -z "$work" ] || "$SUBJECT" stop "$started" "$PORT" "$work" >/dev/null 2>&1 || true
}
trap cleanup EXIT

for s in "${subjects[@]}"; do
  PORT=$(free_port)
  work=$(mktemp -d "/tmp/dualfuzz-everyday-$s-XXXXXX"); started=$s
  if ! "$SUBJECT" start "$s" "$PORT" "$work" >&2; then
    echo "$s: did not start" >&2
    work=
    continue
  fi
  if [ -n "$CURL" ]; then
    echo "$s ($("$SUBJECT" version "$s"))"
    observe
  else
    for c in $CONNECTIONS; do
      json=$OUT/$s-c$c-$LABEL.json
      text=$(mktemp "/tmp/dualfuzz-everyday-$s-c$c-XXXXXX.txt")
      rc=0
      "$DUALFUZZ" fuzz --target "127.0.0.1:$PORT" --seconds "$SECONDS_PER_RUN" \
        --connections "$c" --keep-going --json --seed 1 "${extra[@]}" >"$text" 2>&1 || rc=$?
      # The summary is stdout's last line.
      if tail -n 1 "$text" | python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; then
        tail -n 1 "$text" >"$json"
        summarize "$json" "$s" "$c" "$rc"
        rm -f "$text"
      else
        echo "$s c$c: no JSON summary (dualfuzz exit $rc); its output: $text"
      fi
    done
  fi
  "$SUBJECT" stop "$s" "$PORT" "$work"
  work=
done
