#!/usr/bin/env python3
"""Real servers as black boxes: `dualfuzz fuzz --keep-going` against Apache
httpd (mod_dav), nginx (dav module) and lighttpd (mod_webdav).

For each server and connection count: start it on a free loopback port with
a private document root (scripts/subjects/subject.sh), fuzz it for --seconds
with `dualfuzz fuzz --keep-going --json`, stop it; then write the section
"## Real servers (black box)" of docs/evaluation-journal.md (the other sections are
kept): versions, machine, executions and messages per run, and every
distinct violation with its minimized counterexample, the RFC clause it
breaks and a judgement (JUDGEMENTS below; anything they do not cover is
listed as "unclassified — needs a look").

  bench/eval_realservers.py                        # 3 servers x 600 s, 2 connections
  bench/eval_realservers.py --seconds 60 --servers nginx --connections 1,2
  bench/eval_realservers.py --reuse                # re-render from the raw log

Raw results (one JSON object per run, the fuzz summary line with its
violations) go to --raw (default bench/results/realservers.jsonl); the
section is rendered from the latest run of each (server, connections, seed)
found there, so runs can be added one at a time.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_blackbox  # noqa: E402  (machine(), write_section(), free_port())
import eval_libfuzzer  # noqa: E402  (the fuzz target's report and status lines)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "## Real servers (black box)"
SUBJECT = os.path.join(ROOT, "scripts/subjects/subject.sh")
SERVERS = ["apache2", "nginx", "lighttpd"]
CONFIG = {
    "apache2": "mpm_event, mod_dav + mod_dav_fs (`Dav On`), `MaxKeepAliveRequests 0`",
    "nginx": "1 worker, `dav_methods PUT DELETE`, `create_full_put_path on`",
    "lighttpd": "mod_webdav (`webdav.activate`, not read-only)",
}

# Judgements, keyed by signature. A signature (cli/fuzz_command.cpp,
# signature_of) is "model: <killing request shape> -> <status>[ after
# <earlier requests on the path>][; then <later ones>]" or, when a race was
# needed, "model: <killing request shape> -> <status> (concurrent)"; a
# shape is the method and the precondition fields it carries, "(invalid)"
# when malformed. Each entry: a regular expression the whole signature must
# match, optionally a test one of the oracle's reasons must pass (`reason`:
# what the model expected instead, on the finding's "reasons" data, see
# reasons_of), optionally evidence the counterexample's trace must show
# (`evidence`, described in `shows`), the verdict, the clause, and why. The
# clause the model itself names for the answer it expected (the reasons'
# "clause") is shown beside the judgement's, and stands for it when a
# judgement gives none. The first entry that matches decides; a violation none matches is
# listed as "unclassified — needs a look". A "model gap" entry would mean a
# false alarm: fix protocols/http/src/model.cpp instead of leaving it here.
IMS = r"(?: if-modified-since(?:\(invalid\))?)?"  # If-Modified-Since, ignored by non-GET
IUS = r"(?: if-unmodified-since(?:\(invalid\))?)?"
SEQ = r"(?: after .*?)?(?:; then .*?)?"  # the rest of a signature without a race
# ... or with one: a race-dependent violation is judged by its killing
# request only when every interleaving the oracle tried expected the same
# kind of answer (`expects`: all reasons are a wrong status, expected one of
# these), so the race did not matter to the verdict.
END = rf"(?:{SEQ}| \(concurrent\))"
SERVER_BUG = "server bug"

Q_IF_MATCH = ("§13.1.1: \"An origin server MUST NOT perform the requested method if a "
              "received If-Match condition evaluates to false.\"")
Q_INM = ("§13.1.2: \"An origin server MUST NOT perform the requested method if the "
         "condition evaluates to false; instead, the origin server MUST respond with either "
         "a) the 304 (Not Modified) status code if the request method is GET or HEAD or b) "
         "the 412 (Precondition Failed) status code for all other request methods.\"")
Q_EPOCH = ("(Apache 2.4.71, checked by hand with curl: `If-Unmodified-Since: Thu, 01 Jan "
           "1970 00:00:00 GMT` on a file written today is answered 200 by GET and POST, and "
           "one second later, `Thu, 01 Jan 1970 00:00:01 GMT`, 412: the epoch itself, a "
           "valid HTTP-date, is taken for no date at all — APR's date parser returns 0 for "
           "it, which is also its value for a bad date.)")
Q_IUS_INVALID = ("§13.1.4: \"A recipient MUST ignore the If-Unmodified-Since header field "
                 "if the received field value is not a valid HTTP-date\".")

Q_RANGE_FIRST = ("§14.2: \"The Range header field is evaluated after evaluating the "
                 "precondition header fields defined in Section 13.1, and only if the result in "
                 "absence of the Range header field would be a 200 (OK) response. In other "
                 "words, Range is ignored when a conditional GET would result in a 304 (Not "
                 "Modified) response.\"")
Q_RANGE_GET_ONLY = ("§14.2: \"A server MUST ignore a Range header field received with a "
                    "request method that is unrecognized or for which range handling is not "
                    "defined. For this specification, GET is the only method for which range "
                    "handling is defined.\"")


def wire(m):
    """The TCP connection of a trace message (a script's `close cN` and a
    later request on cN make a new one)."""
    return m.get("wire_conn", m["conn"])


def trace_requests(v):
    """(label, conn, ir) of each request of the counterexample, and
    label -> status of each response."""
    reqs = [(m["label"], wire(m), m["ir"]) for m in v.get("trace", []) if m["label"] % 2]
    status = {m["label"] - 1: m["ir"].get("status") for m in v.get("trace", [])
              if m["label"] % 2 == 0 and m["label"]}
    return reqs, status


def kill_path(v):
    m = KILL_RE.search(v.get("explanation", ""))
    if not m:
        return None
    reqs, _ = trace_requests(v)
    return next((ir.get("path") for l, _, ir in reqs if l == int(m.group(1)) - 1), None)


# The oracle's reasons as data: the finding's "reasons" (campaign::
# finding_json), each {kind, location, expected, observed, clause, state,
# text}: where the response went wrong ("response.status"), the model's
# expectation there ("412 or 304"), the value seen, the RFC clause of the
# answer the model expected, and the explanation's model state (JSON).
# Findings of logs older than that carry only the English explanation: its
# reason lines are read back into the same form (the only place that
# parses the oracle's sentences).
REASON_LINE = re.compile(r"^\s*- (?:broke ([^:]*): )?(.*)$")
STATE_TEXT = re.compile(r" \(server state (.*)\)$")
MISMATCH_TEXT = re.compile(r"^(response[^:]*): expected (.*?)(?:, observed (.*)|, but it is missing)$")


def reasons_of(v):
    if "reasons" in v:
        return v["reasons"]
    out = []
    for line in v.get("explanation", "").splitlines():
        m = REASON_LINE.match(line)
        if not m:
            continue
        clause, text = m.group(1) or "", m.group(2)
        st = STATE_TEXT.search(text)
        state = st.group(1) if st else ""
        core = text[:st.start()] if st else text
        r = {"kind": "other", "location": "", "expected": "", "observed": "",
             "clause": clause, "state": state, "text": text}
        alts = [MISMATCH_TEXT.match(a) for a in core.split("; or ")]
        if core.startswith("the response contradicts what earlier messages revealed: "):
            r.update(kind="contradiction", location="response",
                     observed=core.split(": ", 1)[1].removesuffix(" is impossible"))
        elif all(alts):
            locs = {a.group(1) for a in alts}
            r.update(kind="mismatch", location=alts[0].group(1) if len(locs) == 1 else "response",
                     expected=" or ".join(a.group(2) for a in alts),
                     observed=alts[0].group(3) or "missing")
        out.append(r)
    return out


def statuses(r):
    """The status codes a reason about the status expected ("200 or 204"),
    else the empty set."""
    if r.get("location") != "response.status":
        return set()
    out = set()
    try:  # items are codes or runs "lo-hi" (oracle/src/dualize.cpp)
        for x in r["expected"].split(" or "):
            lo, _, hi = x.partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        return set()
    return out


def model_clauses(findings):
    """The clauses the model named for the answers it expected, over findings."""
    return sorted({r["clause"] for f in findings for r in reasons_of(f) if r.get("clause")})


def explanation_states(v):
    """The explanations' model states (those that are JSON objects)."""
    return [r["state"] for r in reasons_of(v) if r.get("state", "").startswith("{")]


def all_states_missing(v):
    states = explanation_states(v)
    return bool(states) and all(x == '{"missing":true}' for x in states)


def racing_creates(v):
    """Two PUTs of the killing path both answered 201, the second sent before
    the first was answered, on another connection, and no DELETE of the path
    succeeded: a creation race."""
    path, (reqs, status) = kill_path(v), trace_requests(v)
    order = {m["label"]: i for i, m in enumerate(v.get("trace", []))}
    puts = [(l, c) for l, c, ir in reqs if ir.get("path") == path and ir.get("method") == "PUT"
            and status.get(l) == 201]
    if any(ir.get("path") == path and ir.get("method") == "DELETE"
           and str(status.get(l, "")).startswith("2") for l, _, ir in reqs):
        return False
    for l1, c1 in puts:
        for l2, c2 in puts:
            if c1 != c2 and order[l1] < order[l2] < order.get(l1 + 1, 1 << 30):
                return True
    return False


def racing_request(v):
    """Another request on the killing path was in flight on another
    connection while the killing request was."""
    m = KILL_RE.search(v.get("explanation", ""))
    if not m:
        return False
    kill = int(m.group(1)) - 1
    path = kill_path(v)
    trace = v.get("trace", [])
    order = {x["label"]: i for i, x in enumerate(trace)}
    conn = next(wire(x) for x in trace if x["label"] == kill)
    lo, hi = order[kill], order.get(kill + 1, len(trace))
    for x in trace:
        if x["label"] % 2 and wire(x) != conn and x["ir"].get("path") == path:
            a, b = order[x["label"]], order.get(x["label"] + 1, len(trace))
            if a < hi and lo < b:
                return True
    return False


def racing_delete(v):
    """A DELETE of the killing path was in flight on another connection while
    the killing request was."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    return kill is not None and any(
        r[2].get("method") == "DELETE" and overlapping(r, kill) for r in reqs if r is not kill)


def path_requests(v):
    """[(label, wire conn, request ir, response ir or None, index sent,
    index answered)] of the killing path, in trace order."""
    path, trace = kill_path(v), v.get("trace", [])
    idx = {m["label"]: i for i, m in enumerate(trace)}
    out = []
    for i, m in enumerate(trace):
        if m["label"] % 2 and m["ir"].get("path") == path:
            j = idx.get(m["label"] + 1)
            out.append((m["label"], wire(m), m["ir"], trace[j]["ir"] if j is not None else None,
                        i, j if j is not None else len(trace)))
    return out


def kill_label(v):
    m = KILL_RE.search(v.get("explanation", ""))
    return int(m.group(1)) - 1 if m else None


def kill_of(reqs, v):
    """The killing request's entry of path_requests(v), or None."""
    return next((r for r in reqs if r[0] == kill_label(v)), None)


def response_headers(r):
    """The headers of a path_requests entry's response ({} if none)."""
    h = r[3].get("headers") if r[3] else None
    return h if isinstance(h, dict) else {}


def torn_read(v):
    """The killing GET returned a body that no PUT of the path sent."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if not kill or kill[2].get("method") != "GET" or not kill[3]:
        return False
    bodies = {r[2].get("body", "") for r in reqs if r[2].get("method") == "PUT"}
    return kill[3].get("body") not in bodies and kill[3].get("body") is not None


def overlapping(a, b):
    return a[1] != b[1] and a[4] < b[5] and b[4] < a[5]


def racing_deletes(v):
    """Two DELETEs of the path overlapping on different connections, both 2xx,
    and no write of the path (PUT or POST, answered or not) that may have
    taken effect after either was sent: otherwise that write may have made
    the resource again between them (a PUT racing with a DELETE, or an
    unanswered conditional PUT the server performed), and the two 2xx do not
    show a deletion race."""
    reqs = path_requests(v)
    ds = [r for r in reqs if r[2].get("method") == "DELETE" and succeeded(r)]
    writes = [r for r in reqs if r[2].get("method") in ("PUT", "POST")]
    return any(overlapping(a, b) and not any(may_follow(w, a) or may_follow(w, b)
                                             for w in writes)
               for a in ds for b in ds if a is not b)


def racing_writes(v):
    """A PUT or DELETE of the path overlapped, on another connection, with
    another request of the path."""
    reqs = path_requests(v)
    return any(overlapping(a, b) for a in reqs for b in reqs
               if a is not b and a[2].get("method") in ("PUT", "DELETE"))


def may_follow(r, d):
    """Could request r of the path have taken effect after request d? Not if
    r was answered before d was sent, nor if r went before d on the same
    connection (a connection's requests are processed in order)."""
    return not (r[5] < d[4] or (r[1] == d[1] and r[4] < d[4]))


def succeeded(r):
    return r[3] is not None and str(r[3].get("status", "")).startswith("2")


def created_by_conditional_put(v):
    """The killing answer shows the resource existing (200 to a GET, HEAD or
    POST, 304 to a GET or HEAD, 200 or 204 to a PUT or DELETE) where every
    explanation had it missing, and every other PUT of the path that may have
    taken effect after a deletion of it (or at all, if it was never deleted)
    carried If-Match, which is false on a missing resource."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[3] is None:
        return False
    method, status = kill[2].get("method"), kill[3].get("status")
    exists = (status == 200 and method in ("GET", "HEAD", "POST")) or \
        (status == 304 and method in ("GET", "HEAD")) or \
        (status in (200, 204) and method in ("PUT", "DELETE"))
    # Missing in every explanation: the states say so, or (a PUT's states are
    # those after it) only 201 Created was expected.
    missing = all_states_missing(v) or (method == "PUT" and expected_statuses(v) == {201})
    deletes = [r for r in reqs if r[2].get("method") == "DELETE" and succeeded(r)]
    puts = [r for r in reqs if r[2].get("method") == "PUT" and r is not kill and
            (not deletes or any(may_follow(r, d) for d in deletes))]
    return (exists and missing and bool(puts) and
            all("if-match" in r[2].get("headers", {}) for r in puts))


def found_by_412_after_conditional_puts(v):
    """The killing GET, HEAD or DELETE was answered 412 where every
    explanation had the resource missing (so its preconditions had to be
    ignored for the 404, RFC 9110 §13.2.1), and every other PUT of the path
    carried If-Match: the server found a representation that only a PUT with
    a false If-Match can have created."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[3] is None or kill[3].get("status") != 412:
        return False
    if kill[2].get("method") not in ("GET", "HEAD", "DELETE") or not all_states_missing(v):
        return False
    puts = [r for r in reqs if r[2].get("method") == "PUT"]
    return bool(puts) and all("if-match" in r[2].get("headers", {}) for r in puts)


def ius_answered_both_ways(v):
    """The killing request carries If-Unmodified-Since and was answered 412,
    while a GET or HEAD of the path with the same date or an earlier one,
    before it, was answered 200, with no write of the path between them that succeeded: one
    representation, one date, two answers to the same condition."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[3] is None or kill[3].get("status") != 412:
        return False
    date = kill[2].get("headers", {}).get("if-unmodified-since")
    if not isinstance(date, str):
        return False
    for r in reqs:
        # Before it: answered before it was sent, or earlier on the same
        # connection (requests of one connection are processed in order).
        before = r[5] < kill[4] or (r[1] == kill[1] and r[4] < kill[4])
        # The same date, or an earlier one: a condition false at a later
        # date is false at an earlier one too.
        theirs = r[2].get("headers", {}).get("if-unmodified-since")
        same_or_earlier = theirs == date or (
            http_date(theirs) is not None and http_date(date) is not None
            and http_date(theirs) <= http_date(date))
        if (r is not kill and before and r[2].get("method") in ("GET", "HEAD")
                and same_or_earlier and r[3] and r[3].get("status") == 200):
            # A write that may have taken effect between the two: not done
            # before r (answered before r was sent, or ahead of it on r's
            # connection) and not after the killing request in the same way.
            writes = [w for w in reqs if w[2].get("method") in ("PUT", "DELETE")
                      and succeeded(w)
                      and not (w[5] < r[4] or (w[1] == r[1] and w[4] < r[4]))
                      and not (kill[5] < w[4] or (w[1] == kill[1] and w[4] > kill[4]))]
            if not writes:
                return True
    return False


def removed_by_conditional_delete(v):
    """The killing answer shows the resource gone (404, or 201 to a PUT)
    where every explanation had it present, and every other DELETE of the
    path that may have removed it (not answered 4xx) carried If-Match,
    If-None-Match, or an If-Unmodified-Since date before a Last-Modified the
    path showed: one of them was performed although the model could explain
    none of them succeeding."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[3] is None:
        return False
    status = kill[3].get("status")
    states = explanation_states(v)
    # Present in every explanation: for a PUT or DELETE (whose explanation
    # states are those after it) every explanation expected an answer only an
    # existing representation gets (replaced, removed, or a false If-Match).
    expected = expected_statuses(v)
    if kill[2].get("method") == "PUT":
        gone = status == 201 and expected is not None and expected <= {200, 204, 412}
    elif kill[2].get("method") == "DELETE":
        gone = status == 404 and expected is not None and expected <= {200, 202, 204, 412}
    else:
        gone = status == 404 and states and all(x != '{"missing":true}' for x in states)
    dels = [r for r in reqs if r[2].get("method") == "DELETE" and r is not kill and
            not (r[3] is not None and str(r[3].get("status", "")).startswith("4"))]
    # The latest Last-Modified the path showed: an If-Unmodified-Since
    # before it is false for every representation from then on.
    shown = [http_date(r[3]["headers"].get("last-modified")) for r in reqs
             if r[3] and isinstance(r[3].get("headers"), dict)]
    shown = max((d for d in shown if d is not None), default=None)

    def conditional(r):
        h = r[2].get("headers", {})
        ius = http_date(h.get("if-unmodified-since"))
        return bool({"if-match", "if-none-match"} & set(h)) or (
            ius is not None and shown is not None and ius < shown)
    return bool(gone and dels and all(conditional(r) for r in dels))


def inm_matched_but_performed(v):
    """A GET or POST of the path whose If-None-Match names a tag T was answered
    200 with the very content the server had tagged T (the content of the PUT
    or GET whose answer carried ETag T): the server served the
    representation the field named, so the condition was false."""
    reqs = path_requests(v)
    tagged = {}  # ETag -> content it was given to
    for r in reqs:
        resp = r[3]
        if resp and isinstance(resp.get("headers"), dict) and "etag" in resp["headers"]:
            if r[2].get("method") == "PUT":
                tagged[resp["headers"]["etag"]] = r[2].get("body", "")
            elif r[2].get("method") in ("GET", "POST") and resp.get("status") == 200:
                tagged[resp["headers"]["etag"]] = resp.get("body")
    for r in reqs:
        inm, resp = r[2].get("headers", {}).get("if-none-match"), r[3]
        # Only an answer that carries the representation (GET, or POST
        # answered with the resource as a static file) shows which one it was.
        if (isinstance(inm, str) and resp and resp.get("status") == 200
                and r[2].get("method") in ("GET", "POST")):
            for t in (x.strip() for x in inm.split(",")):
                if t in tagged and resp.get("body") == tagged[t] and tagged[t] is not None:
                    return True
    return False


def head_inm_ignored_then_old_content(v):
    """A HEAD of the path whose If-None-Match names (weakly) the tag T a PUT's
    answer gave was answered 200, and the killing GET, later, returned that
    PUT's content: either the HEAD ignored a true If-None-Match or the
    content came back under another tag."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if not kill or kill[2].get("method") != "GET" or not kill[3]:
        return False
    opaque = lambda t: t.strip()[2:] if t.strip().startswith("W/") else t.strip()
    tagged = {}  # opaque ETag -> content
    for r in reqs:
        resp = r[3]
        if (r[2].get("method") == "PUT" and resp and isinstance(resp.get("headers"), dict)
                and "etag" in resp["headers"]):
            tagged[opaque(resp["headers"]["etag"])] = r[2].get("body", "")
    for r in reqs:
        inm, resp = r[2].get("headers", {}).get("if-none-match"), r[3]
        if (r[2].get("method") == "HEAD" and isinstance(inm, str) and resp
                and resp.get("status") == 200 and r[4] < kill[4]):
            for t in map(opaque, inm.split(",")):
                if t in tagged and tagged[t] == kill[3].get("body"):
                    return True
    return False


def if_match_guess_performed(v):
    """A request of the path whose If-Match lists only tags that no response
    of the path ever carried (guesses like "1", or another path's tag) was
    answered 2xx: the model could explain that only by a representation whose
    tag it never saw having that tag, which the oracle found contradicted."""
    reqs = path_requests(v)
    seen = {r[3]["headers"]["etag"] for r in reqs
            if r[3] and isinstance(r[3].get("headers"), dict) and "etag" in r[3]["headers"]}
    for r in reqs:
        im, resp = r[2].get("headers", {}).get("if-match"), r[3]
        if not (isinstance(im, str) and resp and str(resp.get("status", "")).startswith("2")):
            continue
        tags = [t.strip() for t in im.split(",") if t.strip()]
        if tags and "*" not in tags and not any(t in seen for t in tags):
            return True
    return False


def if_match_tag_reused(v):
    """A PUT whose If-Match names one tag T was answered 2xx and replaced the
    path's content by a different one (the last write certainly before it
    was a PUT of other content), and the killing GET or HEAD, certainly
    after it with no write between, shows the new content under T: either
    the If-Match was true and T named the old content too, or it was false
    and the PUT was performed anyway."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[3] is None or kill[2].get("method") not in ("GET", "HEAD"):
        return False
    headers = kill[3].get("headers") if isinstance(kill[3].get("headers"), dict) else {}
    tag = headers.get("etag")
    if kill[3].get("status") != 200 or not isinstance(tag, str):
        return False

    def before(a, b):  # a certainly took effect before b
        return a[5] < b[4] or (a[1] == b[1] and a[4] < b[4])

    writes = [r for r in reqs if r[2].get("method") in ("PUT", "DELETE") and succeeded(r)]
    for p in writes:
        im = p[2].get("headers", {}).get("if-match")
        if p[2].get("method") != "PUT" or im != tag or not before(p, kill):
            continue
        if kill[2].get("method") == "GET" and kill[3].get("body") != p[2].get("body", ""):
            continue
        earlier = [w for w in writes if w is not p and before(w, p)]
        between = [w for w in writes if w is not p and not before(w, p) and not before(kill, w)]
        if between or not earlier or any(overlapping(w, p) for w in writes if w is not p):
            continue
        last = max(earlier, key=lambda w: w[5])
        if last[2].get("method") == "PUT" and last[2].get("body", "") != p[2].get("body", ""):
            return True
    return False


def one_tag_two_contents(v):
    """Two answers of the path carry the same ETag for different content.
    An answer's content: the body of a GET or POST answered 200, the body a
    PUT stored, or, for a HEAD or a 304, the body of the last PUT of the path
    answered 2xx that certainly went before it (when no request of the path
    on another connection overlapped it or that PUT)."""
    contents = {}
    reqs = path_requests(v)
    for r in reqs:
        resp = r[3]
        if not (resp and isinstance(resp.get("headers"), dict) and "etag" in resp["headers"]):
            continue
        method, status = r[2].get("method"), resp.get("status")
        if method == "PUT":
            body = r[2].get("body", "")
        elif method in ("GET", "POST") and status == 200:
            body = resp.get("body")
        elif (method == "HEAD" and status == 200) or status == 304:
            # Another request of the path in flight on another connection:
            # the order is unknown.
            if any(overlapping(x, r) for x in reqs if x is not r):
                continue
            # The writes that certainly went before: answered before the
            # request was sent, or sent before it on its connection (a
            # connection's requests are processed in order).
            done = [x for x in reqs if x is not r and x[2].get("method") in ("PUT", "DELETE")
                    and succeeded(x) and (x[5] < r[4] or (x[1] == r[1] and x[4] < r[4]))]
            done.sort(key=lambda x: x[5])
            if not done or done[-1][2].get("method") != "PUT" or \
                    any(overlapping(x, done[-1]) for x in done if x is not done[-1]):
                continue
            body = done[-1][2].get("body", "")
        else:
            continue
        contents.setdefault(resp["headers"]["etag"], set()).add(body)
    return any(len(b) > 1 for b in contents.values())


HTTP_DATES = [  # RFC 9110 §5.6.7: IMF-fixdate, rfc850-date, asctime-date
    (r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT", "%a, %d %b %Y %H:%M:%S GMT"),
    (r"[A-Z][a-z]+day, \d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d GMT", "%A, %d-%b-%y %H:%M:%S GMT"),
    (r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}", "%a %b %d %H:%M:%S %Y"),
]


def http_date(v):
    """Seconds of an HTTP-date (any of the three formats the model accepts),
    or None."""
    for pattern, fmt in HTTP_DATES:
        if isinstance(v, str) and re.fullmatch(pattern, v):
            try:
                t = datetime.datetime.strptime(v.replace("  ", " 0"), fmt)
            except ValueError:
                return None
            return t.replace(tzinfo=datetime.timezone.utc).timestamp()
    return None


def true_ius_answered_412(v):
    """The killing request carries a valid If-Unmodified-Since date D (and no
    If-Match, which would make it ignored) and was answered 412, while the
    path's Last-Modified, shown by an answer received after every other PUT
    or DELETE of the path was answered and before the killing request was
    sent, is not after D: the condition was true."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or not kill[3] or kill[3].get("status") != 412:
        return False
    h = kill[2].get("headers", {})
    d = http_date(h.get("if-unmodified-since"))
    if d is None or "if-match" in h:
        return False
    writes = [r for r in reqs if r is not kill and r[2].get("method") in ("PUT", "DELETE")]
    if any(r[5] > kill[4] for r in writes):
        return False  # a write of the path not answered before the request
    settled = max((r[5] for r in writes), default=-1)
    shown = [(r[5], http_date(r[3].get("headers", {}).get("last-modified")))
             for r in reqs if r is not kill and r[3] and settled < r[5] < kill[4]
             and isinstance(r[3].get("headers"), dict)]
    shown = [lm for _, lm in sorted(shown) if lm is not None]
    return bool(shown) and shown[-1] <= d


def ius_before_answer(v):
    """The killing request's If-Unmodified-Since is a valid date before the
    Date of its answer: only then can the resource have been modified after
    it, i.e. the condition be false (a date in the future is always true)."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None:
        return False
    d = http_date(kill[2].get("headers", {}).get("if-unmodified-since"))
    now = http_date(response_headers(kill).get("date"))
    return d is not None and now is not None and d < now


def ius_false_answered_2xx(v):
    """A request of the path other than the killing one carries a valid
    If-Unmodified-Since date D, no If-Match, and was answered 2xx with a
    Last-Modified after D: its condition was false by its own answer."""
    kill = kill_label(v)
    for r in path_requests(v):
        h = r[2].get("headers", {})
        if r[0] == kill or not succeeded(r) or "if-match" in h:
            continue
        d = http_date(h.get("if-unmodified-since"))
        lm = http_date(response_headers(r).get("last-modified"))
        if d is not None and lm is not None and lm > d:
            return True
    return False


def ius_false_put_shown(v):
    """The killing GET was answered 200 with the body of a PUT of the path
    that carries a valid If-Unmodified-Since date D and no If-Match (its own
    answer may never have come), while another answer of the path showed a
    different content with a Last-Modified after D: when that PUT took
    effect, the resource had been modified after D."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if not kill or kill[2].get("method") != "GET" or not kill[3] or \
            kill[3].get("status") != 200:
        return False
    shown = kill[3].get("body")
    # Last-Modified dates of the other contents GETs of the path showed.
    other = [http_date(response_headers(x).get("last-modified")) for x in reqs
             if x is not kill and x[3] and x[3].get("status") == 200 and
             x[2].get("method") == "GET" and x[3].get("body") != shown]
    other = [lm for lm in other if lm is not None]
    for r in reqs:
        h = r[2].get("headers", {})
        d = http_date(h.get("if-unmodified-since"))
        if r[2].get("method") != "PUT" or d is None or "if-match" in h or \
                r[2].get("body", "") != shown or (r[3] and r[3].get("status") == 412):
            continue
        if any(lm > d for lm in other):
            return True
    return False


def ius_412_after_same_date_performed(v):
    """The killing request carries a valid If-Unmodified-Since D2 and no
    If-Match and was answered 412, and an earlier request of the path with
    a valid If-Unmodified-Since D1 <= D2 and no If-Match was answered 2xx
    with no write of the path that may have taken effect in between: the
    server itself found D2, so D1, false for the same representation."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if not kill or not kill[3] or kill[3].get("status") != 412:
        return False
    kh = kill[2].get("headers", {})
    d2 = http_date(kh.get("if-unmodified-since"))
    if d2 is None or "if-match" in kh:
        return False
    writes = [w for w in reqs if w[2].get("method") in ("PUT", "DELETE") and w is not kill]
    for r in reqs:
        h = r[2].get("headers", {})
        d1 = http_date(h.get("if-unmodified-since"))
        if r is kill or d1 is None or d1 > d2 or "if-match" in h or not succeeded(r):
            continue
        # Every other write of the path certainly took effect before r.
        if all(not may_follow(w, r) for w in writes if w is not r):
            return True
    return False


def valid_precondition_in_kill(v):
    head = v["signature"].split(" -> ")[0]
    return re.search(r" if-[a-z-]+(?!\()(?: |$)", head) is not None


def invalid_ius_answered_412(v):
    """A request of the killing path with an invalid If-Unmodified-Since was
    answered 412: that answer already breaks §13.1.4, and the model took it as
    evidence about the resource's state."""
    path, (reqs, status) = kill_path(v), trace_requests(v)
    return any(ir.get("path") == path and status.get(l) == 412 and
               "if-unmodified-since" in ir.get("headers", {}) and
               http_date(ir["headers"]["if-unmodified-since"]) is None
               for l, _, ir in reqs)


def ius_despite_if_match_412(v):
    """A request of the killing path with If-Match and a valid
    If-Unmodified-Since was answered 412."""
    path, (reqs, status) = kill_path(v), trace_requests(v)
    return any(ir.get("path") == path and status.get(l) == 412 and
               "if-match" in ir.get("headers", {}) and
               http_date(ir.get("headers", {}).get("if-unmodified-since")) is not None
               for l, _, ir in reqs)


def kill_has_range(v):
    """The killing request carries a Range header field."""
    kill = kill_of(path_requests(v), v)
    return kill is not None and "range" in kill[2].get("headers", {})


def kill_method(v):
    kill = kill_of(path_requests(v), v)
    return kill[2].get("method") if kill else None


def trace_has_405_without_allow(v):
    """The counterexample's trace holds a 405 answer without an Allow field."""
    return any(m.get("ir", {}).get("status") == 405 and
               "allow" not in m.get("ir", {}).get("headers", {})
               for m in v.get("trace", []))


def empty_put_below(v):
    """The killing request is a PUT without content to a path below another
    (a parent collection the fresh namespace does not have)."""
    kill = kill_of(path_requests(v), v)
    return (kill is not None and kill[2].get("method") == "PUT" and
            not kill[2].get("body") and kill[2].get("path", "").count("/") >= 2)


def unknown_state_reason(r):
    """An oracle reason from a path another request may have changed (the
    model's clause for a state it does not know)."""
    return ("a path whose state the model does not know" in r.get("clause", "")
            or r.get("state") == '{"unknown":true}'
            or '(server state {"unknown":true})' in r.get("text", ""))


def kill_is_405_without_allow(v):
    """The killing request's own answer is a 405 without an Allow field."""
    kill = kill_of(path_requests(v), v)
    return (kill is not None and kill[3] is not None and kill[3].get("status") == 405
            and "allow" not in response_headers(kill))


def allow_missing(r):
    """An oracle reason saying the 405 it allowed needed an Allow field."""
    return "response.allow" in r.get("text", "") and "missing" in r.get("text", "")


def inm_names_answer_tag(v):
    """The killing request's If-None-Match is `*` or lists (weak comparison)
    the ETag its answer carries: the condition was false."""
    kill = kill_of(path_requests(v), v)
    if kill is None:
        return False
    inm = kill[2].get("headers", {}).get("if-none-match", "")
    tag = response_headers(kill).get("etag", "")
    opaque = lambda t: t.strip()[2:] if t.strip().startswith("W/") else t.strip()
    return inm.strip() == "*" or (bool(tag) and opaque(tag) in
                                  {opaque(t) for t in inm.split(",")})


def inm_names_path_tag(v):
    """inm_names_answer_tag, or the killing request's If-None-Match lists the
    tag of the path's last answer before it that carried one, with no write
    of the path answered in between (a 416 carries no tag)."""
    if inm_names_answer_tag(v):
        return True
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None:
        return False
    tag = None
    for r in reqs:
        if r is kill:
            break
        if r[2].get("method") in ("PUT", "DELETE", "POST"):
            tag = None
        if r[5] < kill[4] and response_headers(r).get("etag"):
            tag = response_headers(r)["etag"]
    inm = kill[2].get("headers", {}).get("if-none-match", "")
    opaque = lambda t: t.strip()[2:] if t.strip().startswith("W/") else t.strip()
    return tag is not None and opaque(tag) in {opaque(t) for t in inm.split(",")}


def put_204_after_ignored_if_match(v):
    """The killing PUT was answered 204 (replaced) where the model had the
    resource missing, and the only PUTs of the path that may have made it
    before carried If-Match, none answered 412: a server that ignores
    If-Match created it."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    if kill is None or kill[2].get("method") != "PUT" or not kill[3] \
            or kill[3].get("status") != 204:
        return False
    before = [r for r in reqs if r is not kill and r[4] < kill[5]
              and r[2].get("method") == "PUT"]
    made = [r for r in before if r[3] is None or succeeded(r)]
    return bool(made) and all("if-match" in r[2].get("headers", {}) for r in made)


def range_ius_performed(v):
    """A PUT or DELETE of the killing path, not the killing request, carried a
    Range and an If-Unmodified-Since date before its answer's Date, and was
    answered 2xx."""
    reqs = path_requests(v)
    kill = kill_of(reqs, v)
    for r in reqs:
        h = r[2].get("headers", {})
        if r is kill or r[2].get("method") not in ("PUT", "DELETE") or "range" not in h \
                or "if-match" in h:
            continue
        d = http_date(h.get("if-unmodified-since"))
        now = http_date(response_headers(r).get("date"))
        if succeeded(r) and d is not None and now is not None and d < now:
            return True
    return False


def put_inm_star_performed(v):
    """A PUT of the killing path with `If-None-Match: *` was answered 2xx after
    an earlier PUT of the path was answered 2xx, with no successful DELETE of
    the path in between: the resource existed, so `*` was false and the PUT
    had to fail with 412."""
    exists = False
    for r in path_requests(v):
        m, h = r[2].get("method"), r[2].get("headers", {})
        if m == "DELETE" and succeeded(r):
            exists = False
        elif m == "PUT" and succeeded(r):
            if exists and h.get("if-none-match", "").strip() == "*":
                return True
            exists = True
    return False


def weak_if_match_performed(v):
    """A request of the killing path whose If-Match lists only weak tags
    (which never match: §13.1.1 uses the strong comparison) was answered 2xx."""
    path, (reqs, status) = kill_path(v), trace_requests(v)
    for l, _, ir in reqs:
        im = ir.get("headers", {}).get("if-match")
        if (ir.get("path") == path and isinstance(im, str) and
                str(status.get(l, "")).startswith("2")):
            tags = [t.strip() for t in im.split(",") if t.strip()]
            if tags and all(re.fullmatch(r'W/"[^"]*"', t) for t in tags):
                return True
    return False


JUDGEMENTS = [
    # Message syntax (docs/http-ir.md, "Defects sent on purpose").
    {
        "id": "two-host-lines-served",
        "signature": r"model: [A-Z]+ malformed\(two-hosts\).*",
        "verdict": SERVER_BUG,
        "clause": "RFC 9112 §3.2",
        "why": "A request with two Host lines was served. §3.2: \"A server MUST respond with "
               "a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a "
               "Host header field and to any request message that contains more than one "
               "Host header field line\". (Checked by hand: lighttpd 1.4.69 serves `Host: "
               "localhost` twice — 403 for `/`, the answer it gives one Host — and refuses "
               "`Host: a` with `Host: b` with 400.)",
    },
    {
        "id": "invalid-host-served",
        "signature": r"model: [A-Z]+ [^>]*host\(invalid\)[^>]* -> (?!400|413|414|431|501|505)\d+.*",
        "verdict": SERVER_BUG,
        "clause": "RFC 9112 §3.2",
        "why": "A request whose Host value does not match RFC 3986's uri-host [\":\" port] was "
               "served. §3.2: \"A server MUST respond with a 400 (Bad Request) status code to "
               "any ... request message that contains ... a Host header field with an invalid "
               "field value.\" (Checked by hand: nginx 1.22.1 serves `[::1`, `localhost:8o`, "
               "`a@localhost`, `~v1.x]` and `[::1];`, and refuses `local host` and `a/b`.)",
    },
    {
        "id": "absolute-form-host-refused",
        "signature": r"model: [A-Z]+ malformed\(absolute-form\)[^>]*host\(other\)[^>]* -> 400.*",
        "verdict": SERVER_BUG,
        "clause": "RFC 9112 §3.2.2",
        "why": "An absolute-form request (`GET http://localhost/a HTTP/1.1`) with a valid Host "
               "field naming another host was refused with 400. §3.2.2: \"When an origin "
               "server receives a request with an absolute-form of request-target, the origin "
               "server MUST ignore the received Host header field (if any) and instead use "
               "the host information of the request-target.\" (Checked by hand: lighttpd "
               "1.4.69 answers `GET http://localhost/` with `Host: example.com` or `Host: "
               "[::ffff:127.0.0.1]` 400, and with `Host: localhost` as it answers `GET /`.)",
    },
    # Issue 19's request space: ranges, HEAD, OPTIONS and unknown methods.
    {
        "id": "range-on-non-get",
        "signature": r"model: (?:HEAD|POST|PUT|DELETE|OPTIONS|PATCH|FOO)[^>]* -> (?:206|416).*",
        "evidence": kill_has_range,
        "shows": "the killing request, not a GET, carries a Range and was answered 206 or 416",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §14.2",
        "why": "The server applied a Range to a method other than GET: a part (206) or a "
               "refusal of the range (416) where the method's own answer was due. "
               + Q_RANGE_GET_ONLY + " For HEAD, §9.3.2 asks for the header fields a GET "
               "would get (\"SHOULD\"), but the MUST of §14.2 leaves range handling to GET "
               "alone, so a HEAD with Range gets GET's 200 header section. (Checked by hand "
               "with curl: Apache 2.4.71 answers `HEAD` and `POST` with `Range: bytes=0-1` "
               "206, and 416 to a range past the end; nginx 1.22.1 answers `HEAD` 206 and "
               "416; lighttpd 1.4.69 answers HEAD 200.)",
    },
    {
        "id": "405-without-allow",
        "signature": r"model: [A-Z]+[^>]* -> 405.*",
        "reason": allow_missing,
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §15.5.6",
        "why": "A 405 (Method Not Allowed) without an Allow field. §15.5.6: \"The origin "
               "server MUST generate an Allow header field in a 405 response containing a "
               "list of the target resource's currently supported methods.\" (Checked by "
               "hand with curl: nginx 1.22.1 answers OPTIONS, POST, PATCH and an unknown "
               "method FOO with `405 Not Allowed` and no Allow, on existing and missing "
               "files; Apache and lighttpd send Allow with their 405s.)",
    },
    {
        "id": "ius-ignored-with-range",
        "signature": r"model: [A-Z]+[^>]* if-unmodified-since[^>]* -> (?:20\d|416).*",
        # Without If-Match: a server that ignores If-Match (and with it the
        # request's other preconditions) is judged by the entries for that.
        "evidence": lambda v: kill_has_range(v) and ius_before_answer(v) and "if-match" not in
        (kill_of(path_requests(v), v) or (0, 0, {}))[2].get("headers", {}),
        "shows": "the killing request carries a Range and an If-Unmodified-Since date before "
                 "its answer's Date, and no If-Match",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4, §14.2",
        "why": "If-Unmodified-Since is false (the resource was modified after the date), so "
               "the answer is 412 and the method must not be performed; with a Range in the "
               "request the server skips the precondition: a GET or POST gets the range "
               "(206, 416 past the end, 200 when it ignores it), and a PUT or DELETE is "
               "performed. §13.1.4: \"An origin server MUST NOT perform the requested method "
               "if the condition evaluates to false.\" " + Q_RANGE_FIRST + " (Checked by "
               "hand with curl on Apache 2.4.71: `If-Unmodified-Since: Sun, 06 Nov 1994 "
               "08:49:37 GMT`, in each of the three date formats, is answered 412 by GET, "
               "POST and PUT without Range; with `Range: bytes=2-` GET and POST get 416 on "
               "a 2-byte file, with `Range: bytes=0-0` 206, and a PUT with `Range: "
               "bytes=0-6` is answered 204 and stores its content, a DELETE 204 and removes "
               "the file.)",
    },
    {
        "id": "after-ius-ignored-with-range",
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": range_ius_performed,
        "shows": "an earlier PUT or DELETE of the path with a Range and an If-Unmodified-Since "
                 "date before its answer's Date, and no If-Match, was answered 2xx",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "Earlier in the counterexample a PUT or DELETE with a false "
               "If-Unmodified-Since and a Range was performed (see `ius-ignored-with-range`); "
               "the model explains its 2xx only by a resource modified no later than the "
               "date, which a later answer contradicts.",
    },
    {
        "id": "range-before-preconditions",
        "signature": r"model: (?:GET|HEAD)[^>]* if-none-match[^>]* -> (?:206|416).*",
        "evidence": lambda v: kill_has_range(v) and inm_names_path_tag(v),
        "shows": "the killing GET carries a Range, and its If-None-Match lists the tag its "
                 "answer carries",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2, §14.2",
        "why": "If-None-Match names the current tag (weak comparison), so the answer is 304; "
               "the server answered the Range instead (206, or 416 for a range past the "
               "end). " + Q_RANGE_FIRST + " " + Q_INM + " (Apache 2.4.71 does it for its weak "
               "tags, the ones it gives a file modified within the last second, as it "
               "ignores them without Range; nginx 1.22.1 when an If-Modified-Since other "
               "than the exact Last-Modified comes along, which it lets decide though "
               "§13.1.3 says a recipient MUST ignore If-Modified-Since when If-None-Match "
               "is present.)",
    },
    {
        "id": "if-match-ignored-with-range",
        "signature": r"model: (?:GET|HEAD)[^>]* if-match[^>]* -> 416.*",
        "expects": {412},
        "evidence": kill_has_range,
        "shows": "the killing GET carries a Range",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1, §14.2",
        "why": "The If-Match condition is false, so the answer is 412; the server ignored it "
               "and refused the range with 416 instead. " + Q_IF_MATCH + " " + Q_RANGE_FIRST
               + " (Checked by hand with curl on lighttpd 1.4.69: a GET with `If-Match: "
               "W/\"1\"` is answered 200 without Range, 206 with `Range: bytes=0-1` and 416 "
               "with `Range: bytes=-0`.)",
    },
    {
        "id": "after-if-match-ignored",
        "signature": r"model: PUT[^>]* -> 204 \(concurrent\)",
        "evidence": put_204_after_ignored_if_match,
        "needs": {"if-match-ignored"},
        "shows": "the killing PUT was answered 204 (a replacement) and every PUT of the path "
                 "that could have created the resource before it carried If-Match, which is "
                 "false on a missing resource",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "The resource could only exist by a PUT with If-Match on a missing resource, "
               "which must fail (§13.1.1: If-Match is false when there is no current "
               "representation); the same server ignores If-Match on PUT (`if-match-ignored` "
               "above). " + Q_IF_MATCH,
    },
    {
        "id": "options-content-refused",
        "signature": r"model: OPTIONS[^>]* -> 400.*",
        "evidence": lambda v: bool((kill_of(path_requests(v), v) or (0, 0, {}))[2].get("body")),
        "shows": "the OPTIONS request had content",
        "verdict": "model gap",  # fixed: see why
        "clause": "RFC 9110 §9.3.7",
        "why": "A false alarm, fixed: §9.3.7 defines no use for OPTIONS content and says "
               "\"A client that generates an OPTIONS request containing content MUST send a "
               "valid Content-Type header field describing the representation media type\"; "
               "the generated request had content without one, so the server may refuse it "
               "(Apache 2.4.71 with mod_dav: 400, with or without a Content-Type, checked "
               "with curl). The model now allows 400, 413 or 415 there "
               "(protocols/http/src/model.cpp, test HttpModelMethods."
               "OptionsUnknownMethodsAnd405NeedsAllow); Apache was fuzzed again with the "
               "fixed model where the table says so.",
    },
    {
        "id": "after-if-none-match-star-ignored",
        "signature": r"model: [A-Z]+[^>]* -> \d+ after .*PUT[^;]*if-none-match.*",
        "evidence": put_inm_star_performed,
        "shows": "a PUT with `If-None-Match: *` of the existing resource was answered 2xx",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "Earlier in the counterexample a PUT with `If-None-Match: *` was performed "
               "on a resource that existed (a PUT of it had succeeded): the condition was "
               "false and the answer had to be 412; the later answer shows the PUT took "
               "effect. " + Q_INM,
    },
    {
        "id": "if-match-ignored",
        "signature": rf"model: [A-Z]+ if-match{IMS} -> 20[0-6]{END}",
        "expects": {412},
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "The If-Match condition is false (`*` on a missing resource, or no listed "
               "tag strongly matches the current one; a weak tag never does), and the "
               "server performed the method anyway (If-Modified-Since, when present, does "
               "not matter: it cannot make a request fail with 412). " + Q_IF_MATCH,
    },
    {
        "id": "if-match-ignored",
        "signature": rf"model: [A-Z]+ if-match(?!\()[^>]* -> 20[0-6]{END}",
        "expects": {412},
        "evidence": lambda v: all_states_missing(v),
        "shows": "every surviving explanation had the resource missing",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "The resource does not exist, so the If-Match condition is false whatever "
               "it lists (the other preconditions cannot fail on a missing resource: "
               "If-None-Match is true, If-Unmodified-Since has no date to compare), and "
               "the server performed the method. " + Q_IF_MATCH,
    },
    {
        "id": "if-none-match-ignored",
        "signature": rf"model: (?:PUT|DELETE|POST) if-none-match{IMS} -> 20[0-6]{END}",
        "expects": {412},
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "If-None-Match is `*` on an existing resource or names its current tag, so "
               "the condition is false, and the state-changing method was performed. "
               + Q_INM + " §13.1.2 also says \"A recipient MUST use the weak comparison "
               "function when comparing entity tags for If-None-Match\": a server that "
               "compares strongly for methods other than GET and HEAD, as RFC 2616 §14.26 "
               "said, misses a matching weak tag.",
    },
    {
        "id": "if-none-match-ignored-get",
        "signature": rf"model: (?:GET|HEAD) if-none-match -> 200{END}",
        "expects": {304},
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "If-None-Match is `*` on an existing resource or names its current tag "
               "(weak comparison), so the condition is false: a GET or HEAD must be "
               "answered 304, not 200 with the representation. " + Q_INM,
    },
    {
        "id": "if-none-match-overridden",
        "signature": rf"model: (?:GET|HEAD) if-none-match{IMS}{IUS} -> 200{END}",
        "expects": {304, 412},
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.3, §13.1.4, §13.2.2",
        "why": "If-None-Match is false, so the answer is 304 (or 412 if an accompanying "
               "If-Unmodified-Since is false), never 200; the server let the "
               "accompanying date precondition decide instead and sent 200. §13.1.3: \"A "
               "recipient MUST ignore If-Modified-Since if the request contains an "
               "If-None-Match header field\"; an If-Unmodified-Since that is invalid MUST be "
               "ignored (§13.1.4), and one that is true (the date is not earlier than the "
               "last modification) only passes the request on to step 3 of §13.2.2, "
               "If-None-Match.",
    },
    {
        "id": "invalid-ius-not-ignored",
        "signature": rf"model: [A-Z]+(?:(?: if-match)?(?: if-none-match)?{IMS} "
                     rf"if-unmodified-since\(invalid\) -> 412{SEQ}"
                     rf"| if-unmodified-since\(invalid\) -> 412 \(concurrent\))",
        "reason": lambda r: r["observed"] == "412",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "If-Unmodified-Since is not an HTTP-date, so it must be ignored; the server "
               "answered 412 although no other precondition of the request was false. "
               + Q_IUS_INVALID,
    },
    {
        "id": "ius-despite-if-match",
        "signature": rf"model: [A-Z]+ if-match{IMS} if-unmodified-since -> 412{SEQ}",
        "reason": lambda r: (r["location"] == "response.status" and r["observed"] == "412"
                             and bool(statuses(r) & ({*range(200, 210)} | {304}))),
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4, §13.2.2",
        "why": "If-Match is true, and If-Unmodified-Since must then not be evaluated; the "
               "server answered 412. §13.1.4: \"A recipient MUST ignore "
               "If-Unmodified-Since if the request contains an If-Match header field; the "
               "condition in If-Match is considered to be a more accurate replacement for "
               "the condition in If-Unmodified-Since\".",
    },
    {
        "id": "true-ius-412",
        "signature": r"model: [A-Z]+(?: if-none-match(?:\(invalid\))?)?(?: if-modified-since"
                     r"(?:\(invalid\))?)? if-unmodified-since -> 412.*",
        "expects": {200, 201, 202, 204, 304},
        "evidence": true_ius_answered_412,
        "shows": "the path's Last-Modified, shown after its last write and before the "
                 "request, is not after the If-Unmodified-Since date",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The resource was last modified at or before the If-Unmodified-Since date "
               "(its Last-Modified says so, and nothing wrote it since), so the condition is "
               "true, and the server answered 412. §13.1.4: \"If the selected "
               "representation's last modification date is earlier or equal to the date "
               "provided in the field value, the condition is true.\" (Apache 2.4.71, "
               "checked by hand with curl: mod_dav compares the date with the current time, "
               "not the file's modification time, for PUT and DELETE — a PUT with "
               "`If-Unmodified-Since:` its own Last-Modified is 204 at once and 412 a second "
               "later; GET compares correctly. So the counterexample needs the clock to "
               "cross a second, and does not shrink reliably.)",
    },
    {
        "id": "ius-ignored",
        "signature": rf"model: (?:PUT|DELETE|POST) if-unmodified-since -> 20[0-6]{END}",
        "expects": {412},
        "evidence": ius_before_answer,
        "shows": "the If-Unmodified-Since date is before the answer's Date",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The resource was modified after the If-Unmodified-Since date, so the "
               "condition is false, and the method was performed. §13.1.4: \"An origin "
               "server MUST NOT perform the requested method if the condition evaluates to "
               "false.\" " + Q_EPOCH,
    },
    {
        "id": "ius-ignored-get",
        "signature": rf"model: (?:GET|HEAD) if-unmodified-since -> 200{END}",
        "expects": {412},
        "evidence": ius_before_answer,
        "shows": "the If-Unmodified-Since date is before the answer's Date",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The If-Unmodified-Since date is before the last modification (the model "
               "knows it from Last-Modified, or from the same server answering the same "
               "date with 412 on another method), so the condition is false and a GET or "
               "HEAD must not be performed. §13.1.4: \"When an origin server receives a request "
               "that selects a representation and that request includes an "
               "If-Unmodified-Since header field without an If-Match header field, the origin "
               "server MUST evaluate the If-Unmodified-Since condition per Section 13.2 prior "
               "to performing the method\"; it lets a recipient ignore the field only \"if "
               "the resource does not have a modification date available\", and a resource "
               "the same server evaluates the field for on PUT or DELETE has one (lighttpd "
               "1.4.69 with mod_webdav alone, checked with curl: GET sends no Last-Modified "
               "and ignores the field, PUT answers 412 to a 2001 date). " + Q_EPOCH,
    },
    {
        "id": "strong-etag-reused",
        # With or without a race: two PUTs of the same length in flight at
        # once show it as well as two in sequence.
        "signature": rf"model: (?:GET|HEAD)(?: if-none-match)?{IMS} -> (?:200|304){END}",
        "longer": (8, "A strong tag is reused only if it is seen with two contents. This "
                      "server's answers to PUT carry no ETag, so a content's tag is seen only "
                      "by reading it: a write and a read for each of the two contents, 4 "
                      "requests and 8 messages, the fewest that can show the bug."),
        # The oracle found the tag it saw equal to the previous
        # representation's (on a 304 to If-Modified-Since too: the
        # Last-Modified second had not changed either).
        "reason": lambda r: (r["kind"] == "contradiction"
                             and re.match(r"\(*\$\d+ == ", r["observed"]) is not None),
        "evidence": one_tag_two_contents,
        "shows": "two answers of the path carry the same ETag with different content",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §8.8.1, §8.8.3",
        "why": "The server gave a different content the same strong ETag (and "
               "Last-Modified) as the previous one: both were written in the same second "
               "with the same length, and the tag is made of the modification second and "
               "the length (so an If-None-Match with the old tag is also answered 304). §8.8.1: a strong validator \"changes value whenever a change "
               "occurs to the representation data that would be observable in the content "
               "of a 200 (OK) response to GET\".",
    },
    {
        "id": "precondition-ignored",
        "signature": rf"model: [A-Z]+(?: if-[a-z-]+(?:\(invalid\))?)+ -> 20\d{END}",
        "expects": {412, 304},
        "evidence": valid_precondition_in_kill,
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1, §13.2.2",
        "why": "The request carries several preconditions, and in every explanation one of "
               "them is false (every explanation expected 412 or 304, or a refusal, never a "
               "success); the server performed the request anyway. Each precondition field "
               "of §13.1 says the origin server \"MUST NOT perform the requested method if "
               "the condition evaluates to false\"; the counterexample shows which.",
    },
    {
        "id": "after-if-none-match-ignored",
        "base": ["if-none-match-ignored", "if-none-match-ignored-get", "if-none-match-ignored-head", "if-none-match-overridden"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": inm_matched_but_performed,
        "shows": "a GET or POST with If-None-Match naming tag T was answered 200 with the "
                 "content tagged T",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "Earlier in the counterexample the server performed a request whose "
               "If-None-Match names the tag of the very content it then served, so the "
               "condition was false; the model can only explain the answer by the tag "
               "having changed, which a later answer contradicts. " + Q_INM,
    },
    {
        "id": "after-if-match-ignored",
        "base": ["if-match-ignored"],
        "signature": r"model: [A-Z]+[^>]* -> (?:20\d|304).*",
        "evidence": created_by_conditional_put,
        "shows": "every explanation had the resource missing, the answer shows it exists, "
                 "and every other PUT of the path since its last deletion carried If-Match",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "The resource exists although the only requests that could have created it "
               "were PUTs with If-Match, which is false on a missing resource: the server "
               "performed one of them (its answer may not even have arrived before the "
               "request that shows it). " + Q_IF_MATCH,
    },
    {
        "id": "after-if-match-ignored",
        "base": ["if-match-ignored"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": if_match_guess_performed,
        "shows": "a request with If-Match listing only tags no response of the path carried "
                 "was answered 2xx",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "Earlier in the counterexample the server performed a request whose If-Match "
               "lists only tags the resource never showed; the model could explain that only "
               "by a representation whose tag it had not seen having one of them, which "
               "later answers contradict. " + Q_IF_MATCH,
    },
    {
        "id": "if-match-or-tag-reused",
        "signature": r"model: (?:GET|HEAD) -> 200 after .*PUT if-match.*",
        "reason": lambda r: (r["kind"] == "contradiction"
                             and re.match(r"\(*\$\d+ == ", r["observed"]) is not None),
        "evidence": if_match_tag_reused,
        "shows": "a PUT with If-Match: T replaced the content by another, answered 2xx, and "
                 "a GET after it shows the new content under T",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1 or §8.8.1",
        "why": "The PUT was performed, and afterwards the new content carries the very tag its "
               "If-Match named. If that condition was true, T was the tag of the content "
               "before, so one strong tag named two contents (§8.8.1: a strong validator "
               "\"changes value whenever a change occurs to the representation data\"); if it "
               "was false, the PUT had to fail. (nginx 1.22 ignores If-Match on PUT, see "
               "`if-match-ignored`, and makes its tag from the modification second and the "
               "length, so a guessed tag for the new content hits.) " + Q_IF_MATCH,
    },
    {
        "id": "after-delete-precondition-ignored",
        "base": ["if-match-ignored", "if-none-match-ignored", "precondition-ignored"],
        "signature": r"model: [A-Z]+[^>]* -> (?:404|201).*",
        "evidence": removed_by_conditional_delete,
        "shows": "every explanation had the resource present and every DELETE of the path "
                 "carried If-Match, If-None-Match, or an If-Unmodified-Since date before a "
                 "Last-Modified the path showed",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1, §13.1.2, §13.1.4",
        "why": "The resource is gone although every order of the requests has it present: "
               "the only requests that could remove it were DELETEs whose precondition the "
               "model found false in every order, so the server performed a DELETE whose "
               "precondition had failed. " + Q_INM + " §13.1.1 and §13.1.4 say the same of "
               "If-Match and If-Unmodified-Since.",
    },
    {
        "id": "after-if-match-ignored",
        "base": ["if-match-ignored"],
        "signature": r"model: (?:GET|HEAD|DELETE)[^>]* -> 412.*",
        "evidence": found_by_412_after_conditional_puts,
        "shows": "a 412 where every explanation had the resource missing, and every PUT of "
                 "the path carried If-Match",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1, §13.2.1",
        "why": "The answer 412 shows that the server found a representation to evaluate the "
               "preconditions against: on a missing resource it had to ignore them and answer "
               "404 (§13.2.1: \"A server MUST ignore all received preconditions if its "
               "response to the same request without those conditions ... would have been a "
               "status code other than a 2xx (Successful) or 412\"). The only requests that "
               "could have created it were PUTs with If-Match, which is false on a missing "
               "resource, so one of them was performed (its answer may not have arrived). "
               + Q_IF_MATCH,
    },
    {
        "id": "ius-ignored-get",
        "signature": r"model: [A-Z]+ [^>]*if-unmodified-since(?!\()[^>]* -> 412.*",
        "evidence": ius_answered_both_ways,
        "shows": "an earlier GET or HEAD with the same If-Unmodified-Since date was answered "
                 "200, and no write of the path succeeded in between",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The same representation was asked the same If-Unmodified-Since condition "
               "twice and answered 200 (condition true, or ignored) on GET or HEAD and 412 "
               "(condition false) on the request that killed the last explanation. The 412 is "
               "the one the Last-Modified time supports; the GET or HEAD ignored the field, "
               "which §13.1.4 allows only \"if the resource does not have a modification date "
               "available\": \"the origin server MUST evaluate the If-Unmodified-Since "
               "condition per Section 13.2 prior to performing the method\".",
    },
    {
        "id": "if-none-match-ignored-head",
        "signature": r"model: GET[^>]* -> 200.*",
        "evidence": head_inm_ignored_then_old_content,
        "shows": "a HEAD whose If-None-Match named a PUT's tag was answered 200, and the "
                 "killing GET returned that PUT's content",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.2",
        "why": "A HEAD with If-None-Match naming the current tag (weakly) was answered 200, "
               "and a later GET returned the very content that tag was given to, so the "
               "representation had not changed and the HEAD had to be 304 (the same "
               "server ignores If-None-Match on GET, see `if-none-match-ignored-get`). "
               "Requests the server never answered (it closed the connection) may or may "
               "not have been applied; the model tries both (tests/specs/http_test.cpp, "
               "UnansweredRequestsOfAConnectionTheServerClosed, is this trace). " + Q_INM,
    },
    {
        "id": "torn-read",
        "signature": r"model: GET[^>]* -> 200 \(concurrent\)",
        "evidence": torn_read,
        "shows": "the GET returned a body that no PUT of the path sent",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.1, §9.3.4",
        "why": "A GET racing with a PUT of the same path returned content that no request "
               "ever stored (e.g. the new content's first byte followed by NUL bytes): the "
               "file is replaced in place, and a reader sees it half-written. §9.3.1: GET "
               "transfers \"a current selected representation\"; §9.3.4: PUT replaces the "
               "state with \"the state defined by the representation enclosed\" — no "
               "order of the requests yields this body.",
    },
    {
        "id": "concurrent-creates",
        "signature": r"model: PUT[^>]* -> 201 \(concurrent\)",
        "reason": lambda r: (r["location"] == "response.status" and r["observed"] == "201"
                             and bool(statuses(r) & {200, 204})),
        "evidence": racing_creates,
        "shows": "two overlapping PUTs of the path both answered 201, no DELETE",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.4",
        "why": "Two PUTs of one new path, in flight at the same time on two connections, "
               "are both answered 201 Created; no order of them explains that, since only "
               "the first can have created the resource (§9.3.4: 201 when \"the target "
               "resource does not have a current representation and the PUT successfully "
               "creates one\", 200 or 204 when an existing one was modified). Existence "
               "check and file replacement are separate steps. In sequence the same "
               "requests pass. (With If-None-Match: * on both, this is the lost update "
               "that precondition exists to prevent.)",
    },
    {
        "id": "race-403",
        "signature": r"model: [A-Z]+[^>]* -> 403 \(concurrent\)",
        "evidence": racing_delete,
        "shows": "a DELETE of the path was in flight on another connection",
        "verdict": SERVER_BUG + " (race; a wrong status, no MUST broken)",
        "clause": "RFC 9110 §15, §15.5.4, §15.5.5",
        "why": "A request racing with a DELETE of the same path is answered 403 Forbidden: "
               "the file was there when the server looked it up and gone when it opened it, "
               "and that failure is reported as a permission refusal (Apache 2.4.71, "
               "reproduced by hand with a GET loop against a PUT/DELETE loop: 20 of 1500 "
               "GETs got 403, each logged as \"(2)No such file or directory: AH00132: file "
               "permissions deny server access\"; a PUT loop alone gives none). Any order "
               "of the two requests gives 200 or 404. No MUST of RFC 9110 forbids a 403, "
               "but a status code \"describes the result of the request\" (§15), and the "
               "result was not that \"the server understood the request but refuses to "
               "fulfill it\" (§15.5.4) but that it \"did not find a current representation "
               "for the target resource\" (404, §15.5.5).",
    },
    {
        "id": "after-concurrent-creates",
        "base": ["concurrent-creates"],
        "signature": r"model: [A-Z]+[^>]* -> \d+ \(concurrent\)",
        "evidence": racing_creates,
        "shows": "two overlapping PUTs of the path both answered 201, no DELETE",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.4",
        "why": "The counterexample contains the creation race above (two overlapping PUTs "
               "of the path both answered 201); no order of the requests explains the "
               "answers, and the oracle gives up at a later response of the same "
               "interleaving.",
    },
    {
        "id": "after-ius-ignored",
        "base": ["ius-ignored", "ius-ignored-get"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": ius_false_answered_2xx,
        "shows": "a request of the path with a valid If-Unmodified-Since date answered 2xx "
                 "with a Last-Modified after that date",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "Earlier in the counterexample the server performed a request whose "
               "If-Unmodified-Since is false by the server's own answer (its Last-Modified "
               "is after the date); the model explains that answer only by a resource "
               "modified no later than the date, which a later answer contradicts. "
               "§13.1.4: \"An origin server MUST NOT perform the requested method if the "
               "condition evaluates to false.\" " + Q_EPOCH,
    },
    {
        "id": "after-ius-ignored",
        "base": ["ius-ignored"],
        "signature": r"model: GET[^>]* -> 200.*",
        "evidence": ius_false_put_shown,
        "shows": "a GET returned the body of a PUT with If-Unmodified-Since D, after another "
                 "GET showed a different content last modified after D",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "A PUT whose If-Unmodified-Since was false when it took effect (the resource "
               "had been modified after the date, as a GET showed) was performed: a later "
               "GET returns its content (the PUT's own answer may not have arrived). "
               "§13.1.4: \"An origin server MUST NOT perform the requested method if the "
               "condition evaluates to false.\"",
    },
    {
        "id": "after-ius-ignored",
        "base": ["ius-ignored", "ius-ignored-get"],
        "signature": r"model: [A-Z]+ if-unmodified-since -> 412.*",
        "evidence": ius_412_after_same_date_performed,
        "shows": "a request with If-Unmodified-Since D1 answered 2xx, then, with no write of "
                 "the path since, one with a date D2 >= D1 answered 412",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "The server answered 412 to an If-Unmodified-Since date, so by its own account "
               "the resource was modified after it, and so after the earlier, no later date "
               "of a request it had performed on the same representation; the model explains "
               "that earlier answer only by a true condition, which the 412 contradicts. "
               "§13.1.4: \"An origin server MUST NOT perform the requested method if the "
               "condition evaluates to false.\" (lighttpd 1.4.69, checked with curl on a "
               "file written a moment before: GET and POST with `If-Unmodified-Since: Mon, 01 "
               "Jan 2001 00:00:00 GMT` are answered 200, PUT with it 412.)",
    },
    {
        "id": "after-invalid-ius-412",
        "base": ["invalid-ius-not-ignored"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": invalid_ius_answered_412,
        "shows": "a request of the path with an invalid If-Unmodified-Since answered 412",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4",
        "why": "Earlier in the counterexample the server answered 412 to a request whose "
               "only possibly false precondition was an invalid If-Unmodified-Since (the "
               "bug above); the model can only explain that 412 by some other state of the "
               "resource, which a later answer contradicts. " + Q_IUS_INVALID,
    },
    {
        "id": "after-ius-despite-if-match",
        "base": ["ius-despite-if-match"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": ius_despite_if_match_412,
        # Only on a server caught evaluating If-Unmodified-Since despite
        # If-Match for certain (the entry above, elsewhere in the campaign).
        "needs": {"ius-despite-if-match"},
        "shows": "a request of the path with If-Match and If-Unmodified-Since answered 412, on "
                 "a server that evaluates If-Unmodified-Since despite If-Match",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.4, §13.2.2",
        "why": "Earlier in the counterexample the server answered 412 to a request whose "
               "If-Match it had to evaluate instead of its If-Unmodified-Since (the bug "
               "above); the model can only explain that 412 by a false If-Match, i.e. by "
               "another state of the resource, which a later answer contradicts.",
    },
    {
        "id": "after-weak-if-match-performed",
        "base": ["if-match-ignored"],
        "signature": r"model: [A-Z]+[^>]* -> \d+.*",
        "evidence": weak_if_match_performed,
        "shows": "a request of the path with only weak If-Match tags answered 2xx",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §13.1.1",
        "why": "Earlier in the counterexample the server performed a request whose If-Match "
               "lists only weak tags, which never match (If-Match uses the strong "
               "comparison); the model can only explain that by the tag matching, which a "
               "later answer contradicts. " + Q_IF_MATCH,
    },
    {
        "id": "racing-deletes",
        "signature": r"model: [A-Z]+[^>]* -> \d+ \(concurrent\)",
        "evidence": racing_deletes,
        "shows": "two DELETEs of the path overlapped on two connections, both answered 2xx",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.5",
        "why": "Two DELETEs of one resource, in flight at the same time, are both answered "
               "as successful deletions, and no order of the requests explains the answers "
               "(the second of any order finds nothing to delete: 404). The deletion and "
               "the check that there is something to delete are separate steps.",
    },
    {
        "id": "not-linearizable",
        "longer": (8, "Each answer fits some order of the racing requests, and only a later "
                      "answer rules out the last order: a request that makes the state raced "
                      "on (2 messages), two overlapping requests (4) and that later answer "
                      "(2); 7 when a racing request's own answer never came (its connection "
                      "was closed). Before keeping more than 6 messages the shrinker played "
                      "smaller skeletons of the race, each up to 25 times, and none showed it "
                      "(the killing request with one racing request after none, the last one "
                      "or the last two earlier requests of the path; since commits 2f08767 "
                      "and 4398d58 also sent in either order and after any one earlier "
                      "request, as the follow-up shrinks were)."),
        "signature": r"model: [A-Z]+[^>]* -> \d+ \(concurrent\)",
        "evidence": racing_writes,
        # Only for a server that, in the same campaign, was caught in a race
        # for certain (the entries above): a single-threaded server's
        # race-dependent violation is the late effect of another bug.
        "needs": {"concurrent-creates", "racing-deletes", "torn-read", "race-403"},
        "shows": "a PUT or DELETE of the path overlapped, on another connection, with another "
                 "request of the path, on a server caught in a race for certain (creates, "
                 "deletes, torn read or 403 above)",
        "verdict": SERVER_BUG + " (race)",
        "clause": "RFC 9110 §9.3.4, §9.3.5",
        "why": "Requests of one path overlapped in time on two connections, and no order of "
               "them explains the answers: the server's PUT and DELETE do not take effect at "
               "one instant (checks, writes and renames of a file are separate steps), so "
               "answers reflect a mixture of states. The oracle tries every order of "
               "overlapping requests; the same requests in sequence pass; and the reference "
               "server gives no violation with up to 8 connections (black-box section "
               "above), so the model's handling of concurrency is not the suspect. Judged "
               "by this generic rule only after the specific ones above did not apply; one "
               "of the server's precondition bugs can be involved too, the race hides which.",
    },
    {
        "id": "content-length-then-close",
        "longer": (7, "The stale length comes from the server's cache of the file's size: "
                      "a PUT makes the file, a GET caches its size, a shorter PUT in the same "
                      "second truncates it, and the next GET's announced length is the cached "
                      "one; its answer never completes, so 4 requests make 7 messages. The "
                      "shrinker tried the script without each of these steps, and none "
                      "showed it."),
        "signature": r"protocol: connection closed in the middle of a response at byte N: S",
        "verdict": SERVER_BUG,
        "clause": "RFC 9112 §6.3, RFC 9110 §8.6",
        "why": "The response header announced a Content-Length, and the server closed the "
               "connection before sending that many bytes. RFC 9112 §6.3: with a valid "
               "Content-Length, \"If the sender closes the connection or the recipient "
               "times out before the indicated number of octets are received, the "
               "recipient MUST consider the message to be incomplete\"; RFC 9110 §8.6: a "
               "sender MUST NOT send a Content-Length that differs from the content's "
               "length. (lighttpd 1.4.69, checked by hand with curl: after a PUT truncates "
               "a file within the same second, GET answers with the old file's "
               "Content-Length and closes without a body.)",
    },
    {
        "id": "empty-put-missing-parent-500",
        "signature": r"model: PUT -> 500",
        "evidence": empty_put_below,
        "shows": "the killing PUT has no content and its path's parent does not exist",
        "verdict": SERVER_BUG,
        "clause": "RFC 4918 §9.7.1",
        "why": "A PUT below a missing parent collection answered 500. RFC 4918 §9.7.1: "
               "\"A PUT that would result in the creation of a resource without an "
               "appropriately scoped parent collection MUST fail with a 409 (Conflict).\" "
               "(Checked by hand with curl: lighttpd 1.4.69 answers `PUT /nodir/f` with "
               "Content-Length: 0 with 500, and the same PUT with one byte of content "
               "with 409. Found once paths kept their hierarchy on external servers.)",
    },
    {
        "id": "405-without-allow-raced",
        "signature": r"model: [A-Z]+[^>]* -> 405 \(concurrent\)",
        "evidence": kill_is_405_without_allow,
        "shows": "the killing request's own answer is a 405 without Allow",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §15.5.6",
        "why": "The 405-without-allow class while another request of the path was in "
               "flight: the model could explain the 405 only with an Allow field, and the "
               "order of the racing requests changed which of its other answers the "
               "reasons name.",
    },
    {
        # Paths keep their hierarchy since 2026-11-26: a write that may have
        # changed a 405's path (one above or below it) explains that 405
        # without Allow only if it took effect; when its own answer says it
        # did not (a 4xx), the violation shows at that answer, under its
        # signature.
        "id": "405-without-allow-shown-later",
        "signature": r"model: .*",
        "reason": unknown_state_reason,
        "evidence": trace_has_405_without_allow,
        "shows": "a 405 without Allow earlier in the trace",
        "verdict": SERVER_BUG,
        "clause": "RFC 9110 §15.5.6",
        "why": "The 405-without-allow class, seen at a later answer: the counterexample "
               "has a 405 without Allow on a path that another request (a write above "
               "or below it) could have changed, and that request's 4xx answer says it "
               "changed nothing, so the 405 stands unexplained.",
    },
]

KILL_RE = re.compile(r"response (\d+) received")
PREFIX_RE = re.compile(r"^/dualfuzz-\d+-\d+-")
VERSION_RE = re.compile(r"(Apache/\S+(?: \(\w+\))?|nginx/\S+|lighttpd/\S+)")


def short_version(v):
    m = VERSION_RE.search(v or "")
    return m.group(1) if m else (v or "?")


# Refusals the model allows instead of performing a request (content on a
# GET or DELETE: 400/413/415; POST: 405/501; a missing resource: 404; a PUT
# below a path, whose parent collection may be missing: 409).
REFUSALS = {400, 404, 405, 409, 413, 415, 501}


def expected_statuses(v):
    """The statuses the explanations expected instead, when every reason the
    oracle gave is a wrong status or a validator that contradicts the
    explanation (else None; None too when no reason is about the status)."""
    out = set()
    for r in reasons_of(v):
        # An explanation refuted by the response's own validators (its ETag
        # or date contradicts what the explanation assumed) says nothing
        # about the status.
        # Not under a race, though: there the validators may be what is wrong.
        if not v["signature"].endswith("(concurrent)") and (
                r["kind"] == "contradiction" or
                r["location"] in ("response.headers.etag", "response.dates.last-modified")):
            continue
        codes = statuses(r) if r["kind"] == "mismatch" else set()
        if not codes:
            return None
        out |= codes
    return out or None


def shortest_reproduced(group):
    """Messages of the shortest reproduced counterexample among findings."""
    ns = [len(f.get("trace", [])) for f in group if f.get("reproduced")]
    return min(ns) if ns else None


STATUS_WORDS = {"short": "≤ 6 messages", "late": "a later sign of another bug (below)",
                "shrunk": "shrinks to another bug (below)",
                "longer": "more than 6 by construction (below)",
                "open": "**open**: none of ≤ 6 messages"}


def counterexample_status(key, shortest, shrunk_to=None):
    """("short" | "late" | "shrunk" | "longer" | "open", why) for one
    judgement of one server, given the messages of each judgement's shortest
    reproduced counterexample on that server, and what follow-up shrinks of
    a judgement's findings showed instead (merge_findings)."""
    m = shortest.get(key)
    if m is not None and m <= 6:
        return "short", f"{m} messages"
    if shrunk_to and key in shrunk_to:
        other, n = shrunk_to[key]
        return "shrunk", (f"its script, played again with more tries and shrunk, shows "
                          f"the bug of `{other}` in {n} messages (the same killing request, "
                          "less what the shrinker found it did not need, e.g. a precondition "
                          "field, and the same answer).")
    j = next((x for x in JUDGEMENTS if x["id"] == key), None) or {}
    bases = [b for b in j.get("base", [])
             if shortest.get(b) is not None and shortest[b] <= 6]
    if bases:
        named = " or ".join(f"`{b}` ({shortest[b]} messages above)" for b in bases)
        return "late", (f"the bug of {named}, seen by the oracle only at a later answer "
                        "of the same run; "
                        + ("the shortest reproduced counterexample of this form has "
                           f"{m} messages." if m is not None else
                           "no counterexample of this form was reproduced."))
    if j.get("longer") and m is not None and m <= j["longer"][0]:
        return "longer", f"{m} messages. {j['longer'][1]}"
    return "open", ("no reproduced counterexample" if m is None else
                    f"the shortest reproduced counterexample has {m} messages") + "."


def servable_defects():
    """Defects a server may serve as if the request were well-formed: a
    violation a served one shows is the class of the same request without the
    defect. Read from the vocabulary itself (kMayReject, kMustServe in
    protocols/http/src/malformation.cpp), so that a new defect needs no entry
    here."""
    src = open(os.path.join(ROOT, "protocols/http/src/malformation.cpp")).read()
    found = re.findall(r'Malformation\{"([a-z0-9-]+)",\s*Latitude::(k[A-Za-z]+)', src)
    if not found:
        sys.exit("eval_realservers: no Malformation{...} entry in malformation.cpp")
    return {name for name, lat in found if lat in ("kMayReject", "kMustServe")}


SERVABLE_DEFECTS = servable_defects()


def judge(v, proven=frozenset()):
    """The first entry that applies; `proven`: the ids already judged, without
    context, for the same server (for entries with "needs"). A signature with a
    defect the server may serve is judged, when nothing names it, as the same
    request without the defect."""
    j = judge_signature(v, proven)
    m = re.search(r" malformed\(([a-z-]+)\)", v["signature"])
    if j is None and m and m.group(1) in SERVABLE_DEFECTS:
        j = judge_signature(dict(v, signature=v["signature"].replace(m.group(0), "", 1)),
                            proven)
    return j


def judge_signature(v, proven):
    for j in JUDGEMENTS:
        if j.get("needs") and not j["needs"] & proven:
            continue
        if not re.fullmatch(j["signature"], v["signature"]):
            continue
        if j.get("reason") and not any(j["reason"](r) for r in reasons_of(v)):
            continue
        if "expects" in j:
            # Every surviving explanation expected the precondition's answer
            # or a refusal the model also allows, never a success.
            exp = expected_statuses(v) or {0}
            if not exp <= j["expects"] | REFUSALS or not exp & j["expects"]:
                continue
        if j.get("evidence") and not j["evidence"](v):
            continue
        return j
    return None




def append_record(log, rec):
    """Writes one run's record to the raw log (if any) as a JSON line."""
    if log is not None:
        log.write(json.dumps(rec) + "\n")
        log.flush()
    return rec


class Subject:
    """A server on a free loopback port with a private document root
    (scripts/subjects/subject.sh), stopped and removed on exit:
      with Subject("nginx") as sub: ... f"127.0.0.1:{sub.port}" ...
    `error` says why it did not start (then there is nothing to play)."""

    def __init__(self, server):
        self.server, self.port, self.error = server, eval_blackbox.free_port(), None
        self.work = tempfile.mkdtemp(prefix=f"dualfuzz-{server}-")
        os.chmod(self.work, 0o755)  # the server's workers must reach the docroot
        self.subj = os.path.join(self.work, "subject")
        v = subprocess.run([SUBJECT, "version", server], capture_output=True,
                           text=True).stdout.strip().splitlines()
        self.version = v[0] if v else "?"

    def __enter__(self):
        start = subprocess.run([SUBJECT, "start", self.server, str(self.port), self.subj],
                               capture_output=True, text=True)
        if start.returncode != 0:
            self.error = "start: " + (start.stderr.strip().splitlines() or ["?"])[-1]
        return self

    def __exit__(self, *exc):
        if self.error is None:
            subprocess.run([SUBJECT, "stop", self.server, str(self.port), self.subj],
                           capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)
        return False

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"


def run_server(exe, server, seconds, seed, connections, log, extra=()):
    """One `dualfuzz fuzz --keep-going --json` run against `server`
    (`extra`: more options, e.g. ("--consistency", "interval"))."""
    rec = {"server": server, "connections": connections, "seed": seed, "budget": seconds}
    with Subject(server) as sub:
        rec["version"] = sub.version
        if sub.error:
            rec["error"] = sub.error
            return rec
        cmd = ["nice", "-n", "5", exe, "fuzz", "--target", sub.target, "--seconds",
               str(seconds), "--seed", str(seed), "--connections", str(connections),
               "--keep-going", "--json", "-q", *extra]
        rec["cmd"] = " ".join(cmd[3:]).replace(sub.target, "127.0.0.1:PORT")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 1800)
            rec["exit"] = p.returncode
            summary = eval_blackbox.last_json(p.stdout)
            if summary is not None:
                rec["summary"] = summary
            else:
                rec["error"] = f"exit {p.returncode}: " + (p.stderr.strip().splitlines()
                                                           or ["no summary"])[-1]
        except subprocess.TimeoutExpired:
            rec["error"] = "timeout"
    return append_record(log, rec)


def run_libfuzzer_server(fuzzer, exe, server, seconds, seed, log):
    """The external-server fuzz target (tests/fuzz/http_inprocess_fuzzer with
    DUALFUZZ_TARGET) under libFuzzer with the custom mutator, from the seed
    corpus, until its first violation or `seconds`; the crash file is then
    shrunk by `dualfuzz fuzz --shrink` against the same server (a fresh
    namespace), which names the finding as the campaign does."""
    rec = {"engine": "libfuzzer", "server": server, "seed": seed, "budget": seconds}
    fuzzer, exe = os.path.abspath(fuzzer), os.path.abspath(exe)  # it runs in a temp dir
    with Subject(server) as sub:
        rec["version"] = sub.version
        if sub.error:
            rec["error"] = sub.error
            return rec
        tmp = tempfile.mkdtemp(prefix="eval-lf-server-")
        corpus = os.path.join(tmp, "corpus")
        shutil.copytree(os.path.join(ROOT, "corpora/fuzz/http_inprocess_fuzzer"), corpus)
        env = dict(os.environ, DUALFUZZ_TARGET=sub.target)
        env.pop("DUALFUZZ_BUG", None)
        # Seeds that show a violation of this server already are left out
        # (a bug a seed shows is not found by fuzzing; bench/eval_libfuzzer.py
        # does the same for the planted bugs).
        dropped = []
        for name in sorted(os.listdir(corpus)):
            f = os.path.join(corpus, name)
            q = subprocess.run([fuzzer, f], env=env, capture_output=True, cwd=tmp)
            if q.returncode != 0:
                dropped.append(name)
                os.remove(f)
        for a in glob.glob(os.path.join(tmp, "crash-*")):
            os.remove(a)
        rec["seeds_dropped"] = dropped
        rec["seeds_kept"] = len(os.listdir(corpus))
        cmd = ["nice", "-n", "5", fuzzer, f"-seed={seed}", f"-max_total_time={seconds:g}",
               "-print_final_stats=1", f"-artifact_prefix={tmp}/", corpus]
        rec["cmd"] = "DUALFUZZ_TARGET=127.0.0.1:PORT " + " ".join(
            [os.path.relpath(fuzzer, ROOT)] + cmd[4:]).replace(tmp, "TMP")
        t0, found, execs = time.monotonic(), None, 0
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, errors="replace", env=env, cwd=tmp)
        for line in p.stderr:
            m = eval_libfuzzer.STATUS.match(line)
            if m and found is None:
                execs = int(m.group(1))
            if line.startswith(eval_libfuzzer.VIOLATION_MARK) and found is None:
                found = time.monotonic() - t0
            if line.startswith("stat::number_of_executed_units:"):
                execs = int(line.split(":")[-1])
        p.wait()
        rec.update({"exit": p.returncode, "executions": execs,
                    "wall_seconds": round(time.monotonic() - t0, 3)})
        crashes = glob.glob(os.path.join(tmp, "crash-*"))
        rec["violation"] = found is not None and bool(crashes)
        if found is not None:
            rec["seconds"] = round(found, 3)
        if crashes:
            # Shrunk as `dualfuzz fuzz --keep-going` shrinks its findings
            # (a race is replayed until it shows again, then distilled).
            q = subprocess.run(["nice", "-n", "5", exe, "fuzz", "--target", sub.target,
                                "--shrink", crashes[0], "--shrink-tries", "100", "--json"],
                               capture_output=True, text=True, timeout=1800)
            rec["shrink_exit"] = q.returncode
            finding = eval_blackbox.last_json(q.stdout)
            if finding is not None and finding.get("violation"):
                rec["finding"] = finding
            else:
                # No violation in 100 plays: a race lost every time.
                rec["finding_error"] = "the crash file showed no violation in " + str(
                    (finding or {}).get("plays", "?")) + " plays"
        elif p.returncode != 0:
            rec["error"] = f"exit {p.returncode} without a crash file"
        shutil.rmtree(tmp, ignore_errors=True)
    return append_record(log, rec)


def show_path(p):
    return PREFIX_RE.sub("/", p) if isinstance(p, str) else str(p)


def message_line(m, kill_label):
    ir = m["ir"]
    arrow = ">" if m["label"] % 2 else "<"
    # A reopened connection (a `close cN` then a request on cN) is marked
    # with the oracle's number for it.
    c = f"c{m['conn']}" + (f"#{wire(m)}" if wire(m) != m["conn"] else "")
    parts = [f"{c} {arrow} {m['label']}"]
    h = ir.get("headers", {}) if isinstance(ir.get("headers"), dict) else {}
    if arrow == ">":
        parts.append(f"{ir.get('method', '?')} {show_path(ir.get('path', '?'))}")
        for k, v in h.items():
            parts.append(f"{k}: {v}")
        body = ir.get("body", "")
        if body:
            parts.append(f"body {json.dumps(body)}")
    else:
        parts.append(str(ir.get("status", "?")))
        for k in ("etag", "last-modified", "date"):
            if k in h:
                parts.append(f"{k}: {h[k]}")
        body = ir.get("body", "")
        if body and ir.get("status") == 200:
            parts.append(f"body {json.dumps(body)}")
    line = "  ".join(parts)
    if m["label"] == kill_label:
        line += "    <-- no correct server explains this"
    return line


def counterexample(v):
    m = KILL_RE.search(v.get("explanation", ""))
    kill = int(m.group(1)) if m else -1
    lines = [message_line(x, kill) for x in v.get("trace", [])]
    why = [f"- broke {r['clause']}: {r['text']}" if r.get("clause") else f"- {r['text']}"
           for r in reasons_of(v)][:4]
    return lines, why


def clause_text(j, group):
    """A judgement's clause, with the clauses the model named for the
    answers it expected when the judgement does not already cite them (the
    model's alone when there is no judgement or it gives no clause)."""
    mine = j.get("clause", "") if j else ""
    model = [c for c in model_clauses(group)
             if not mine or not all(x in mine for x in c.replace("RFC 9110 ", "").split(", "))]
    if not model:
        return mine
    return (mine + "; " if mine else "") + "model: " + ", ".join(model)


def fmt_s(x):
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


KILL_SHAPE = re.compile(r"^model: ([A-Z]+)((?: [a-z-]+(?:\(invalid\))?)*) -> (\d+)")


def same_kill(shrunk, original):
    """Does signature `shrunk` name the killing request of `original`, with
    the same method and answer and a subset of its precondition fields?"""
    a, b = KILL_SHAPE.match(shrunk), KILL_SHAPE.match(original)
    return bool(a and b and a.group(1) == b.group(1) and a.group(3) == b.group(3) and
                set(a.group(2).split()) <= set(b.group(2).split()))


def merge_findings(runs, follow_ups=()):
    """server -> signature -> finding merged over the runs (occurrences
    added up; the shortest reproduced counterexample kept), with the
    reproduced results of the follow-up shrinks (`follow_up`) merged in;
    server -> the ids judged without context (see judge); and server ->
    judgement -> (judgement, messages) when a follow-up shrink of the first
    showed the second in <= 6 messages."""
    findings, proven = {}, {}
    for r in runs:
        ids = proven.setdefault(r["server"], set())
        for v in r.get("summary", {}).get("violations", []):
            j = judge(v)
            if j:
                ids.add(j["id"])

    def better(v, f):
        return v.get("reproduced") and (not f.get("reproduced") or
                                        len(v.get("trace", [])) < len(f.get("trace", [])))

    def merge(server, v, count, run):
        f = findings.setdefault(server, {}).get(v["signature"])
        if f is None:
            f = findings[server][v["signature"]] = dict(v, count=0, runs=[])
        elif better(v, f):
            f.update({k: v[k] for k in ("script", "trace", "explanation", "reproduced",
                                        "min_messages", "min_steps")})
            f.pop("reasons", None)  # (an older log's finding has none)
            if "reasons" in v:
                f["reasons"] = v["reasons"]
        f["count"] += count
        f["runs"].append(run)

    for r in runs:
        for v in r.get("summary", {}).get("violations", []):
            merge(r["server"], v, v["count"],
                  f"{r['connections']} conn.: first after {fmt_s(v['first_seconds'])} s")
    shrunk_to = {}  # server -> judgement -> (another judgement, messages)
    for u in follow_ups:
        v = u.get("finding")
        j = judge(v, proven.get(u["server"], set())) if v else None
        if not (j and v.get("reproduced")):
            continue
        if j["id"] == u["judgement"] or len(v.get("trace", [])) <= 6:
            merge(u["server"], v, 0, f"follow-up shrink: {u['plays']} plays to show it")
        if j["id"] != u["judgement"] and len(v.get("trace", [])) <= 6 and \
                same_kill(v["signature"], u["from_signature"]):
            # The same killing request and status without what the shrinker
            # found unneeded (a precondition that did not matter): the
            # finding shows that other judgement's bug.
            shrunk_to.setdefault(u["server"], {})[u["judgement"]] = (j["id"],
                                                                     len(v["trace"]))
    return findings, proven, shrunk_to


def by_judgement(fs, proven):
    """judgement id ("unclassified" for none) -> the findings it judges, in
    the order of `fs`."""
    by = {}
    for f in fs:
        j = judge(f, proven)
        by.setdefault(j["id"] if j else "unclassified", []).append(f)
    return by


def open_judgements(findings, proven, shrunk_to):
    """(server, judgement id, its findings) for each judgement whose
    counterexample status is "open" (counterexample_status)."""
    out = []
    for server, fs in findings.items():
        by = by_judgement(fs.values(), proven.get(server, set()))
        shortest = {k: shortest_reproduced(g) for k, g in by.items()}
        out += [(server, k, g) for k, g in by.items()
                if counterexample_status(k, shortest, shrunk_to.get(server, {}))[0] == "open"]
    return out


def follow_up(exe, server, judgement, finding, tries, log):
    """`dualfuzz fuzz --shrink` on one finding's script against a fresh
    server: for a judgement with no counterexample of <= 6 messages, a race
    the campaign could replay only a few times may show (and shrink) with
    many more tries."""
    rec = {"engine": "shrink", "server": server, "judgement": judgement,
           "from_signature": finding["signature"], "tries": tries}
    with Subject(server) as sub:
        if sub.error:
            rec["error"] = sub.error
            return rec
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(finding["script"])
        try:
            p = subprocess.run(["nice", "-n", "5", exe, "fuzz", "--target", sub.target,
                                "--shrink", f.name, "--shrink-tries", str(tries), "--json"],
                               capture_output=True, text=True, timeout=1800)
            j = eval_blackbox.last_json(p.stdout) or {}
            rec["plays"] = j.get("plays")
            if j.get("violation"):
                rec["finding"] = j
        except subprocess.TimeoutExpired:
            rec["error"] = "timeout"
        finally:
            os.unlink(f.name)
    return append_record(log, rec)


def render_libfuzzer(lf_runs, proven):
    """The libFuzzer runs against the real servers: time to the first
    violation, and that violation minimized and judged."""
    out = ["**libFuzzer (coverage-guided) against the same servers.** The external-server "
           "fuzz target (`DUALFUZZ_TARGET=127.0.0.1:PORT "
           "build-lf/tests/fuzz/http_inprocess_fuzzer`, built with "
           "`DUALFUZZ_BUILD_FUZZERS=ON`; the custom mutator, the seed corpus "
           "`corpora/fuzz/http_inprocess_fuzzer` without the seeds that already show a "
           "violation of that server) runs until its first violation, which "
           "aborts it like a crash; `dualfuzz fuzz --target 127.0.0.1:PORT --shrink CRASH "
           "--json` then plays the crash file again (a race may need many plays), shrinks it "
           "against the same server as the campaign shrinks its findings and names it, and "
           "it is judged by the same table.", "",
           "| server | seed | seconds to the first violation | executions | signature "
           "(minimized) | messages | judgement |",
           "| --- | ---: | ---: | ---: | --- | ---: | --- |"]
    for r in lf_runs:
        if r.get("error"):
            out.append(f"| {r['server']} | {r['seed']} | — | — | error: {r['error']} | | |")
            continue
        f = r.get("finding")
        j = judge(f, proven.get(r["server"], set())) if f else None
        sig = (f"`{f['signature']}`" if f else
               "(not shown again on replay: " + r.get("finding_error", "?") + ")"
               if r.get("violation") else f"no violation in {r.get('budget', 0):.0f} s")
        msgs = (str(f["min_messages"]) + ("" if f.get("reproduced") else " (not reproduced)")
                if f else "")
        out.append(f"| {r['server']} | {r['seed']} | "
                   f"{fmt_s(r['seconds']) if r.get('violation') else '—'} | "
                   f"{r.get('executions', '—')} | {sig} | {msgs} | "
                   + (f"`{j['id']}` ({j['verdict']})" if j else
                      "**unclassified — needs a look**" if f else "") + " |")
    out.append("")
    return out


def render(m, args, runs, lf_runs=(), follow_ups=()):
    out = [SECTION, ""]
    out.append(f"Generated by `bench/eval_realservers.py` on {m['date']}; dualfuzz "
               + (args.build_note or f"built at commit `{m['commit']}`") + ".")
    out.append("")
    out.append(f"Machine: {m['nproc']} vCPU (`nproc` = {m['nproc']}), "
               f"`lscpu | grep 'Model name'`: {m['cpu']}; {m['mem']} RAM; "
               f"Linux {m['kernel']} (Firecracker VM). Server and fuzzer share the two "
               "vCPUs (the fuzzer under `nice -n 5`), so executions per second are lower "
               "bounds.")
    out.append("")
    out.append("Each server runs on loopback with a private document root "
               "(`scripts/subjects/subject.sh`; a PUT/GET/DELETE smoke test must pass "
               "first), and `dualfuzz fuzz --target 127.0.0.1:PORT --keep-going --json` "
               "plays generated scripts against it, each run in its own path namespace. "
               "After a violation it shrinks the script to the bug (same killing request "
               "shape and status: the requests on other paths go at once, steps and header "
               "fields one by one, and a reference is re-pointed at the message its "
               "evaluation used or made literal so that the step it named can go), tries "
               "it serialized on one connection, records a signature and goes on; repeats "
               "are counted, not re-reported. A violation that needs a race is replayed up "
               "to 8 times before it is reported *not reproduced* (then unshrunk), and its "
               "shrinking gives each candidate 4 tries. "
               "A *signature* names the request no correct server would answer that way, "
               "its status, the other requests on that path before (*after*) and during "
               "(*then*) it, and *(concurrent)* when the race is needed.")
    out.append("")
    out.append("| server | version | configuration |")
    out.append("| --- | --- | --- |")
    seen = set()
    for r in runs:
        if r["server"] not in seen:
            seen.add(r["server"])
            out.append(f"| {r['server']} | {short_version(r['version'])} (`{r['version']}`) | "
                       f"{CONFIG.get(r['server'], '')} |")
    out.append("")
    out.append("| server | connections | seed | seconds | executions | exec/s | messages "
               "| inconclusive | seconds shrinking | distinct violations | class protocol "
               "| class not linearizable | server bugs "
               "| model gaps | unclassified | counterexamples of ≤ 6 messages | not reproduced "
               "(unshrunk) |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: | ---: | ---: | ---: | ---: | ---: |")
    findings, proven, shrunk_to = merge_findings(runs, follow_ups)
    for r in runs:
        if "error" in r:
            out.append(f"| {r['server']} | {r['connections']} | {r['seed']} | — | — | — | — "
                       f"| — | — | error: {r['error']} | | | | | | | |")
            continue
        s = r["summary"]
        vs = s.get("violations", [])
        verdicts = [(judge(v, proven[r["server"]]) or {}).get("verdict", "unclassified")
                    for v in vs]
        bugs = sum(1 for x in verdicts if x.startswith(SERVER_BUG))
        gaps = sum(1 for x in verdicts if x == "model gap")
        # campaign::classify's class (docs/consistency.md); runs made before
        # it existed have none.
        def n_class(c):
            return (sum(1 for v in vs if v.get("class") == c)
                    if all("class" in v for v in vs) else "—")
        out.append(f"| {r['server']} | {r['connections']} | {r['seed']} | "
                   f"{s['seconds']:.0f} | {s['executions']} | "
                   f"{s['executions'] / max(s['seconds'], 1e-9):.0f} | {s['messages']} | "
                   f"{s['inconclusive']} | {fmt_s(s.get('shrink_seconds', 0))} | {len(vs)} "
                   f"| {n_class('protocol')} | {n_class('not-linearizable')} "
                   f"| {bugs} | {gaps} | {len(vs) - bugs - gaps} "
                   f"| {sum(1 for v in vs if v.get('min_messages', 99) <= 6)} "
                   f"| {sum(1 for v in vs if not v.get('reproduced', True))} |")
    out.append("")
    if lf_runs:
        out.extend(render_libfuzzer(lf_runs, proven))
    total = {"bug": 0, "gap": 0, "unclassified": 0}
    short_status = {}  # counterexample_status kind -> (server, judgement) pairs
    notes = []  # why a judgement has no counterexample of its own of <= 6 messages
    for server in [x for x in SERVERS if x in findings] + \
            [x for x in findings if x not in SERVERS]:
        pv = proven[server]
        fs = sorted(findings[server].values(),
                    key=lambda f: (judge(f, pv) is None, (judge(f, pv) or {}).get("id", ""),
                                   -f["count"]))
        version = short_version(next(r["version"] for r in runs if r["server"] == server))
        by = by_judgement(fs, pv)  # judgement id -> findings, most frequent first
        # Judgements by occurrences, the unclassified last.
        by = dict(sorted(by.items(), key=lambda kv: (kv[0] == "unclassified",
                                                     -sum(f["count"] for f in kv[1]))))
        out.append(f"### {version}: {len(fs)} distinct violations, {len(by)} judgements")
        out.append("")
        shortest = {key: shortest_reproduced(group) for key, group in by.items()}
        out.append("| judgement | verdict | clause | signatures | occurrences "
                   "| shortest reproduced counterexample | counterexample |")
        out.append("| --- | --- | --- | ---: | ---: | ---: | --- |")
        for key, group in by.items():
            j = next((x for x in JUDGEMENTS if x["id"] == key), None)
            n = sum(f["count"] for f in group)
            kind, text = counterexample_status(key, shortest, shrunk_to.get(server, {}))
            short_status[kind] = short_status.get(kind, 0) + 1
            if kind != "short":
                notes.append(f"{version} `{key}`: {text}")
            m = shortest[key]
            out.append(f"| `{key}` | {j['verdict'] if j else '**unclassified — needs a look**'} "
                       f"| {clause_text(j, group)} | {len(group)} | {n} "
                       f"| {m if m is not None else 'none'} | {STATUS_WORDS[kind]} |")
        out.append("")
        for key, group in by.items():
            j = next((x for x in JUDGEMENTS if x["id"] == key), None)
            for f in group:
                total["unclassified" if j is None else
                      "gap" if j["verdict"] == "model gap" else "bug"] += 1
            out.append(f"#### {version}: `{key}`")
            out.append("")
            if j:
                text = f"**{j['verdict']}** ({clause_text(j, group)}). {j['why']}"
                if j.get("shows"):
                    text += f" (Checked in each counterexample's trace: {j['shows']}.)"
            else:
                text = ("**Unclassified — needs a look**: no entry of `JUDGEMENTS` covers "
                        "these; each counterexample follows."
                        + (" The model expected answers of "
                           f"{', '.join(model_clauses(group))}."
                           if model_clauses(group) else ""))
            out.append(text)
            out.append("")
            # One counterexample per judgement: the shortest reproduced one
            # (every one for unclassified violations).
            shown = group if j is None else [min(
                group, key=lambda f: (not f.get("reproduced"), len(f.get("trace", [])),
                                      -f["count"]))]
            for f in shown:
                lines, why = counterexample(f)
                n = len(f.get("trace", []))
                out.append(f"`{f['signature']}`: {f['count']} occurrences "
                           f"({'; '.join(f['runs'])}). "
                           + ("Minimized" if f.get("reproduced") else
                              "**Not reproduced** on replay (a race), so not minimized: the "
                              "original")
                           + f" counterexample, {f.get('min_steps', '?')} script steps, "
                           f"{n} messages" + (" (more than 6)" if n > 6 else "") + ":")
                out.append("")
                out.append("```")
                out.append(f["script"].rstrip("\n"))
                out.append("--- trace (the run's namespace prefix removed; the harness sends "
                           "/a/b as /a~b before 2026-11-26, as /a/b since)")
                out.extend(lines)
                if why:
                    out.append("--- why no explanation survived (first reasons)")
                    out.extend(why[:3])
                out.append("```")
                out.append("")
            rest = [f for f in group if f not in shown]
            if rest:
                out.append(f"The other {len(rest)} signature(s) judged `{key}`:")
                out.append("")
                out.append("| signature | occurrences | messages | reproduced |")
                out.append("| --- | ---: | ---: | --- |")
                for f in rest:
                    out.append(f"| `{f['signature']}` | {f['count']} | "
                               f"{len(f.get('trace', []))} | "
                               f"{'yes' if f.get('reproduced') else 'no'} |")
                out.append("")
    out.append(f"Total: {total['bug']} distinct violations judged server bugs, "
               f"{total['gap']} model gaps (false alarms), {total['unclassified']} "
               "unclassified.")
    out.append("")
    pairs = sum(short_status.values())
    out.append(f"**Counterexamples.** Of {pairs} (server, judgement) pairs, "
               f"{short_status.get('short', 0)} have a reproduced counterexample of ≤ 6 "
               f"messages; {short_status.get('late', 0)} are a later sign of another "
               "judgement's bug on the same server, which has one; "
               f"{short_status.get('shrunk', 0)} shrink, with more tries, to another "
               "judgement's bug in ≤ 6 messages; "
               f"{short_status.get('longer', 0)} show a bug that needs more messages than 6 "
               f"(reason below); {short_status.get('open', 0)} have none yet (*open*).")
    out.append("")
    for n in notes:
        out.append(f"- {n}")
    out.append("")
    out.append("**Reproduce.** `scripts/evaluate.sh --realservers --engines none` (builds "
               "`build/` and `build-lf/`, then runs `bench/eval_realservers.py --connections "
               "2,1 --libfuzzer build-lf/tests/fuzz/http_inprocess_fuzzer`: the campaign, the "
               "libFuzzer runs, then the follow-up shrinks of every judgement still without a "
               "counterexample of ≤ 6 messages; `--reuse` re-renders from "
               "`bench/results/realservers.jsonl`). A single counterexample: "
               "`scripts/subjects/subject.sh start nginx 18080 DIR`, save its script to a "
               "file, `dualfuzz replay --target 127.0.0.1:18080 FILE` (a race: `dualfuzz fuzz "
               "--target 127.0.0.1:18080 --shrink FILE --shrink-tries 500` plays it until it "
               "shows).")
    out.append("")
    out.append("**How the judgements are made.** The table `JUDGEMENTS` in "
               "`bench/eval_realservers.py` maps signatures (regular expressions over them, "
               "plus what the oracle expected instead) to a verdict, the clause and the "
               "reason; it names behaviours, never servers, and a signature it does not "
               "cover is printed as *unclassified — needs a look*. Every entry was written "
               "after reading the counterexamples it covers. A violation that needs a race "
               "(*(concurrent)*) is never judged by its killing request's preconditions, "
               "since a race can be the cause. A *model gap* would be a false alarm: the "
               "fix belongs in `protocols/http/src/model.cpp` (with the RFC text), not in this table.")
    out.append("")
    out.append("**Races.** RFC 9110 never says \"atomic\", but it defines every method against "
               "*the* current state of the target resource and no intermediate states: PUT "
               "replaces the state with the enclosed one and answers 201 only \"if the target "
               "resource does not have a current representation\" (§9.3.4); the content of a "
               "200 to GET is \"a current selected representation\" (§9.3.1, §6.4.2); and "
               "If-Match and If-None-Match exist to prevent the \"lost update\" problem "
               "\"when multiple user agents might be acting in parallel on the same "
               "resource\" (§13.1.1, §13.1.2), which they can only do if the condition is "
               "evaluated and the method applied as one step. So the model lets each request "
               "take effect at one instant between its arrival and its answer, in any order "
               "the network allows; a *(concurrent)* violation means no such order explains "
               "the answers, while the same requests in sequence pass (the shrinker tries "
               "them serialized first). Judged as server bugs on that basis: two creations "
               "of one resource (two 201s), two deletions (two 2xx), a PUT whose answer and "
               "effect belong to different states, and a torn read (a body no request ever "
               "stored is no representation of any state). A 403 during a concurrent DELETE "
               "is Apache reporting `open()` failing with ENOENT as \"AH00132: file "
               "permissions deny server access\" (its error log says so): no MUST forbids a "
               "403, but the status code is there to describe \"the result of the request\" "
               "(§15), and the result was not a refusal (§15.5.4) but a missing file (404, "
               "§15.5.5) — judged a server bug of a lesser kind, a wrong status, not a "
               "broken MUST.")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dualfuzz", default=os.path.join(ROOT, "build/cli/dualfuzz"))
    ap.add_argument("--servers", default=",".join(SERVERS))
    ap.add_argument("--seconds", type=float, default=600, help="per server and run")
    ap.add_argument("--connections", default="2", help="comma-separated, one run each")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/evaluation-journal.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench/results/realservers.jsonl"))
    ap.add_argument("--build-note", default="",
                    help="how the dualfuzz binary was built (default: this checkout's commit)")
    ap.add_argument("--reuse", action="store_true",
                    help="run nothing; render the runs already in --raw")
    ap.add_argument("--libfuzzer", default="",
                    help="also run this external-server fuzz target (a build with "
                         "DUALFUZZ_BUILD_FUZZERS=ON: tests/fuzz/http_inprocess_fuzzer) "
                         "under libFuzzer against each server")
    ap.add_argument("--libfuzzer-only", action="store_true",
                    help="run only the libFuzzer part (with --libfuzzer)")
    ap.add_argument("--libfuzzer-seconds", type=float, default=300)
    ap.add_argument("--follow-up-tries", type=int, default=200,
                    help="after the runs: plays of each finding of a judgement without a "
                         "counterexample of <= 6 messages (dualfuzz fuzz --shrink); 0: none")
    ap.add_argument("--follow-up-only", action="store_true",
                    help="with --reuse: run only the follow-up shrinks, then render")
    ap.add_argument("--libfuzzer-seeds", type=int, default=3)
    args = ap.parse_args()
    servers = [s for s in args.servers.split(",") if s]
    conns = [int(c) for c in args.connections.split(",") if c]
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    if not args.reuse:
        if not os.access(args.dualfuzz, os.X_OK):
            sys.exit(f"eval_realservers: no dualfuzz at {args.dualfuzz} "
                     "(build it or pass --dualfuzz)")
        with open(args.raw, "a") as log:
            for server in servers:
                for seed in range(1, args.libfuzzer_seeds + 1) if args.libfuzzer else []:
                    print(f"{server}, libFuzzer seed {seed}, {args.libfuzzer_seconds:g} s ...",
                          file=sys.stderr)
                    r = run_libfuzzer_server(args.libfuzzer, args.dualfuzz, server,
                                             args.libfuzzer_seconds, seed, log)
                    f = r.get("finding")
                    if r.get("error") or r.get("finding_error"):
                        print(f"  {r.get('error') or r.get('finding_error')}", file=sys.stderr)
                    elif f:
                        print(f"  {r['seconds']} s: {f['signature']} "
                              f"[{(judge(f) or {}).get('id', 'UNCLASSIFIED')}]", file=sys.stderr)
                    else:
                        print(f"  no violation in {r.get('executions')} executions",
                              file=sys.stderr)
                for k in ([] if args.libfuzzer_only else conns):
                    print(f"{server}, {k} connection(s), {args.seconds:g} s ...",
                          file=sys.stderr)
                    r = run_server(args.dualfuzz, server, args.seconds, args.seed, k, log)
                    if "error" in r:
                        print(f"  error: {r['error']}", file=sys.stderr)
                        continue
                    s = r["summary"]
                    print(f"  {s['executions']} executions, "
                          f"{len(s.get('violations', []))} distinct violations",
                          file=sys.stderr)
                    for v in s.get("violations", []):
                        j = judge(v)
                        print(f"    {v['count']:5d} x {v['signature']}  "
                              f"[{j['id'] if j else 'UNCLASSIFIED'}]", file=sys.stderr)
    # The latest run of each (server, connections, seed) in the raw log.
    order = {s: i for i, s in enumerate(SERVERS)}

    def load():
        """The latest campaign run of each (server, connections, seed) and
        libFuzzer run of each (server, seed) in the raw log, and the
        follow-up shrinks recorded after the first of those campaign runs
        of their server."""
        latest, lf_latest, ups = {}, {}, []
        if os.path.exists(args.raw):
            for i, line in enumerate(open(args.raw)):
                if line.strip():
                    r = dict(json.loads(line), line=i)
                    if r.get("engine") == "libfuzzer":
                        lf_latest[(r["server"], r["seed"])] = r
                    elif r.get("engine") == "shrink":
                        ups.append(r)
                    else:
                        latest[(r["server"], r["connections"], r["seed"])] = r
        runs = [latest[k] for k in sorted(latest, key=lambda k: (order.get(k[0], 99), -k[1],
                                                                  k[2])) if k[0] in servers]
        first = {}
        for r in runs:
            first[r["server"]] = min(first.get(r["server"], r["line"]), r["line"])
        ups = [u for u in ups if u["server"] in first and u["line"] > first[u["server"]]]
        return runs, lf_latest, ups

    runs, lf_latest, ups = load()
    if args.follow_up_tries and (not args.reuse or args.follow_up_only):
        # Judgements still without a counterexample of <= 6 messages: their
        # findings' scripts again, with many more tries (five findings at
        # most, the shortest first; the first that gives one ends it).
        findings, proven, shrunk_to = merge_findings(runs, ups)
        with open(args.raw, "a") as log:
            for server, key, group in open_judgements(findings, proven, shrunk_to):
                if key == "unclassified":
                    continue
                group = sorted(group, key=lambda f: (not f.get("reproduced"),
                                                     len(f.get("trace", []))))
                for f in group[:5]:
                    print(f"{server} {key}: shrinking {f['signature']} "
                          f"({len(f.get('trace', []))} messages) ...", file=sys.stderr)
                    u = follow_up(args.dualfuzz, server, key, f, args.follow_up_tries, log)
                    v = u.get("finding")
                    j = judge(v, proven.get(server, set())) if v else None
                    print(f"  {u.get('error') or ''}" + (
                        f"{len(v['trace'])} messages, {v['signature']} "
                        f"[{j['id'] if j else 'UNCLASSIFIED'}]"
                        + ("" if v.get("reproduced") else " (not reproduced)")
                        if v else f"no violation in {u.get('plays')} plays"), file=sys.stderr)
                    if v and v.get("reproduced") and j and j["id"] == key and \
                            len(v["trace"]) <= 6:
                        break
        runs, lf_latest, ups = load()
    lf_runs = [lf_latest[k] for k in sorted(lf_latest, key=lambda k: (order.get(k[0], 99), k[1]))
               if k[0] in servers]
    eval_blackbox.write_section(
        args.out, render(eval_blackbox.machine(), args, runs, lf_runs, ups), SECTION)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
