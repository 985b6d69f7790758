#!/bin/bash
# columns: bug | 8ea8a7e: seconds to the first violation (NO: none in 20 s), executions | d9833c0 the same
# planted bugs of the reference server, in process, seed $1, 20 s, 2 connections, two binaries alternating
seed=${1:-1}
for bug in $(/tmp/dualfuzz-stale/dualfuzz bugs | cut -f1); do
  line="$bug"
  for b in 8ea8a7e stale; do
    /tmp/dualfuzz-$b/dualfuzz fuzz --target inprocess:$bug --seconds 20 --seed $seed --connections 2 --json -q > /tmp/rb.json 2>/dev/null
    r=$(python3 -c "
import json
s=[json.loads(l) for l in open('/tmp/rb.json') if l.startswith('{')][-1]
print(('%.2f' % (s.get('seconds',0)-s.get('shrink_seconds',0))) if s.get('violation') else 'NO', s.get('executions'))")
    line="$line | $r"
  done
  echo "$line"
done
