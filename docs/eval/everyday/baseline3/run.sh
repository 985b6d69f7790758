#!/usr/bin/env bash
# Known-clean by baseline: record 300 s (seed 1, 1 connection), then check
# 180 s (seed 2) with the record as --baseline; new identities are what a
# CI would report.
set -u
ROOT=/work/main
OUT=/tmp/base3
bin=/tmp/df-new/dualfuzz
s=$1; port=$2; rec=${3:-300}; chk=${4:-180}
dir=$(mktemp -d)
$ROOT/scripts/subjects/subject.sh start $s $port $dir >/dev/null 2>&1
$bin fuzz --target 127.0.0.1:$port --seconds $rec --connections 1 --keep-going --json --seed 1 -q \
  > $OUT/$s-record.json 2> $OUT/$s-record.err
$bin fuzz --target 127.0.0.1:$port --seconds $chk --connections 1 --keep-going --json --seed 2 -q \
  --baseline $OUT/$s-record.json > $OUT/$s-check.json 2> $OUT/$s-check.err
$ROOT/scripts/subjects/subject.sh stop $s $port $dir >/dev/null 2>&1
python3 - $OUT/$s-check.json <<'PY'
import json,sys
j=None
for l in open(sys.argv[1]):
    l=l.strip()
    if l.startswith('{'):
        try: j=json.loads(l)
        except Exception: pass
v=j.get('violations',[])+[x for x in j.get('findings',[]) if x.get('kind') in ('crash','hang')]
print(sys.argv[1].split('/')[-1], 'execs', j.get('executions'), 'known plays', j.get('baseline_known'), 'new', len(v), 'races', len(j.get('races',[])))
for x in v: print('   ', x.get('identity') or x.get('signature'))
PY
