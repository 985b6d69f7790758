#!/bin/sh
# cli_test.sh TEST DUALFUZZ SOURCE_DIR WORK_DIR: one end-to-end check of the
# dualfuzz program; exit 0 = pass.
set -u
t=$1 dualfuzz=$2 src=$3 work=$4
script=$src/corpora/http/conditional-put.txt
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fuzzer_env=${DUALFUZZ_FUZZER:-}
unset DUALFUZZ_BUG DUALFUZZ_TARGET DUALFUZZ_FUZZER
DUALFUZZ_FUZZER=$fuzzer_env
fail() { echo "FAIL: $*"; exit 1; }
code() { "$@" > out.txt 2> err.txt; echo $?; }

case $t in
  replay_pass)
    [ "$(code "$dualfuzz" replay --target inprocess "$script")" = 0 ] || fail "exit code"
    head -1 out.txt | grep -q '^==dualfuzz== no violation (server bug: none planted)$' ||
      fail "header: $(head -1 out.txt)"
    ;;
  replay_violation)
    [ "$(code "$dualfuzz" replay --target inprocess:lost-update "$script")" = 1 ] ||
      fail "exit code"
    head -1 out.txt | grep -q '^==dualfuzz== functional violation (server bug: lost-update)$' ||
      fail "header"
    grep -q '^--- script$' out.txt || fail "no script"
    grep -q '^--- trace' out.txt || fail "no trace"
    grep -q 'VIOLATION at event' out.txt || fail "no explanation"
    # The bug comes from the fuzz target's environment too.
    [ "$(DUALFUZZ_BUG=lost-update code "$dualfuzz" replay "$script")" = 1 ] || fail "env"
    ;;
  replay_matches_fuzz_target)
    # The fuzz target prints the same report, then aborts (run when
    # $DUALFUZZ_FUZZER names a built http_inprocess_fuzzer).
    fuzzer=${DUALFUZZ_FUZZER:-}
    [ -x "$fuzzer" ] || { echo "DUALFUZZ_FUZZER not set: skipped"; exit 0; }
    "$dualfuzz" replay --target inprocess:lost-update "$script" > replay.txt
    DUALFUZZ_BUG=lost-update "$fuzzer" "$script" 2> fuzz.txt
    # The report: from the "==dualfuzz==" header to libFuzzer's "==PID== ERROR"
    # (the "played since start" count and the violation key line are not part
    # of the report).
    awk '/^==dualfuzz== (played since start|violation key)/{next} /^==dualfuzz== /{on=1} /^==[0-9]+== /{on=0} on' \
      fuzz.txt > fuzz-report.txt
    cmp replay.txt fuzz-report.txt || fail "reports differ"
    ;;
  run_budget)
    # `run` checks a script without the fuzz executions' budget by default;
    # a budget that runs out gives "inconclusive" (exit 0), never a violation.
    [ "$(code "$dualfuzz" run --target inprocess:lost-update "$script")" = 1 ] ||
      fail "no budget: exit code"
    [ "$(code "$dualfuzz" run --target inprocess:lost-update --oracle-budget 1 "$script")" = 0 ] ||
      fail "budget 1: exit code"
    grep -q 'verdict: inconclusive' out.txt || fail "budget 1: $(head -3 out.txt)"
    ;;
  replay_repeat)
    [ "$(code "$dualfuzz" replay --repeat 3 --target inprocess:lost-update "$script")" = 1 ] ||
      fail "exit code: $(cat err.txt)"
    grep -q 'stable: 3 runs' err.txt || fail "$(cat err.txt)"
    ;;
  run_repeat)
    # --repeat counts the plays and the violations by signature on a last
    # JSON line: every play on the planted bug, none on the correct server.
    [ "$(code "$dualfuzz" run --repeat 4 --target inprocess:lost-update "$script")" = 1 ] ||
      fail "bug: exit code: $(cat err.txt)"
    tail -1 out.txt | grep -q '^{"inconclusive":0,"plays":4,"races":0,"reproduced":4,"signatures":{"model: [^"]*":4},"violations":4}$' ||
      fail "bug: $(tail -1 out.txt)"
    grep -q '^dualfuzz run: the violation reproduced in 4 of 4 plays (every play)$' out.txt ||
      fail "bug: no reproduction line"
    [ "$(code "$dualfuzz" run --repeat 4 --target inprocess "$script")" = 0 ] ||
      fail "correct: exit code: $(cat err.txt)"
    [ "$(tail -1 out.txt)" = '{"inconclusive":0,"plays":4,"races":0,"reproduced":0,"signatures":{},"violations":0}' ] ||
      fail "correct: $(tail -1 out.txt)"
    ;;
  replay_race)
    # A race is counted, not compared, by --repeat; replayed as the fuzz
    # target judges it (races apart: judged past the race, exit 0), or a
    # violation with DUALFUZZ_STOP_ON_RACES=1. run --repeat says it too.
    printf '%s\n%s\n' 'req 1 on c0: {"method":"PUT","path":"/a","body":"x"}' \
      'req 3 on c1: {"method":"PUT","path":"/a","body":"y"}' > race.txt
    [ "$(code "$dualfuzz" replay --repeat 3 --target inprocess:two-step-writes race.txt)" = 0 ] ||
      fail "exit code: $(cat err.txt)"
    grep -q 'a race (not linearizable): reproduced in 3 of 3 plays' err.txt || fail "$(cat err.txt)"
    grep -q '^class: not linearizable' out.txt || fail "no class"
    grep -q "judged past races (consistency 'interval')" out.txt || fail "not judged past"
    tail -n +2 out.txt | grep -q '^==dualfuzz== no violation' || fail "past: $(cat out.txt)"
    [ "$(DUALFUZZ_STOP_ON_RACES=1 code "$dualfuzz" replay --target inprocess:two-step-writes \
         race.txt)" = 1 ] || fail "stop on races: exit code"
    [ "$(code "$dualfuzz" run --repeat 3 --target inprocess:two-step-writes race.txt)" = 1 ] ||
      fail "run: exit code"
    grep -q '^dualfuzz run: a race (not linearizable): the violation reproduced in 3 of 3 plays' \
      out.txt || fail "run: $(cat out.txt)"
    tail -1 out.txt | grep -q '"races":3,"reproduced":3' || fail "run: $(tail -1 out.txt)"
    ;;
  replay_bad_input)
    printf 'req 2 on c0: {"method":\n' > bad.txt
    [ "$(code "$dualfuzz" replay --target inprocess bad.txt)" = 2 ] || fail "malformed"
    grep -q 'not a script' err.txt || fail "message: $(cat err.txt)"
    [ "$(code "$dualfuzz" replay --target inprocess missing.txt)" = 2 ] || fail "missing"
    [ "$(code "$dualfuzz" replay --target no-such-thing "$script")" = 2 ] || fail "target"
    [ "$(code "$dualfuzz" replay --target inprocess:no-such-bug "$script")" = 2 ] ||
      fail "bug"
    [ "$(code "$dualfuzz" minimize --target inprocess bad.txt)" = 2 ] || fail "minimize"
    [ "$(code "$dualfuzz" minimize --target inprocess "$script" -o x.txt)" = 0 ] ||
      fail "minimize without violation"
    ;;
  minimize)
    [ "$(code "$dualfuzz" minimize --target inprocess:lost-update "$script" -o small.txt \
         --chart small.svg)" = 1 ] || fail "exit code: $(cat err.txt)"
    [ -s small.txt ] || fail "no output"
    before=$(grep -c '^req' "$script") after=$(grep -c '^req' small.txt)
    [ "$after" -lt "$before" ] || fail "not smaller: $after requests"
    # The minimized script shows the same violation.
    [ "$(code "$dualfuzz" replay --target inprocess:lost-update small.txt)" = 1 ] ||
      fail "minimized script passes"
    grep -q '<svg' small.svg || fail "chart"
    # --json: the last line names the bug and holds the minimized trace.
    [ "$(code "$dualfuzz" minimize --target inprocess:lost-update "$script" -o s2.txt \
         --json)" = 1 ] || fail "--json exit code"
    tail -1 out.txt > j.txt
    grep -q '^{.*"reproduced":true' j.txt && grep -q '"signature":"model: GET -> 200 after PUT' j.txt &&
      grep -q '"trace":\[{' j.txt || fail "--json line: $(grep -o '"signature":"[^"]*"' j.txt)"
    ;;
  chart)
    [ "$(code "$dualfuzz" run --target inprocess:lost-update --chart c.html "$script")" = 1 ] ||
      fail "exit code"
    grep -q '<!DOCTYPE html>' c.html && grep -q 'class="msg response kill"' c.html ||
      fail "html chart"
    [ "$(code "$dualfuzz" replay --target inprocess --chart c.svg "$script")" = 0 ] ||
      fail "exit code"
    grep -q '^<svg' c.svg || fail "svg chart"
    ! grep -q 'class="msg [a-z]* kill"' c.svg || fail "highlight without violation"
    [ "$(code "$dualfuzz" replay --target inprocess --chart /nonexistent/c.svg "$script")" = 2 ] ||
      fail "unwritable chart"
    ;;
  history_chart)
    # A rejected history (exit 1) and its chart: the failing partition, the
    # operation no order places; an accepted one (exit 0); one thread and two
    # print the same report.
    h=$src/corpora/jepsen/etcd_097.log
    [ "$(code "$dualfuzz" history --format jepsen-etcd --chart h.html "$h")" = 1 ] ||
      fail "exit code"
    grep -q 'VIOLATION at event' out.txt || fail "no explanation"
    grep -q 'class="violated">Partition (the whole history): VIOLATED' h.html ||
      fail "no failing partition"
    grep -q 'class="op kill"' h.html && grep -q 'class="op explained"' h.html ||
      fail "no prefix or unplaced operation"
    grep -q 'No order places the operation answered by event' h.html || fail "no event"
    "$dualfuzz" history --format jepsen-kv --threads 1 "$src/corpora/jepsen/c01-ok.txt" |
      sed 's/, [0-9.e-]* s)$//' > one.txt
    "$dualfuzz" history --format jepsen-kv --threads 2 "$src/corpora/jepsen/c01-ok.txt" |
      sed 's/, [0-9.e-]* s)$//' > two.txt
    grep -q ': ACCEPTED' one.txt && cmp -s one.txt two.txt || fail "threads: $(cat one.txt two.txt)"
    [ "$(code "$dualfuzz" history --format jepsen-etcd --chart /nonexistent/h.html "$h")" = 2 ] ||
      fail "unwritable chart"
    ;;
  fuzz_shrink)
    # --shrink: one script, shrunk to the same violation; the noise on
    # another path and the GET after the violating PUT go.
    printf '%s\n' 'req 1 on c0: {"method":"PUT","path":"/doc","body":"a"}' \
      'req 3 on c1: {"method":"GET","path":"/other"}' \
      'req 5 on c0: {"method":"GET","path":"/doc"}' > s.txt
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --shrink s.txt --json)" = 1 ] ||
      fail "exit code: $(cat err.txt)"
    tail -1 out.txt > j.txt
    grep -q '"signature":"model: PUT -> 204"' j.txt && grep -q '"min_messages":2' j.txt &&
      grep -q '"reproduced":true' j.txt || fail "finding: $(cat j.txt)"
    # No violation on the correct server: exit 0, and it says so.
    [ "$(code "$dualfuzz" fuzz --target inprocess --shrink s.txt --shrink-tries 3 --json)" = 0 ] ||
      fail "correct server: exit code"
    grep -q '^{"plays":3,"violation":false}$' out.txt || fail "no-violation line: $(cat out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess --shrink missing.txt)" = 2 ] ||
      fail "missing file"
    ;;
  fuzz_keep_going)
    # --keep-going reports the first violation and goes on until --seconds.
    # (8 s, not 4: under a loaded ctest -j the first finding came late.)
    [ "$(code "$dualfuzz" fuzz --target inprocess:etag-reuse --seconds 8 --seed 1 \
         --connections 2 --keep-going --json -q)" = 1 ] || fail "exit code: $(cat err.txt)"
    tail -1 out.txt > summary.json
    python3 - summary.json <<'PY' || fail "summary: $(cat summary.json)"
import json, sys
j = json.load(open(sys.argv[1]))
v = j["violations"]
assert j["violation"] is True and len(v) >= 1, "no violation listed"
sigs = [x["signature"] for x in v]
assert len(set(sigs)) == len(sigs), "a signature listed twice"
first = min(x["first_seconds"] for x in v)
# It went on: the run lasted its budget, well past the first violation,
# and executed more scripts after it.
assert j["seconds"] >= 7.5 and first < 6, (j["seconds"], first)
assert j["executions"] > max(x["first_execution"] for x in v), "stopped at a violation"
for x in v:
    assert x["kind"] in ("model", "protocol", "liveness"), x["kind"]
    assert x["count"] >= 1, x
    # A finding whose requests overlapped in time hangs on the interleaving:
    # its replay may not meet the same one, and the summary says so. Every
    # sequential finding must replay.
    assert x["reproduced"] is True or (x["reproduced"] is False and x["overlapping"]), x
    assert x["script"].startswith("req ") or "\nreq " in x["script"], x["script"]
    assert 0 < x["min_steps"] <= x["steps"], x
# The minimized etag-reuse counterexample is found more than once in 4 s.
assert sum(x["count"] for x in v) > len(v), "no repeat counted"
assert any(x["reproduced"] is True and not x["overlapping"] for x in v), "no sequential finding"
PY
    # Each distinct violation is printed once, with its minimized script.
    n=$(grep -c '^=== violation ' out.txt)
    [ "$n" = "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["violations"]))' summary.json)" ] ||
      fail "$n reports"
    grep -q '^--- minimized script' out.txt || fail "no minimized script"
    # Without --keep-going the run stops at the first violation, as before.
    [ "$(code "$dualfuzz" fuzz --target inprocess:etag-reuse --seconds 30 --seed 1 \
         --connections 2 --json -q)" = 1 ] || fail "exit code without --keep-going"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] and "violations" not in j and j["seconds"] < 10, j
assert j["reproduced"] is True and j["min_steps"] <= j["steps"], j' || fail "single: $(tail -1 out.txt)"
    # The correct server: no violation, an empty list.
    [ "$(code "$dualfuzz" fuzz --target inprocess --seconds 2 --keep-going --json -q)" = 0 ] ||
      fail "false alarm: $(cat out.txt)"
    tail -1 out.txt | grep -q '"violations":\[\]' || fail "list: $(tail -1 out.txt)"
    ;;
  fuzz_races)
    # Races apart: two-step-writes only races (two creating PUTs both 201),
    # reported under "races" and as "=== race N", no violation, exit 0; the
    # run goes on to --seconds. --stop-on-races, or --consistency atomic
    # --strict, stops at the first race, exit 1. A sequential bug still
    # stops the run by default.
    [ "$(code "$dualfuzz" fuzz --target inprocess:two-step-writes --seconds 3 --seed 1 \
         --json -q)" = 0 ] || fail "exit code: $(cat out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] is False and j["findings"] == [] and j["stop_on_races"] is False, j
r = j["races"]
assert len(r) >= 1 and j["race_plays"] >= len(r) and j["seconds"] >= 2.9, j
assert all(x["class"] == "not-linearizable" and x["count"] >= 1 for x in r), r
' || fail "summary: $(tail -1 out.txt)"
    grep -q '^=== race 1: model: ' out.txt || fail "no race printed: $(head -5 out.txt)"
    grep -q 'distinct races\{0,1\} in [0-9]* plays: not linearizable' out.txt ||
      fail "no race section"
    grep -q '^dualfuzz fuzz: no violation in' out.txt || fail "no 'no violation'"
    for stop in "--stop-on-races" "--consistency atomic --strict"; do
      # shellcheck disable=SC2086
      [ "$(code "$dualfuzz" fuzz --target inprocess:two-step-writes --seconds 30 --seed 1 \
           $stop --json -q)" = 1 ] || fail "$stop: exit code"
      tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] and j["class"] == "not-linearizable" and j["seconds"] < 10, j
assert j["stop_on_races"] is True and j["races"] == [], j
' || fail "$stop: $(tail -1 out.txt)"
    done
    [ "$(code "$dualfuzz" fuzz --target inprocess:lost-update --seconds 30 --seed 1 \
         --json -q)" = 1 ] || fail "sequential bug: exit code"
    tail -1 out.txt | grep -q '"class":"protocol"' || fail "sequential: $(tail -1 out.txt)"
    ;;
  fuzz_baseline)
    # --baseline FILE: a run's --json output recorded, then compared: the
    # same bug's findings are counted, not reported (exit 0); another bug
    # (range-end-exclusive: a GET answered 206 after a PUT) is reported with
    # its identity; an unreadable file is trouble.
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 4 --seed 1 \
         --connections 1 --keep-going --json -q)" = 1 ] || fail "record: exit code"
    cp out.txt baseline.json
    grep -q '"identity":"model: PUT -> 2xx | ' baseline.json || fail "$(tail -1 baseline.json)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 2 --seed 1 \
         --connections 1 --keep-going --baseline baseline.json --json -q)" = 0 ] ||
      fail "compare: exit code: $(cat out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violations"] == [] and j["baseline_known"] > 0, j
assert sum(b["count"] for b in j["baseline"]) == j["baseline_known"], j
' || fail "summary: $(tail -1 out.txt)"
    grep -q 'known finding(s) of the baseline seen, not reported (--baseline baseline.json)' \
      out.txt || fail "$(cat out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:range-end-exclusive --seconds 30 --seed 1 \
         --connections 1 --baseline baseline.json --json -q)" = 1 ] || fail "new bug: exit code"
    tail -1 out.txt | grep -q '"identity":"model: GET {range:other} -> 2xx | ' ||
      fail "new bug: $(tail -1 out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 2 \
         --baseline nonexistent.json)" = 2 ] || fail "unreadable baseline: exit code"
    ;;
  fuzz_known_judged)
    # --known judged:SERVER: the plug-in's judgements of that server
    # (protocols/http/judgements.json) as known findings. head-range (a HEAD
    # with a Range answered 206 or 416) is what nginx does (judged,
    # RFC 9110 §14.2): counted, not reported; without them the same run
    # stops on it; a server nobody judged is trouble, with the judged ones.
    [ "$(code "$dualfuzz" fuzz --target inprocess:head-range --seconds 30 --seed 3 \
         --connections 1 --json -q)" = 1 ] || fail "without: exit code"
    tail -1 out.txt | grep -q '"identity":"model: HEAD {range:other} -> ' ||
      fail "without: $(tail -1 out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:head-range --seconds 4 --seed 3 \
         --connections 1 --known judged:nginx-static --json -q)" = 0 ] ||
      fail "judged: exit code: $(tail -1 out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["findings"] == [] and not j["violation"] and j["baseline_known"] > 0, j
assert j["baseline_file"] == "judged:nginx-static", j
' || fail "judged: $(tail -1 out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:head-range --seconds 2 \
         --known judged:nosuch)" = 2 ] || fail "unjudged server: exit code"
    grep -q "no judgement of the server 'nosuch' (judged: nginx-static" err.txt ||
      fail "unjudged server: $(cat err.txt)"
    ;;
  fuzz_known)
    # --known FILE: a listed planted bug (create-204: a creating PUT answers
    # 204; on one connection its only keys) is counted, not reported; the
    # same run without the list stops on it; a malformed list is trouble.
    printf '# create-204\nmodel: PUT* -> 204\n' > known.txt
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 2 --seed 1 \
         --connections 1 --known known.txt --json -q)" = 0 ] || fail "exit code: $(cat out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] is False and j["known_violations"] > 0, j
assert j["known"] == [{"pattern": "model: PUT* -> 204", "count": j["known_violations"]}], j
' || fail "summary: $(tail -1 out.txt)"
    grep -q 'known violation(s) not reported (--known known.txt)' out.txt || fail "$(cat out.txt)"
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 30 --seed 1 \
         --connections 1 --json -q)" = 1 ] || fail "without the list: exit code"
    tail -1 out.txt | grep -q '"known_violations":0' || fail "$(tail -1 out.txt)"
    printf 'model: PUT -> 204\nPUT -> 204\n' > bad.txt
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 2 --known bad.txt)" = 2 ] ||
      fail "malformed list: exit code"
    grep -q "bad.txt:2: 'PUT -> 204' does not start with a violation kind" err.txt ||
      fail "malformed list: $(cat err.txt)"
    ;;
  unison_run)
    # The file-synchronizer plug-in: the reference synchronizer passes, a
    # planted bug is caught on the same script.
    u=$src/corpora/unison/conflict.txt
    [ "$(code "$dualfuzz" run --spec unison --target inprocess "$u")" = 0 ] ||
      fail "reference: $(tail -3 out.txt)"
    grep -q '^verdict: no violation$' out.txt || fail "no verdict"
    [ "$(code "$dualfuzz" run --spec unison --target inprocess:conflict-a-wins "$u")" = 1 ] ||
      fail "planted bug not found"
    grep -q 'VIOLATION at event' out.txt || fail "no explanation"
    [ "$(code "$dualfuzz" run --spec unison --target inprocess:no-such-bug "$u")" = 2 ] ||
      fail "unknown bug"
    ;;
  unison_fuzz)
    [ "$(code "$dualfuzz" fuzz --spec unison --target inprocess:lost-deletion \
          --connections 1 --seconds 30 --seed 3 -q)" = 1 ] || fail "not found"
    grep -q '^--- minimized script' out.txt || fail "not minimized"
    ;;
  unison_bugs)
    [ "$(code "$dualfuzz" bugs --spec unison)" = 0 ] || fail "exit code"
    [ "$(wc -l < out.txt)" -ge 8 ] || fail "fewer than 8 planted bugs"
    grep -q '^lost-deletion' out.txt || fail "lost-deletion missing"
    ;;
  proxy_bugs)
    [ "$(code "$dualfuzz" bugs --spec proxy)" = 0 ] || fail "exit code"
    [ "$(wc -l < out.txt)" -ge 10 ] || fail "fewer than 10 planted bugs"
    grep -q '^cross-talk' out.txt || fail "cross-talk missing"
    [ "$(code "$dualfuzz" serve --proxy --bug list)" = 0 ] || fail "serve --bug list"
    grep -q '^no-via' out.txt || fail "serve --proxy --bug list: no-via missing"
    ;;
  proxy_serve)
    # The reference proxy as a process (serve --proxy), tested over TCP with
    # the tester as its clients and its origin: correct passes, a planted bug
    # is a violation, and a proxy target without --origin is trouble.
    printf 'req 1 on c0: {"path":"/a"}\nreq 3 on c1: {"path":"/b"}\nwait 1\nwait 3\n' > p.txt
    # (Below the ephemeral range, 32768+, where another test's connection may hold it.)
    origin=127.0.0.1:$((20000 + $$ % 12000))
    for bug in "" no-via; do
      "$dualfuzz" serve --proxy --port 0 --origin "$origin" ${bug:+--bug $bug} 2> serve.txt &
      pid=$!
      port=""
      for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' serve.txt)
        [ -n "$port" ] && break
        sleep 0.1
      done
      [ -n "$port" ] || { kill $pid; fail "serve --proxy did not start: $(cat serve.txt)"; }
      want=0; [ -z "$bug" ] || want=1
      got=$(code "$dualfuzz" run --spec proxy --target "127.0.0.1:$port" --origin "$origin" p.txt)
      [ "$got" = "$want" ] || { kill $pid; fail "bug '$bug': exit $got: $(cat out.txt err.txt)"; }
      grep -q '^  o1 < ' out.txt || { kill $pid; fail "bug '$bug': no origin side: $(cat out.txt)"; }
      [ "$(code "$dualfuzz" run --spec proxy --target "127.0.0.1:$port" p.txt)" = 2 ] ||
        { kill $pid; fail "no --origin: not trouble"; }
      kill $pid
      wait $pid 2>/dev/null || true
    done
    ;;
  trace_formats)
    # A readable line per message by default; --json gives each message's IR.
    for cmd in run replay; do
      [ "$(code "$dualfuzz" $cmd --target inprocess:lost-update "$script")" = 1 ] ||
        fail "$cmd: exit code"
      grep -q '^  c0 > 5 PUT /doc  if-match: "1"  (2 bytes)$' out.txt ||
        fail "$cmd: readable request: $(grep ' > 5 ' out.txt)"
      grep -q '^  c0 < 6 204  .*etag: "2"' out.txt || fail "$cmd: readable response"
      ! grep -q '^  c[0-9]* [<>] [0-9]* {' out.txt || fail "$cmd: JSON by default"
      [ "$(code "$dualfuzz" $cmd --json --target inprocess:lost-update "$script")" = 1 ] ||
        fail "$cmd --json: exit code"
      grep -q '^  c0 > 5 {.*"if-match":"\\"1\\"".*"method":"PUT"' out.txt ||
        fail "$cmd --json: $(grep ' > 5 ' out.txt)"
      grep -q 'VIOLATION at event' out.txt || fail "$cmd --json: no explanation"
    done
    # fuzz: the minimized counterexample readable, its chart written.
    [ "$(code "$dualfuzz" fuzz --target inprocess:create-204 --seconds 20 --seed 1 -q \
         --chart f.html)" = 1 ] || fail "fuzz: exit code"
    # (Labels depend on the generated script: any request and its answer.)
    grep -q '^  c[0-9]* > [0-9]* PUT /' out.txt && grep -q '^  c[0-9]* < [0-9]* 204' out.txt ||
      fail "fuzz: $(cat out.txt)"
    grep -q 'class="msg response kill"' f.html || fail "fuzz: chart"
    ;;
  run_http10)
    # Python's http.server answers in HTTP/1.0 and knows no If-Unmodified-
    # Since: its answer implies --assume http10 (RFC 9110 §2.5: it claims
    # HTTP/1.0's requirements only), said on stderr, and the ignored
    # precondition is no violation.
    py=$(python3 -c 'import sys; print(sys.executable)')
    port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p root && printf 'hi\n' > root/a.txt
    "$py" -m http.server "$port" --bind 127.0.0.1 --directory root >/dev/null 2>&1 &
    echo $! > pid
    trap 'kill "$(cat "$work/pid")" 2>/dev/null' EXIT
    i=0
    until "$py" -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
      i=$((i + 1)); [ $i -lt 100 ] || fail "http.server did not start"; sleep 0.1
    done
    printf '%s\n' 'req 1 on c0: {"method":"GET","path":"/a.txt","site":true}' 'wait 1' \
      'req 3 on c1: {"method":"GET","path":"/a.txt","site":true,"headers":{"if-unmodified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}}' \
      > ius.txt
    [ "$(code "$dualfuzz" run --target 127.0.0.1:$port ius.txt)" = 0 ] ||
      fail "exit code: $(cat out.txt err.txt)"
    grep -q 'implies --assume http10' err.txt || fail "no note: $(cat err.txt)"
    # (HTTP/1.0: one request per connection.)
    grep -q '^  c1 < 4 200' out.txt || fail "trace: $(cat out.txt)"
    # --as-stated: judged as HTTP/1.1 asks, the ignored precondition is one.
    [ "$(code "$dualfuzz" run --as-stated --target 127.0.0.1:$port ius.txt)" = 1 ] ||
      fail "--as-stated exit code: $(cat out.txt err.txt)"
    ! grep -q 'implies' err.txt || fail "--as-stated: $(cat err.txt)"
    ;;
  fuzz_crash | fuzz_hang | fuzz_restart | fuzz_baseline_death | fuzz_jobs_shared | run_crash)
    # A server that dies or hangs is a finding (issue 42): tests/cli/
    # dying_server.py, a small python server that any DELETE kills (or
    # hangs). Its other answers are no reference server's: its violations
    # are judged known, its death is what is looked at.
    py=$(python3 -c 'import sys; print(sys.executable)')  # (not a slow shim)
    mode=crash
    [ "$t" = fuzz_hang ] && mode=hang
    start_dying() {  # DIR MODE PORT (0: any): sets started_port
      mkdir -p "$1"
      rm -f "$1/port"
      "$py" "$src/tests/cli/dying_server.py" "$1" "$2" "$3" >/dev/null 2>&1 &
      i=0
      while [ ! -s "$1/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
      [ -s "$1/port" ] || fail "the server ($2) did not start"
      started_port=$(cat "$1/port")
    }
    start_server() {  # PORT (0: any)
      start_dying "$work" "$mode" "$1"
      port=$started_port
    }
    trap '[ -f "$work/pid" ] && kill -9 "$(cat "$work/pid")" 2>/dev/null' EXIT
    start_server 0
    printf 'model: *\nprotocol: *\nliveness*\n' > known.txt
    case $t in
      run_crash)
        printf '%s\n' 'req 1 on c0: {"method":"PUT","path":"/a","body":"x"}' 'wait 1' \
          'req 3 on c0: {"method":"DELETE","path":"/a"}' > kill.txt
        [ "$(code "$dualfuzz" run --target 127.0.0.1:$port kill.txt)" = 1 ] ||
          fail "exit code: $(cat out.txt err.txt)"
        grep -q '^the server died: it refused connections after it had taken requests' out.txt ||
          fail "$(cat out.txt)"
        grep -q '^  c0 > 3 DELETE /' out.txt || fail "trace: $(cat out.txt)"
        ;;
      fuzz_crash | fuzz_hang)
        # No restart, no supervisor: the run stops with the death, exit 1.
        [ "$(code "$dualfuzz" fuzz --target 127.0.0.1:$port --seconds 30 --seed 1 \
             --timeout-ms 300 --server-down-seconds 1 --known known.txt --json -q)" = 1 ] ||
          fail "exit code: $(cat out.txt err.txt)"
        if [ $mode = crash ]; then what='the server died'; else what='the server hung'; fi
        grep -q "^dualfuzz fuzz: $what after " out.txt || fail "$(cat out.txt)"
        grep -q "^dualfuzz fuzz: stopped: $what " out.txt || fail "$(cat out.txt)"
        ! grep -q '^dualfuzz fuzz: no violation' out.txt || fail "no violation: $(cat out.txt)"
        tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
f = j["findings"]
assert j["violation"] is True and j["server_lost"] is True, j
assert len(f) == 1 and f[0]["kind"] == sys.argv[1], f
assert f[0]["count"] == 1 and f[0]["reproduced"] is False, f
# (A request pipelined behind the DELETE may go out before the death shows:
# under load the trace held 4 messages. Not replayed, the blame is a guess
# when the last play had no answer and the one before it left requests
# unanswered: under load the probe after the play with the DELETE was
# answered by a thread the DELETE had not yet stopped; both are named then.)
shown = f[0]["script"] + f[0].get("earlier_script", "")
assert "DELETE" in shown and f[0]["min_messages"] <= 4, f[0]
assert f[0]["signature"].startswith(sys.argv[1] + ": "), f[0]["signature"]
' $mode || fail "summary: $(tail -1 out.txt)"
        ;;
      fuzz_jobs_shared)
        # --jobs 2 on one server that any DELETE kills: the other worker's
        # plays lose their answers too, but a death is blamed only on the
        # script that kills the restarted server again alone: one finding,
        # DELETE's, never a PUT or GET of the other worker.
        printf '%s\n' "[ -f '$work/pid' ] && kill -9 \$(cat '$work/pid') 2>/dev/null" \
          "exec '$py' '$src/tests/cli/dying_server.py' '$work' crash $port >/dev/null 2>&1" \
          > restart.sh
        [ "$(code "$dualfuzz" fuzz --target 127.0.0.1:$port --seconds 10 --seed 1 --jobs 2 \
             --keep-going --timeout-ms 300 --restart "sh $work/restart.sh" --known known.txt \
             --json -q)" = 1 ] || fail "exit code: $(cat out.txt err.txt)"
        tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
f = j["findings"]
assert j["jobs"] == 2 and len(j["workers"]) == 2, j["workers"]
assert [x["signature"] for x in f] == ["crash: DELETE"], [x["signature"] for x in f]
assert f[0]["reproduced"] is True and f[0]["min_messages"] == 1, f[0]
assert j["crashes"] >= 1, j
' || fail "summary: $(tail -1 out.txt)"
        ;;
      fuzz_baseline_death)
        # --baseline-target: a death whose shrunk script kills the baseline's
        # own build too is known (counted, no finding, exit 0); on a build
        # without the defect it is reported. Both ways.
        printf '%s\n' "[ -f '$work/pid' ] && kill -9 \$(cat '$work/pid') 2>/dev/null" \
          "exec '$py' '$src/tests/cli/dying_server.py' '$work' crash $port >/dev/null 2>&1" \
          > restart.sh
        for ref_mode in crash serve; do
          start_dying "$work/ref-$ref_mode" $ref_mode 0
          ref=127.0.0.1:$started_port
          want=0; [ $ref_mode = serve ] && want=1
          [ "$(code "$dualfuzz" fuzz --target 127.0.0.1:$port --seconds 4 --seed 1 \
               --timeout-ms 300 --restart "sh $work/restart.sh" --known known.txt \
               --baseline-target $ref --json -q)" = $want ] ||
            fail "exit code with a $ref_mode reference: $(cat out.txt err.txt)"
          kill -9 "$(cat "$work/ref-$ref_mode/pid")" 2>/dev/null
          [ $ref_mode = serve ] && cp out.txt record.json  # (a record of the death)
          tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
deaths = [x for x in j["findings"] if x["kind"] == "crash" and x["reproduced"]]
assert j["crashes"] >= 1, j
if sys.argv[1] == "crash":
    assert deaths == [] and j["reference_known"] >= 1, j
    assert any(b["identity"] == "crash: DELETE" for b in j["baseline"]), j["baseline"]
else:
    assert [x["signature"] for x in deaths] == ["crash: DELETE"], j["findings"]
    assert j["reference_known"] == 0 and j["reference_plays"] >= 1, j
' $ref_mode || fail "summary with a $ref_mode reference: $(tail -1 out.txt)"
        done
        # A record that holds the death (reproduced): the file alone knows it.
        [ "$(code "$dualfuzz" fuzz --target 127.0.0.1:$port --seconds 4 --seed 2 \
             --timeout-ms 300 --restart "sh $work/restart.sh" --known known.txt \
             --baseline record.json --json -q)" = 0 ] ||
          fail "exit code with the record: $(cat out.txt err.txt)"
        tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["crashes"] >= 1 and j["findings"] == [], j
assert any(b["identity"] == "crash: DELETE" for b in j["baseline"]), j["baseline"]
' || fail "summary with the record: $(tail -1 out.txt)"
        ;;
      fuzz_restart)
        # --restart: the campaign restarts it, shrinks the script on the
        # restarted server and goes on; the death is one finding.
        printf '%s\n' "[ -f '$work/pid' ] && kill -9 \$(cat '$work/pid') 2>/dev/null" \
          "exec '$py' '$src/tests/cli/dying_server.py' '$work' crash $port >/dev/null 2>&1" \
          > restart.sh
        [ "$(code "$dualfuzz" fuzz --target 127.0.0.1:$port --seconds 6 --seed 1 \
             --timeout-ms 300 --restart "sh $work/restart.sh" --known known.txt --json -q)" = 1 ] ||
          fail "exit code: $(cat out.txt err.txt)"
        # (On a loaded machine the restarted server may also die of what
        # several scripts did: a death no replay reproduces is reported
        # apart, "reproduced": false, and counted.)
        [ "$(grep -c '^=== crash ' out.txt)" -ge 1 ] || fail "reports: $(cat out.txt)"
        grep -q '^--- minimized script (1 steps, from [0-9]*): played alone on the restarted server, it kills it again$' out.txt ||
          fail "$(cat out.txt)"
        tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
f = [x for x in j["findings"] if x["reproduced"]]
assert j["violation"] is True and j["server_lost"] is False, j
assert len(f) == 1 and f[0]["kind"] == "crash", j["findings"]
assert all(x["kind"] == "crash" for x in j["findings"]), j["findings"]
assert f[0]["signature"] == "crash: DELETE", f
assert f[0]["min_messages"] == 1 and f[0]["count"] >= 1, f
assert sum(x["count"] for x in j["findings"]) == j["crashes"], j
assert j["executions"] > f[0]["first_execution"], "it went on"
' || fail "summary: $(tail -1 out.txt)"
        ;;
    esac
    ;;
  fuzz_jobs)
    # --jobs 2: the first worker's finding stops the other; its report is
    # printed as a single run prints it, the --json line counts both.
    [ "$(code "$dualfuzz" fuzz --target inprocess:lost-update --seconds 30 --seed 3 \
         --jobs 2 --jobs-dir "$work/jobs" --json -q)" = 1 ] || fail "exit code: $(cat out.txt err.txt)"
    grep -q '^--- minimized script' out.txt || fail "no report: $(cat out.txt)"
    grep -q '^dualfuzz fuzz: --jobs 2: worker [01] (seed [34]) found it after' out.txt ||
      fail "no winner: $(cat out.txt)"
    [ -s "$work/jobs/worker-0.out" ] && [ -s "$work/jobs/worker-1.json" ] || fail "worker files"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["jobs"] == 2 and j["violation"] is True and j["kind"] == "model", j
w = j["workers"]
assert [x["seed"] for x in w] == [3, 4], w
assert j["winner"] in (0, 1) and w[j["winner"]]["exit"] == 1, w
assert j["executions"] == sum(x["executions"] for x in w), (j["executions"], w)
assert j["seconds"] < 25, "the other worker was not stopped"
' || fail "summary: $(tail -1 out.txt)"
    # What a worker cannot share is refused before any starts.
    [ "$(code "$dualfuzz" fuzz --target inprocess --jobs 2 --shrink "$script")" = 2 ] ||
      fail "--shrink taken"
    grep -q 'jobs 2: --shrink plays one script' err.txt || fail "$(cat err.txt)"
    ;;
  fuzz_jobs_keep_going)
    # --jobs 2 --keep-going: both run their time; findings merged by identity.
    # (8 s: under a loaded ctest -j a worker's first finding may come late.)
    [ "$(code "$dualfuzz" fuzz --target inprocess:etag-reuse --seconds 8 --seed 1 \
         --connections 2 --jobs 2 --keep-going --json -q)" = 1 ] || fail "exit code: $(cat err.txt)"
    grep -q '^=== violation 1: ' out.txt || fail "no finding printed: $(cat out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
w, v = j["workers"], j["violations"]
assert j["jobs"] == 2 and all(x["exit"] in (0, 1) and x["seconds"] >= 7.5 for x in w), w
assert any(x["exit"] == 1 for x in w), w
assert j["executions"] == sum(x["executions"] for x in w) and j["executions"] > 0, j
keys = [(x["kind"], x["identity"]) for x in v]
assert v and len(set(keys)) == len(keys), keys
assert all(x["count"] >= 1 and x["workers"] for x in v), v
' || fail "summary: $(tail -1 out.txt)"
    # A clean target: no violation, exit 0, every worker counted.
    [ "$(code "$dualfuzz" fuzz --target inprocess --seconds 3 --jobs 2 --json -q)" = 0 ] ||
      fail "clean: $(cat out.txt err.txt)"
    grep -q '^dualfuzz fuzz: no violation$' out.txt || fail "clean: $(cat out.txt)"
    tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] is False and len(j["workers"]) == 2, j
assert all(x["executions"] > 0 for x in j["workers"]), j["workers"]
' || fail "clean summary: $(tail -1 out.txt)"
    ;;
  fuzz_unreachable)
    # Nothing listens: exit 2 (trouble), and the summary says nothing was
    # judged, never "no violation".
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    [ "$(code "$dualfuzz" fuzz --target "127.0.0.1:$port" --seconds 2)" = 2 ] ||
      fail "exit code $(tail -3 out.txt)"
    grep -q 'nothing judged in .* the server never took a script' out.txt ||
      fail "summary: $(tail -2 out.txt)"
    ! grep -q '^dualfuzz fuzz: no violation' out.txt || fail "said no violation"
    ;;
  fuzz_stop_signal)
    # SIGINT ends a run with its summary (exit 0: nothing found), and a
    # --jobs parent hands it on to its workers.
    for jobs in 1 2; do
      "$dualfuzz" fuzz --target inprocess --seconds 120 --jobs $jobs --json -q > out.txt 2> err.txt &
      pid=$!
      sleep 3
      kill -INT $pid
      wait $pid
      rc=$?
      [ $rc = 0 ] || fail "jobs $jobs: exit $rc: $(cat out.txt err.txt)"
      tail -1 out.txt | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["violation"] is False and j["seconds"] < 60, j  # (not its 120 s)
' || fail "jobs $jobs: summary: $(tail -1 out.txt)"
    done
    ;;
  *) fail "unknown test $t" ;;
esac
echo "PASS $t"
