#!/usr/bin/env bash
# A fresh run against a static site with the plug-in's judgements of that
# server as known: 180 s, seed 3, 1 connection, --keep-going. What it
# reports is what no judgement covers.
set -u
ROOT=/work/main
s=$1; port=$2; secs=${3:-180}
bin=/tmp/df-final/dualfuzz
dir=$(mktemp -d)
$ROOT/scripts/subjects/subject.sh start $s $port $dir >/dev/null 2>&1
/usr/bin/time -f "%e wall %U user %S sys" $bin fuzz --target 127.0.0.1:$port --seconds $secs --connections 1 \
  --keep-going --json --seed ${SEED:-3} -q --known judged:$s > /tmp/judged/$s-s${SEED:-3}.json 2> /tmp/judged/$s-s${SEED:-3}.err
$ROOT/scripts/subjects/subject.sh stop $s $port $dir >/dev/null 2>&1
python3 - /tmp/judged/$s-s${SEED:-3}.json <<'PY'
import json,sys
j=None
for l in open(sys.argv[1]):
    l=l.strip()
    if l.startswith('{'):
        try: j=json.loads(l)
        except: pass
v=j.get('findings',j.get('violations',[]))
print(sys.argv[1].split('/')[-1], 'execs', j.get('executions'), 'judged plays', j.get('baseline_known'), 'judged identities', len(j.get('baseline',[])), 'not judged', len(v), 'races', len(j.get('races',[])), 'advisories', len(j.get('advisories',[])))
for x in v: print('   ', x.get('identity') or x.get('signature'))
PY
