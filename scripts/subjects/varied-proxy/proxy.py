#!/usr/bin/env python3
"""An HTTP/1.1 forward proxy and gateway (reverse proxy) written apart from
dualfuzz's model, from the RFC text alone, whose behaviour is a set of
choices the RFCs leave to an intermediary (each one a MAY, a SHOULD not
followed, or one of several MUST-allowed answers) and, for the other
direction, planted bugs that each break one MUST.

    proxy.py PORT [--mode forward|gateway] [--origin HOST:PORT]
             [--legal NAME,NAME...|all] [--bug NAME] [--timeout SECONDS]

forward: absolute-form targets, sent on in origin-form to the target's
authority (or to --origin if given) with Host replaced by that authority
(RFC 9112 §3.2.2); an origin-form target goes to --origin, else to its Host.
gateway: everything goes to --origin, the target unchanged (an absolute-form
one is turned into origin-form as an origin server would read it), Host
passed through.

A correct intermediary whatever --legal names: a run of dualfuzz against it
that reports a violation is a false alarm of dualfuzz. With --bug, a run that
reports none is a missed violation. `--legal all` takes every choice that
does not exclude another. Only the standard library; threads, one per client
connection, pipelined requests answered in order.

What it always does (the MUSTs, as read):
  Connection and the fields it names removed both ways (9110 §7.6.1); Max-Forwards
  on TRACE/OPTIONS: 0 answered here (OPTIONS: 200 with Allow; TRACE: 200
  message/http echo without credentials), else decremented (§7.6.2); Via appended
  to requests and responses with the received protocol version (§7.6.3);
  Cache-Control and unknown fields passed through (9111 §5.2, 9110 §5.1); Date
  added to a forwarded response without one (§6.6.1, 1xx too: "a response
  message"); content with no-transform never transformed (§7.7); the path and
  query never changed (§7.7); bodies re-framed: Content-Length or chunked, never
  chunked to HTTP/1.0 clients, none after HEAD/1xx/204/304 (9112 §6); a 100-continue
  request's head is forwarded before its body is read (9110 §10.1.1); 1xx relayed
  to HTTP/1.1 clients, dropped for HTTP/1.0 ones (§15.2); non-idempotent requests
  never retried (9112 §9.3.1); 502 for an unreachable, garbling or silent origin,
  504 after --timeout (30 s); own HTTP-version in what it forwards (9110 §2.5).
  A request with both Transfer-Encoding and Content-Length: 400 and close (9112
  §6.1 MAY reject; see te-over-cl). HTTP/1.0 with Transfer-Encoding: 400 and close
  (§6.1 "faulty"). obs-fold: replaced by SP (9112 §5.2; see reject-fold). HTTP/1.1
  requests without exactly one valid Host: 400, in absolute-form too (9112 §3.2).
  A forward proxy closes an HTTP/1.0 client's connection after each response even
  with "Connection: keep-alive" (9112 §9.3: keep-alive persists only when "the
  recipient is not a proxy or the message is a response"); a gateway honours it.
  Origin connections: a fresh one per request, "Connection: close" (see pool).
  Request content is sent on with Content-Length (9112 §6.1: a client MUST NOT
  send Transfer-Encoding unless it knows the server is HTTP/1.1), except the
  chunked body of a 100-continue request, streamed chunked (its length is unknown
  when the head goes out). CONNECT and https targets: 501 (no tunnels, no TLS).

Legal choices (clause that allows it):
  pool            origin connections kept alive and reused across requests and clients;
                  a reused one found closed: GET HEAD OPTIONS TRACE PUT DELETE retried once
                  on a new one, others 502 (9112 §9.3, §9.4, §9.3.1)
  parallel        a client's pipelined requests forwarded concurrently, each on its own
                  origin connection, answered in order (9112 §9.3.2)
  max-forwards-cap own maximum of 3: forwards min(n-1, 3) (9110 §7.6.2 "the lesser of")
  max-forwards-drop Max-Forwards removed on methods other than TRACE and OPTIONS
                  (§7.6.2: a recipient MAY ignore it there)
  via-pseudonym   Via "1.1 p7 (varied)", on responses "HTTP/1.1 p7 (varied)" (§7.6.3)
  via-line        own Via as a field line of its own after the received ones, not
                  combined into one line (§5.3: the same list)
  xff             X-Forwarded-For and Forwarded (RFC 7239) added to requests
  transform       a 200 without no-transform (response or request) and without
                  Content-Encoding gets a newline appended, becomes 203, a strong ETag
                  weak, digests dropped; HEAD alike (9110 §7.7, §15.3.4)
  rechunk         every relayed content chunked to HTTP/1.1 clients (9112 §7)
  dechunk         every relayed content with Content-Length; trailers dropped (9112 §6.1,
                  §7.1.2 MAY discard)
  close-client    "Connection: close" on every response, then closes (9112 §9.6)
  keepalive-3     closes a client connection after its third response, said in it (§9.6)
  idle-close      closes a client connection idle for 100 ms (9112 §9.5)
  strip-hop       also removes Keep-Alive, TE, Upgrade, Proxy-Connection,
                  Proxy-Authorization, Proxy-Authenticate (not on a 407) when not named
                  by Connection (9110 §7.6.1 SHOULD)
  lower-case      field names in lower case (9110 §5.1)
  combine-fields  repeated field lines of known list fields combined (9110 §5.3)
  own-reason      its own reason phrases on relayed responses (9112 §4)
  forbid-trace    TRACE answered here with 405 and Allow (policy; 9110 §15.5.6)
  refuse-501      PATCH and methods other than GET HEAD POST PUT DELETE OPTIONS TRACE: 501
                  (9110 §15.6.2)
  acl-403         paths containing "secret" or ending ".exe" or "b": 403 (policy; §15.5.4)
  auth-407        (forward) without Proxy-Authorization Basic dualfuzz:dualfuzz: 407
                  with Proxy-Authenticate; the credentials consumed (§15.5.8, §11.7.1)
  busy-503        one request in five answered here: 503 with Retry-After (§15.6.4)
  limit-413       request content over 8 bytes: 413 (9110 §15.5.14)
  uri-414         request targets over 48 characters: 414 (9110 §15.5.15)
  gateway-host    (gateway) Host rewritten to the origin's host:port
  gateway-no-resp-via (gateway) no Via on responses (9110 §7.6.3: a gateway MAY)
  no-date         a proxy without a clock: adds no Date anywhere (9110 §6.6.1)
  http10          HTTP/1.0 both ways: forwards as HTTP/1.0, answers as HTTP/1.0, never
                  chunked, no 1xx, closes after each unless keep-alive (gateway) (9110 §2.5)
  continue        a 100 Continue of its own to a 100-continue request once its head has
                  gone to the origin, before reading the body (9110 §10.1.1, §15.2)
  te-over-cl      Transfer-Encoding with Content-Length: read by the chunked coding, then
                  close (9112 §6.1, §6.3 rule 3)
  reject-fold     obs-fold in a request: 400 (9112 §5.2: reject or replace)
  strict-crlf     a request line ended by a bare LF: 400 (9112 §2.2: MAY accept)
Planted bugs (clause broken):
  no-via          no Via on forwarded requests (9110 §7.6.3)
  conn-listed     fields named in the request's Connection forwarded (9110 §7.6.1)
  resp-conn-listed fields named in the response's Connection relayed (9110 §7.6.1)
  max-forwards-zero TRACE/OPTIONS with Max-Forwards: 0 forwarded (9110 §7.6.2)
  max-forwards-same Max-Forwards forwarded undecremented (9110 §7.6.2)
  host-kept       (forward) the client's Host kept, not the target's authority (9112 §3.2.2)
  options-slash   OPTIONS with an empty path forwarded as "/" (9112 §3.2.4)
  drop-directive  unknown Cache-Control directives dropped, both ways (9111 §5.2)
  transform-anyway a 200's content transformed though it has no-transform (9110 §7.7)
  status-201      a 201 relayed as 200 (relay fidelity, 9110 §15)
  chunk-short     the last byte of a chunked origin body lost in the relay (9112 §6)
  head-body       a HEAD's 200 relayed with the GET content after it (9112 §6.3)
  out-of-order    pipelined requests forwarded at once, answered as they complete
                  (9112 §9.3.2)
  retry-post      a POST retried on a new connection after the first closed without
                  answering (9112 §9.3.1)
  crash-trace     exits at a TRACE with content (a death)
"""
import argparse
import email.utils
import ipaddress
import os
import queue
import re
import select
import socket
import socketserver
import sys
import threading
import time
import zlib

LEGAL = ["pool", "parallel", "max-forwards-cap", "max-forwards-drop", "via-pseudonym",
         "via-line", "xff", "transform", "rechunk", "dechunk", "close-client", "keepalive-3",
         "idle-close", "strip-hop", "lower-case", "combine-fields", "own-reason",
         "forbid-trace", "refuse-501", "acl-403", "auth-407", "busy-503", "limit-413",
         "uri-414", "gateway-host", "gateway-no-resp-via", "no-date", "http10", "continue",
         "te-over-cl", "reject-fold", "strict-crlf"]
# Choices that exclude another, or that answer in the proxy's stead: not in `all`.
NOT_IN_ALL = {"http10", "close-client", "rechunk", "busy-503", "auth-407", "acl-403",
              "forbid-trace", "refuse-501", "limit-413", "uri-414"}
BUGS = ["no-via", "conn-listed", "resp-conn-listed", "max-forwards-zero", "max-forwards-same",
        "host-kept", "options-slash", "drop-directive", "transform-anyway", "status-201",
        "chunk-short", "head-body", "out-of-order", "retry-post", "crash-trace"]
CREDENTIALS = "Basic ZHVhbGZ1eno6ZHVhbGZ1eno="  # dualfuzz:dualfuzz
KNOWN = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"}
IDEMPOTENT = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}  # 9110 §9.2.2
HOP_EXTRA = {"keep-alive", "te", "upgrade", "proxy-connection", "proxy-authorization",
             "proxy-authenticate"}
LIST_FIELDS = {"accept", "accept-charset", "accept-encoding", "accept-language",
               "accept-ranges", "allow", "cache-control", "connection", "content-encoding",
               "content-language", "expect", "if-match", "if-none-match", "pragma", "te",
               "trailer", "transfer-encoding", "upgrade", "vary", "via", "warning",
               "x-forwarded-for", "forwarded"}
KNOWN_CC = {"max-age", "max-stale", "min-fresh", "no-cache", "no-store", "no-transform",
            "only-if-cached", "must-revalidate", "must-understand", "private",
            "proxy-revalidate", "public", "s-maxage", "stale-while-revalidate",
            "stale-if-error", "immutable"}
SENSITIVE = {"authorization", "proxy-authorization", "cookie"}
REASONS = {100: "Continue", 103: "Early Hints", 200: "OK", 201: "Created",
           202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
           206: "Partial Content", 301: "Moved Permanently", 302: "Found",
           304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 405: "Method Not Allowed", 407: "Proxy Authentication Required",
           409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
           413: "Content Too Large", 414: "URI Too Long", 416: "Range Not Satisfiable",
           417: "Expectation Failed", 431: "Request Header Fields Too Large",
           500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
           503: "Service Unavailable", 504: "Gateway Timeout",
           505: "HTTP Version Not Supported"}
TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
HOST_SHAPE = re.compile(r"(\[([^\]]*)\]|([A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)"
                        r"(:[0-9]*)?")
MAX_BODY = 64 << 20
LIMIT_413 = 8  # (small: the tester's contents are short)
URI_414 = 48
NODELAY = True


def valid_host(v):
    """RFC 9110 §7.2: uri-host [ ":" port ]."""
    m = HOST_SHAPE.fullmatch(v)
    if not m:
        return False
    literal = m.group(2)
    if literal is None:
        return True
    if re.fullmatch(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+", literal):
        return True
    try:
        return "%" not in literal and bool(ipaddress.IPv6Address(literal))
    except ValueError:
        return False


def split_hostport(v, default=80):
    """(host to connect to, port) of a valid uri-host [":" port]; None if unusable."""
    m = re.fullmatch(r"(\[[^\]]*\]|[^:\[\]]*)(?::(\d*))?", v)
    if not m or not m.group(1):
        return None
    port = int(m.group(2)) if m.group(2) else default
    if not 0 < port < 65536:
        return None
    return m.group(1).strip("[]"), port


def http_date():
    return email.utils.formatdate(time.time(), usegmt=True)


def tokens_of(fields, name):
    return {t.strip().lower() for n, v in fields if n.lower() == name
            for t in v.split(",") if t.strip()}


def values_of(fields, name):
    return [v for n, v in fields if n.lower() == name]


def has_directive(fields, directive):
    return any(d.split("=", 1)[0].strip().lower() == directive
               for v in values_of(fields, "cache-control") for d in v.split(","))


class Bad(Exception):
    """A malformed message: the status to answer a client with (502 for an origin)."""

    def __init__(self, status=400, msg="bad request"):
        super().__init__(msg)
        self.status, self.msg = status, msg


class Closed(Exception):
    """The origin closed before sending a byte of its answer."""


class Reader:
    """A buffered reader on a socket that select() can look through."""

    def __init__(self, sock):
        self.sock, self.buf, self.eof, self.got = sock, bytearray(), False, 0

    def fill(self):
        if self.eof:
            return False
        data = self.sock.recv(65536)
        if not data:
            self.eof = True
            return False
        self.got += len(data)
        self.buf += data
        return True

    def readline(self, limit=65536):
        start = 0
        while True:
            i = self.buf.find(b"\n", start)
            if i >= 0:
                if i + 1 > limit:
                    raise Bad(431, "line too long")
                line = bytes(self.buf[:i + 1])
                del self.buf[:i + 1]
                return line
            if len(self.buf) > limit:
                raise Bad(431, "line too long")
            start = len(self.buf)
            if not self.fill():
                line = bytes(self.buf)
                self.buf.clear()
                return line

    def read(self, n):
        while len(self.buf) < n:
            if not self.fill():
                break
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def read_to_close(self, limit):
        while self.fill():
            if len(self.buf) > limit:
                raise Bad(502, "too large")
        out = bytes(self.buf)
        self.buf.clear()
        return out

    def ready(self, timeout):
        if self.buf or self.eof:
            return True
        try:
            r, _, _ = select.select([self.sock], [], [], timeout)
        except (OSError, ValueError):
            return True
        return bool(r)


def eol(raw, strict):
    """A line without its terminator (9112 §2.2: a bare LF MAY be taken)."""
    if raw.endswith(b"\r\n"):
        return raw[:-2]
    if raw.endswith(b"\n") and not strict:
        return raw[:-1]
    raise Bad(400, "bad line ending")


def parse_fields(rd, strict=False, fold_ok=True, max_fields=300):
    """Field lines up to the empty line, as (name, value) in order."""
    fields, total = [], 0
    while True:
        raw = rd.readline(65536)
        if not raw.endswith(b"\n"):
            raise Bad(400, "incomplete header section")
        line = eol(raw, strict)
        if line == b"":
            return fields
        total += len(raw)
        if total > 262144 or len(fields) >= max_fields:
            raise Bad(431, "header section too large")
        if b"\r" in line or b"\0" in line:
            raise Bad(400, "CR or NUL in a field line")  # 9110 §5.5: reject or replace
        if line[:1] in (b" ", b"\t"):
            if not fields or not fold_ok:
                raise Bad(400, "obs-fold")  # 9112 §2.2, §5.2
            n, v = fields[-1]
            more = line.strip(b" \t").decode("latin-1")
            fields[-1] = (n, (v + " " + more) if v and more else v + more)
            continue
        name, sep, value = line.partition(b":")
        if not sep or not TOKEN.fullmatch(name):
            raise Bad(400, "bad field line")  # 9112 §5.1: no space before the colon
        fields.append((name.decode("latin-1"), value.strip(b" \t").decode("latin-1")))


def read_chunked(rd, strict, limit, sink=None):
    """RFC 9112 §7.1: the decoded content (or b"" with sink) and the trailers."""
    body, size_total = bytearray(), 0
    while True:
        raw = rd.readline(4096)
        if not raw.endswith(b"\n"):
            raise Bad(400, "incomplete chunk")
        line = eol(raw, strict)
        size, _, ext = line.partition(b";")
        size = size.rstrip(b" \t")
        if not re.fullmatch(rb"[0-9A-Fa-f]{1,16}", size) or re.search(rb"[\x00-\x08\x0a-\x1f\x7f]", ext):
            raise Bad(400, "bad chunk size")
        n = int(size, 16)
        if n == 0:
            break
        size_total += n
        if size_total > limit:
            raise Bad(413, "content too large")
        data = rd.read(n)
        if len(data) < n:
            raise Bad(400, "incomplete chunk")
        if sink:
            sink(data)
        else:
            body += data
        end = rd.readline(3)
        if end != b"\r\n" and (strict or end != b"\n"):
            raise Bad(400, "chunk not ended by CRLF")
    return bytes(body), parse_fields(rd, strict)


class Req:
    pass


class Job:
    pass


class Response:
    def __init__(self, status, reason="", fields=None, body=b"", version="1.1"):
        self.status, self.reason, self.fields, self.body = status, reason, fields or [], body
        self.version, self.trailers, self.chunked, self.cl = version, [], False, None
        self.own, self.close, self.extra, self.reusable = False, False, b"", False


class Pool:
    """Idle origin connections by address (the pool choice)."""

    def __init__(self):
        self.lock, self.idle = threading.Lock(), {}

    def get(self, addr):
        with self.lock:
            lst = self.idle.get(addr, [])
            while lst:
                s, rd = lst.pop()
                try:
                    r, _, _ = select.select([s], [], [], 0)
                except (OSError, ValueError):
                    r = [s]
                if r:  # closed by the origin, or bytes nobody asked for
                    s.close()
                    continue
                return s, rd
        return None

    def put(self, addr, conn):
        with self.lock:
            lst = self.idle.setdefault(addr, [])
            if len(lst) < 16:
                lst.append(conn)
                return
        conn[0].close()


class Slot:
    def __init__(self, req):
        self.req, self.resp, self.interims, self.done = req, None, [], threading.Event()


class Handler(socketserver.BaseRequestHandler):

    def legal(self, name):
        return name in self.opts.legal

    def setup(self):
        self.opts, self.srv = self.server.opts, self.server
        self.sock = self.request
        if NODELAY:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(300)
        self.reader = Reader(self.sock)
        self.wlock, self.cond = threading.Lock(), threading.Condition()
        self.index, self.unwritten, self.dead = 0, 0, False

    def handle(self):
        try:
            if self.legal("parallel") or self.opts.bug == "out-of-order":
                self.handle_parallel()
            else:
                self.handle_serial()
        except Exception as e:  # (never take the process down)
            print("varied-proxy: internal error: %r" % e, file=sys.stderr, flush=True)
        finally:
            self.linger()

    def linger(self):
        """9112 §9.6: close the writing side, read a little, then close."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(0.3)
            end = time.time() + 1
            while time.time() < end and self.sock.recv(65536):
                pass
        except OSError:
            pass

    # --- the client side ------------------------------------------------------

    def wait_request(self):
        if not self.legal("idle-close"):
            return True
        while True:
            if self.reader.ready(0.1):
                return True
            with self.cond:
                if self.unwritten == 0:
                    return False

    def next_request(self):
        """(request, None), (None, an answer that closes), or (None, None) at the end."""
        try:
            req = self.read_request()
            return req, None
        except socket.timeout:
            return None, None
        except Bad as e:
            return None, self.own(e.status, e.msg, close=True)
        except OSError:
            return None, None

    def read_request(self):
        rd, strict = self.reader, self.legal("strict-crlf")
        for _ in range(10):  # 9112 §2.2: empty lines before a request-line ignored
            try:
                raw = rd.readline(16384)
            except Bad:
                raise Bad(414, "request line too long")  # 9110 §15.5.15
            if not raw:
                return None
            if raw not in (b"\r\n", b"\n"):
                break
        else:
            raise Bad(400, "empty lines")
        if not raw.endswith(b"\n"):
            raise Bad(400, "incomplete request line")
        line = eol(raw, strict)
        parts = line.split(b" ")
        if len(parts) != 3 or not TOKEN.fullmatch(parts[0]) or not parts[1]:
            raise Bad(400, "bad request line")
        m = re.fullmatch(rb"HTTP/(\d)\.(\d)", parts[2])
        if not m:
            raise Bad(400, "bad version")
        if m.group(1) != b"1":
            raise Bad(505, "HTTP/1 only")
        if not re.fullmatch(rb"[\x21-\x7e]+", parts[1]) or b"#" in parts[1]:
            raise Bad(400, "bad request target")
        req = Req()
        req.method, req.target = parts[0].decode(), parts[1].decode()
        req.version = "1." + m.group(2).decode()
        req.v11 = m.group(2) != b"0"
        req.line = line
        try:
            req.fields = parse_fields(rd, strict, fold_ok=not self.legal("reject-fold"))
        except Bad as e:
            raise Bad(e.status, e.msg)
        self.index += 1
        req.index = self.index
        # Framing, 9112 §6.
        f = req.fields
        te, cl = values_of(f, "transfer-encoding"), values_of(f, "content-length")
        req.framing, req.cl, req.body, req.trailers, req.both = "none", 0, b"", [], False
        if te:
            if not req.v11:
                raise Bad(400, "Transfer-Encoding in HTTP/1.0")  # 9112 §6.1: faulty
            if cl and not self.legal("te-over-cl"):
                raise Bad(400, "Transfer-Encoding and Content-Length")  # §6.1 MAY reject
            codings = [c.strip().lower() for v in te for c in v.split(",") if c.strip()]
            if not codings or codings[-1] != "chunked" or codings.count("chunked") > 1:
                raise Bad(400, "chunked not final")  # §6.3 rule 4
            if codings != ["chunked"]:
                raise Bad(501, "transfer coding not implemented")  # §6.1 SHOULD 501
            req.framing, req.both = "chunked", bool(cl)
        elif cl:
            vals = {x.strip() for v in cl for x in v.split(",")}
            if len(vals) != 1 or not re.fullmatch(r"\d{1,18}", next(iter(vals))):
                raise Bad(400, "bad Content-Length")  # §6.3 rule 5
            req.framing, req.cl = "cl", int(next(iter(vals)))
            if req.cl > MAX_BODY:
                raise Bad(413, "content too large")
        # Persistence, 9112 §9.3.
        tokens = tokens_of(f, "connection")
        req.ka10 = False
        if not req.v11 or self.legal("http10"):
            persist = (self.opts.mode == "gateway" and "keep-alive" in tokens and
                       "close" not in tokens)
            req.ka10 = persist
        else:
            persist = "close" not in tokens
        if self.legal("close-client") or req.both or \
                (self.legal("keepalive-3") and req.index >= 3):
            persist = False
        req.close = not persist
        exp = tokens_of(f, "expect")
        req.expect100 = (req.v11 and "100-continue" in exp and
                         (req.framing == "chunked" or req.cl > 0))
        return req

    def read_body(self, req):
        try:
            if req.framing == "cl":
                req.body = self.reader.read(req.cl)
                if len(req.body) < req.cl:
                    raise Bad(400, "incomplete content")
            elif req.framing == "chunked":
                req.body, req.trailers = read_chunked(self.reader, self.legal("strict-crlf"),
                                                      MAX_BODY)
        except socket.timeout:
            raise Bad(400, "content too slow")

    def own(self, status, msg="", fields=(), close=False):
        body = (msg + "\n").encode() if msg else b""
        h = list(fields)
        if body:
            h.append(("Content-Type", "text/plain"))
        if not self.legal("no-date"):
            h.append(("Date", http_date()))
        r = Response(status, REASONS.get(status, "Status"), h, body)
        r.own, r.close, r.cl = True, close, str(len(body))
        return r

    def allow(self):
        m = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
        if not self.legal("forbid-trace"):
            m.insert(6, "TRACE")
        return ", ".join(m)

    def prepare(self, req):
        """("own", Response) or ("job", Job); reads the content unless it is
        to be streamed after the head (100-continue)."""
        if self.opts.bug == "crash-trace" and req.method == "TRACE" and \
                (req.framing == "chunked" or req.cl > 0):
            os._exit(4)
        try:
            job = self.route(req)
        except Bad as e:
            return "own", self.own(e.status, e.msg, close=True)
        answer = self.policy(req, job)
        if answer is not None:
            if req.framing != "none":
                if req.expect100 or answer.close:
                    answer.close = True  # the content is not read: the connection ends
                    return "own", answer
                try:
                    self.read_body(req)
                except (Bad, OSError):
                    answer.close = True
            return "own", answer
        if req.expect100:
            if req.framing == "chunked" and self.legal("http10"):
                return "own", self.own(411, "a length, please", close=True)
            job.stream = True
            return "job", job
        try:
            self.read_body(req)
        except Bad as e:
            return "own", self.own(e.status, e.msg, close=True)
        except OSError:
            return "own", self.own(400, "incomplete", close=True)
        if self.legal("limit-413") and len(req.body) > LIMIT_413:
            return "own", self.own(413, "content too large")
        return "job", job

    def route(self, req):
        job = Job()
        job.req, job.method, job.stream = req, req.method, False
        hosts = values_of(req.fields, "host")
        # 9112 §3.2: a 400 to 1.1 without Host, to two Hosts, to an invalid one.
        if (req.v11 and len(hosts) != 1) or len(hosts) > 1 or (hosts and not valid_host(hosts[0])):
            raise Bad(400, "bad Host")
        client_host = hosts[0] if hosts else None
        if req.method == "CONNECT":
            raise Bad(501, "no tunnels here")
        origin = self.opts.origin_addr
        origin_hp = self.opts.origin
        t = req.target
        job.self_target = False
        m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", t)
        if m:
            scheme = m.group(1).lower()
            if scheme != "http":
                raise Bad(501, "only http")
            rest = t[m.end():]
            cut = min([i for i in (rest.find("/"), rest.find("?")) if i >= 0] or [len(rest)])
            authority, pq = rest[:cut], rest[cut:]
            # 9110 §4.2.4: userinfo an error; §4.2.1: an empty host MUST be rejected.
            if "@" in authority or not valid_host(authority):
                raise Bad(400, "bad authority")
            hp = split_hostport(authority)
            if hp is None:
                raise Bad(400, "bad authority")
            if pq == "":
                # 9112 §3.2.4 (OPTIONS, empty path, no query: "*"), §3.2.1 ("/").
                job.target = "*" if (req.method == "OPTIONS" and
                                     self.opts.bug != "options-slash") else "/"
            elif pq.startswith("?"):
                job.target = "/" + pq
            else:
                job.target = pq
            if self.opts.mode == "forward":
                job.addr = origin or hp
                job.host = authority
                if self.opts.bug == "host-kept" and client_host is not None:
                    job.host = client_host
                job.self_target = origin is None and self.is_self(hp)
            else:
                job.addr = origin
                job.host = origin_hp if self.legal("gateway-host") else authority
            return job
        if t == "*":
            if req.method != "OPTIONS":
                raise Bad(400, "* is for OPTIONS")
        elif not t.startswith("/"):
            raise Bad(400, "bad request target")
        job.target = t
        if self.opts.mode == "gateway":
            job.addr = origin
            job.host = origin_hp if (self.legal("gateway-host") or client_host is None) \
                else client_host
        elif origin is not None:
            job.addr, job.host = origin, client_host or origin_hp
        else:  # a forward proxy given origin-form: routed by Host
            if not client_host:
                raise Bad(400, "no absolute-form, no Host")
            hp = split_hostport(client_host)
            if hp is None:
                raise Bad(400, "bad Host")
            job.addr, job.host = hp, client_host
            job.self_target = self.is_self(hp)
        return job

    def is_self(self, hp):
        host, port = hp
        return port == self.opts.port and host.lower() in (
            "127.0.0.1", "localhost", "::1", "0.0.0.0", self.sock.getsockname()[0])

    def policy(self, req, job):
        """An answer of the proxy's own, or None to forward."""
        path = job.target.split("?", 1)[0]
        if job.self_target:
            return self.own(404, "the proxy has no resources of its own")
        if self.legal("auth-407") and self.opts.mode == "forward" and \
                values_of(req.fields, "proxy-authorization") != [CREDENTIALS]:
            return self.own(407, "proxy credentials, please",
                            [("Proxy-Authenticate", 'Basic realm="varied-proxy"')])
        if self.legal("acl-403") and ("secret" in path or path.endswith(".exe")
                                         or path.endswith("b")):
            return self.own(403, "not through this proxy")
        if self.legal("refuse-501") and (req.method not in KNOWN or req.method == "PATCH"):
            return self.own(501, "method not implemented")
        if self.legal("forbid-trace") and req.method == "TRACE":
            return self.own(405, "no TRACE through this proxy", [("Allow", self.allow())])
        if self.legal("uri-414") and len(req.target) > URI_414:
            return self.own(414, "target too long")
        if self.legal("limit-413") and req.framing == "cl" and req.cl > LIMIT_413:
            return self.own(413, "content too large", close=True)
        if self.legal("busy-503"):
            with self.srv.lock:
                self.srv.count += 1
                busy = self.srv.count % 5 == 0
            if busy:
                return self.own(503, "busy", [("Retry-After", "1")])
        via = " ".join(values_of(req.fields, "via"))
        if via.count("varied-proxy") + via.count("p7 (varied)") >= 3:
            return self.own(502, "forwarding loop")
        job.mf = None
        mf = values_of(req.fields, "max-forwards")
        if len(mf) == 1 and re.fullmatch(r"\d+", mf[0]):
            job.mf = int(mf[0])
        if req.method in ("TRACE", "OPTIONS") and job.mf == 0 and \
                self.opts.bug != "max-forwards-zero":
            # 9110 §7.6.2: the final recipient answers.
            if req.method == "OPTIONS":
                return self.own(200, "", [("Allow", self.allow())])
            lines = [req.line] + [("%s: %s" % (n, v)).encode("latin-1")
                                  for n, v in req.fields if n.lower() not in SENSITIVE]
            r = self.own(200, "")
            r.body = b"\r\n".join(lines) + b"\r\n\r\n"
            r.cl = str(len(r.body))
            r.fields.append(("Content-Type", "message/http"))
            return r
        return None

    # --- writing to the client --------------------------------------------------

    def write(self, data):
        with self.wlock:
            if self.dead:
                return False
            try:
                self.sock.sendall(data)
                return True
            except OSError:
                self.dead = True
                return False

    def finish_fields(self, fields):
        if self.legal("combine-fields"):
            out, at = [], {}
            for n, v in fields:
                ln = n.lower()
                if ln in LIST_FIELDS and ln in at:
                    i = at[ln]
                    old = out[i][1]
                    out[i] = (out[i][0], (old + ", " + v) if old and v else old or v)
                else:
                    if ln in LIST_FIELDS:
                        at[ln] = len(out)
                    out.append((n, v))
            fields = out
        if self.legal("lower-case"):
            fields = [(n.lower(), v) for n, v in fields]
        return b"".join(("%s: %s\r\n" % (n, v)).encode("latin-1") for n, v in fields)

    def reason(self, r):
        if self.legal("own-reason") and not r.own:
            return "Varied " + REASONS.get(r.status, "Status")
        return r.reason

    def version(self):
        return "HTTP/1.0" if self.legal("http10") else "HTTP/1.1"

    def render_interim(self, r):
        return ("%s %d %s\r\n" % (self.version(), r.status, self.reason(r))).encode("latin-1") + \
            self.finish_fields(r.fields) + b"\r\n"

    def send_interim(self, req, r):
        if req.v11 and not self.legal("http10"):
            self.write(self.render_interim(r))

    def render(self, req, r, closing):
        head = req is not None and req.method == "HEAD"
        fields = list(r.fields)
        body, chunked = r.body, False
        if head or r.status in (204, 304):
            body = b""
            if r.status != 204 and r.cl is not None:
                fields.append(("Content-Length", r.cl))
        else:
            client11 = req is not None and req.v11 and not self.legal("http10")
            chunked = client11 and not r.own and (
                self.legal("rechunk") or (r.chunked and not self.legal("dechunk")))
            if chunked:
                fields.append(("Transfer-Encoding", "chunked"))
            else:
                fields = [(n, v) for n, v in fields if n.lower() != "trailer"]
                fields.append(("Content-Length", str(len(body))))
        if closing:
            fields.append(("Connection", "close"))
        elif req is not None and req.ka10:
            fields.append(("Connection", "keep-alive"))
        out = ("%s %d %s\r\n" % (self.version(), r.status, self.reason(r))).encode("latin-1")
        out += self.finish_fields(fields) + b"\r\n"
        if head:
            out += r.extra
        if chunked:
            if body:
                out += b"%x\r\n" % len(body) + body + b"\r\n"
            out += b"0\r\n" + self.finish_fields(r.trailers if not self.legal("dechunk") else []) + b"\r\n"
        else:
            out += body
        return out

    def send_response(self, req, r, closing):
        return self.write(self.render(req, r, closing))

    # --- serving --------------------------------------------------------------

    def handle_serial(self):
        while not self.dead:
            if not self.wait_request():
                return
            req, early = self.next_request()
            if req is None:
                if early is not None:
                    self.send_response(None, early, True)
                return
            kind, x = self.prepare(req)
            if kind == "own":
                resp = x
            else:
                resp = self.forward(x, lambda r, req=req: self.send_interim(req, r))
            closing = req.close or resp.close
            if not self.send_response(req, resp, closing) or closing:
                return

    def handle_parallel(self):
        ordered = self.opts.bug != "out-of-order"
        outq, workers = queue.Queue(), []
        writer = threading.Thread(target=self.writer_loop, args=(outq,), daemon=True)
        writer.start()

        def enqueue(slot):
            with self.cond:
                self.unwritten += 1
            if ordered or slot.done.is_set():
                outq.put(slot)

        def work(slot, job):
            try:
                slot.resp = self.forward(job, slot.interims.append)
            except Exception as e:  # (never lose an answer)
                print("varied-proxy: internal error: %r" % e, file=sys.stderr, flush=True)
                slot.resp = self.own(502, "internal error")
            slot.done.set()
            if not ordered:
                outq.put(slot)

        while not self.dead:
            if not self.wait_request():
                break
            req, early = self.next_request()
            if req is None:
                if early is not None:
                    slot = Slot(None)
                    slot.resp = early
                    slot.done.set()
                    enqueue(slot)
                break
            kind, x = self.prepare(req)
            slot = Slot(req)
            if kind == "own":
                slot.resp = x
                slot.done.set()
                enqueue(slot)
            elif x.stream:
                # Its 100 and its body come in order: after all that is owed.
                with self.cond:
                    while self.unwritten and not self.dead:
                        self.cond.wait(0.5)
                slot.resp = self.forward(x, lambda r, req=req: self.send_interim(req, r))
                slot.done.set()
                enqueue(slot)
            else:
                enqueue(slot)
                t = threading.Thread(target=work, args=(slot, x), daemon=True)
                workers.append(t)
                t.start()
            if req.close or slot.done.is_set() and slot.resp.close:
                break
        for t in workers:
            t.join()
        outq.put(None)
        writer.join()
        with self.wlock:
            self.dead = True  # (out-of-order: the close waits for the last answer)

    def writer_loop(self, outq):
        while True:
            slot = outq.get()
            if slot is None:
                return
            slot.done.wait()
            req, r = slot.req, slot.resp
            closing = req is None or req.close or r.close
            if req is not None:
                for i in slot.interims:
                    self.send_interim(req, i)
            ok = self.send_response(req, r, closing)
            with self.cond:
                self.unwritten -= 1
                self.cond.notify_all()
            if not ok or (closing and self.opts.bug != "out-of-order"):
                with self.wlock:
                    self.dead = True
                try:
                    self.sock.shutdown(socket.SHUT_RD)
                except OSError:
                    pass

    # --- the origin side --------------------------------------------------------

    def forward_fields(self, job):
        req = job.req
        drop = {"connection", "host", "content-length", "transfer-encoding"}
        if self.opts.bug != "conn-listed":
            drop |= tokens_of(req.fields, "connection")  # 9110 §7.6.1
        if self.legal("strip-hop"):
            drop |= HOP_EXTRA
        if self.legal("auth-407") and self.opts.mode == "forward":
            drop.add("proxy-authorization")  # consumed
        if req.framing == "chunked":
            drop.add("trailer")  # the trailers are not sent on
        trace_like = req.method in ("TRACE", "OPTIONS")
        out = [("Host", job.host)]
        for n, v in req.fields:
            ln = n.lower()
            if ln in drop:
                continue
            if ln == "max-forwards":
                if trace_like and job.mf is not None and self.opts.bug != "max-forwards-same" \
                        and not (job.mf == 0 and self.opts.bug == "max-forwards-zero"):
                    n_ = job.mf - 1
                    if self.legal("max-forwards-cap"):
                        n_ = min(n_, 3)
                    v = str(n_)
                elif not trace_like and self.legal("max-forwards-drop"):
                    continue
            if ln == "cache-control" and self.opts.bug == "drop-directive":
                v = self.drop_unknown(v)
                if not v:
                    continue
            out.append((n, v))
        if self.opts.bug != "no-via":
            out = self.add_via(out, req.version, False)
        if self.legal("xff"):
            ip = self.client_address[0]
            xff = ", ".join(values_of(out, "x-forwarded-for") + [ip])
            fwd = values_of(out, "forwarded")

            def q(s):
                return s if re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", s) else \
                    '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')
            node = ("[%s]" % ip) if ":" in ip else ip
            me = "%s:%d" % self.sock.getsockname()[:2]
            el = "for=%s;by=%s;host=%s;proto=http" % (q(node), q(me), q(job.host))
            out = [(n, v) for n, v in out if n.lower() not in ("x-forwarded-for", "forwarded")]
            out += [("X-Forwarded-For", xff), ("Forwarded", ", ".join(fwd + [el]))]
        return out

    def drop_unknown(self, v):
        keep = [d.strip() for d in v.split(",")
                if d.split("=", 1)[0].strip().lower() in KNOWN_CC]
        return ", ".join(keep)

    def add_via(self, fields, version, response):
        if self.legal("via-pseudonym"):
            me = ("HTTP/%s" if response else "%s") % version + " p7 (varied)"
        else:
            me = "%s varied-proxy" % version
        if self.legal("via-line"):
            return fields + [("Via", me)]
        old = [v for v in values_of(fields, "via") if v.strip()]
        return [(n, v) for n, v in fields if n.lower() != "via"] + [("Via", ", ".join(old + [me]))]

    def request_head(self, job, keep):
        req = job.req
        fields = self.forward_fields(job)
        if job.stream and req.framing == "chunked":
            fields.append(("Transfer-Encoding", "chunked"))
        elif job.stream:
            fields.append(("Content-Length", str(req.cl)))
        elif req.body or req.framing != "none":
            fields.append(("Content-Length", str(len(req.body))))
        if not keep:
            fields.append(("Connection", "close"))
        line = "%s %s %s\r\n" % (job.method, job.target, self.version())
        return line.encode("latin-1") + self.finish_fields(fields) + b"\r\n"

    def relay_fields(self, fields, version, status):
        drop = {"connection", "content-length", "transfer-encoding"}
        if self.opts.bug != "resp-conn-listed":
            drop |= tokens_of(fields, "connection")
        if self.legal("strip-hop"):
            drop |= HOP_EXTRA - {"proxy-authorization"}
            if status == 407:
                drop.discard("proxy-authenticate")
        out = []
        for n, v in fields:
            if n.lower() in drop:
                continue
            if n.lower() == "cache-control" and self.opts.bug == "drop-directive":
                v = self.drop_unknown(v)
                if not v:
                    continue
            out.append((n, v))
        if not self.legal("no-date") and not values_of(out, "date"):
            out.append(("Date", http_date()))  # 9110 §6.6.1
        if not (self.opts.mode == "gateway" and self.legal("gateway-no-resp-via")):
            out = self.add_via(out, version, True)
        return out

    def read_response(self, rd, method, interim, until_100=False):
        """The origin's final response; None at a 100 when until_100."""
        while True:
            try:
                raw = rd.readline(65536)
            except ConnectionResetError:
                if rd.got == 0:
                    raise Closed()
                raise
            if not raw:
                if rd.got == 0:
                    raise Closed()
                raise Bad(502, "the origin closed early")
            if not raw.endswith(b"\n"):
                raise Bad(502, "the origin closed early")
            line = eol(raw, False)
            m = re.fullmatch(rb"HTTP/(\d)\.(\d) (\d{3})(?: ([\t \x21-\x7e\x80-\xff]*))?", line)
            if not m or m.group(1) != b"1":
                raise Bad(502, "not an HTTP/1 status line")
            version = "1." + m.group(2).decode()
            status = int(m.group(3))
            if not 100 <= status <= 599:
                raise Bad(502, "status out of range")
            reason = (m.group(4) or b"").decode("latin-1")
            fields = parse_fields(rd, strict=False, fold_ok=True)
            if status < 200:
                if status == 101:
                    raise Bad(502, "no protocol switching here")
                r = Response(status, reason, self.relay_fields(fields, version, status),
                             version=version)
                interim(r)  # 9110 §15.2: MUST forward
                if until_100 and status == 100:
                    return None
                continue
            break
        r = Response(status, reason, fields, version=version)
        te, cl = values_of(fields, "transfer-encoding"), values_of(fields, "content-length")
        tokens = tokens_of(fields, "connection")
        r.reusable = version != "1.0" and "close" not in tokens
        valid_cl = None
        if cl:
            vals = {x.strip() for v in cl for x in v.split(",")}
            if len(vals) == 1 and re.fullmatch(r"\d{1,18}", next(iter(vals))):
                valid_cl = int(next(iter(vals)))
        if method == "HEAD" or status in (204, 304):
            if valid_cl is not None and status != 204:
                r.cl = str(valid_cl)
            return r
        if te:
            if version == "1.0":
                raise Bad(502, "Transfer-Encoding in HTTP/1.0")  # 9112 §6.1: faulty
            codings = [c.strip().lower() for v in te for c in v.split(",") if c.strip()]
            if cl:
                r.reusable = False
            if codings and codings[-1] == "chunked":
                body, r.trailers = read_chunked(rd, False, MAX_BODY)
                codings = codings[:-1]
                r.chunked = True
            else:
                body, r.reusable = rd.read_to_close(MAX_BODY), False  # 9112 §6.3 rule 4
            for c in reversed(codings):  # transfer codings are hop-by-hop: decoded here
                if c in ("gzip", "x-gzip"):
                    body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
                elif c == "deflate":
                    try:
                        body = zlib.decompress(body)
                    except zlib.error:
                        body = zlib.decompress(body, -zlib.MAX_WBITS)
                elif c != "identity":
                    raise Bad(502, "unknown transfer coding")
        elif cl:
            if valid_cl is None:
                raise Bad(502, "bad Content-Length")  # 9112 §6.3 rule 5
            body = rd.read(valid_cl)
            if len(body) < valid_cl:
                raise Bad(502, "content cut short")
        else:
            body, r.reusable = rd.read_to_close(MAX_BODY), False
        r.body = body
        return r

    def stream_request(self, job, osock, ord_, interim):
        """9110 §10.1.1: the head went on before the content; a final answer of the
        origin's before the content is returned, else None once it is sent."""
        req = job.req
        if self.legal("continue") and not self.legal("http10"):
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        else:
            end = time.time() + self.opts.timeout
            while True:
                if self.reader.buf:
                    break
                if ord_.buf:
                    ready = [osock]
                else:
                    left = end - time.time()
                    if left <= 0:
                        raise socket.timeout()
                    ready, _, _ = select.select([self.sock, osock], [], [], left)
                if osock in ready:
                    got = self.read_response(ord_, job.method, interim, until_100=True)
                    if got is None:
                        break
                    return got
                if self.sock in ready:
                    break
        failed = []

        def send(data):
            if not failed:
                try:
                    osock.sendall(data)
                except OSError:
                    failed.append(1)
        try:
            if req.framing == "cl":
                left = req.cl
                while left:
                    data = self.reader.read(min(left, 65536))
                    if not data:
                        raise Bad(400, "incomplete content")
                    left -= len(data)
                    send(data)
            else:
                read_chunked(self.reader, self.legal("strict-crlf"), MAX_BODY,
                             sink=lambda d: send(b"%x\r\n" % len(d) + d + b"\r\n"))
                send(b"0\r\n\r\n")
        except socket.timeout:
            raise Bad(400, "content too slow")
        except OSError:
            raise Bad(400, "incomplete content")
        return None

    def connect(self, addr):
        s = socket.create_connection(addr, timeout=self.opts.timeout)
        if NODELAY:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s, Reader(s)

    def forward(self, job, interim):
        req = job.req
        pool = self.legal("pool") and not self.legal("http10")
        attempts = 0
        while True:
            conn = self.srv.pool.get(job.addr) if pool and not job.stream and not attempts \
                else None
            reused = conn is not None
            if conn is None:
                try:
                    conn = self.connect(job.addr)
                except socket.timeout:
                    return self.own(504, "the origin did not answer in time")
                except OSError:
                    return self.own(502, "the origin cannot be reached")
            s, rd = conn
            rd.got = 0  # (bytes of this answer)
            s.settimeout(self.opts.timeout)
            keep = pool and not job.stream
            try:
                try:
                    s.sendall(self.request_head(job, keep) + (b"" if job.stream else req.body))
                except OSError:
                    if rd.got == 0:
                        raise Closed()
                    raise
                if job.stream:
                    early = self.stream_request(job, s, rd, interim)
                    if early is not None:
                        s.close()
                        r = self.relay(job, early)
                        r.close = True  # the content was not read
                        return r
                oresp = self.read_response(rd, job.method, interim)
            except Closed:
                s.close()
                if attempts == 0 and not job.stream and (
                        (reused and job.method in IDEMPOTENT) or
                        (self.opts.bug == "retry-post" and job.method == "POST")):
                    attempts += 1
                    continue
                return self.own(502, "the origin closed without answering", close=job.stream)
            except socket.timeout:
                s.close()
                return self.own(504, "the origin did not answer in time", close=job.stream)
            except Bad as e:
                s.close()
                if e.status != 502 and job.stream:  # the client's content was bad
                    return self.own(e.status, e.msg, close=True)
                return self.own(502, "the origin's answer was not HTTP: " + e.msg,
                                close=job.stream)
            except (OSError, ValueError, zlib.error):
                s.close()
                return self.own(502, "the origin's answer was broken", close=job.stream)
            if keep and oresp.reusable and not rd.buf:
                self.srv.pool.put(job.addr, conn)
            else:
                s.close()
            r = self.relay(job, oresp)
            if self.opts.bug == "head-body" and job.method == "HEAD" and r.status == 200:
                get = Job()
                get.__dict__.update(job.__dict__)
                get.method = "GET"
                r.extra = self.forward(get, lambda _: None).body
            return r

    def relay(self, job, o):
        r = Response(o.status, o.reason, self.relay_fields(o.fields, o.version, o.status),
                     o.body, o.version)
        r.chunked, r.trailers, r.cl = o.chunked, o.trailers, o.cl
        if self.opts.bug == "status-201" and r.status == 201:
            r.status, r.reason = 200, "OK"
        if self.opts.bug == "chunk-short" and o.chunked and r.body:
            r.body = r.body[:-1]
        encoded = any(c.strip().lower() not in ("", "identity")
                      for v in values_of(r.fields, "content-encoding") for c in v.split(","))
        protected = has_directive(o.fields, "no-transform") or \
            has_directive(job.req.fields, "no-transform")
        head = job.method == "HEAD"
        if r.status == 200 and not encoded and (
                (self.legal("transform") and not protected) or
                (self.opts.bug == "transform-anyway" and not head)):
            # 9110 §7.7, §15.3.4: a transformed 200 may be a 203.
            r.status, r.reason = 203, "Non-Authoritative Information"
            if head:
                if r.cl is not None:
                    r.cl = str(int(r.cl) + 1)
            else:
                r.body = r.body + b"\n"
            fields = []
            for n, v in r.fields:
                ln = n.lower()
                if ln in ("content-md5", "content-digest", "repr-digest"):
                    continue
                if ln == "etag" and not v.startswith("W/"):
                    v = "W/" + v
                fields.append((n, v))
            r.fields = fields
        return r


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        print("varied-proxy: error with %s: %r" % (client_address, sys.exc_info()[1]),
              file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--mode", default="forward", choices=["forward", "gateway"])
    ap.add_argument("--origin", default="", help="HOST:PORT every request goes to")
    ap.add_argument("--legal", default="", help="comma-separated choices, or all")
    ap.add_argument("--bug", default="", choices=[""] + BUGS)
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for the origin before a 504")
    opts = ap.parse_args()
    names = [n for n in opts.legal.split(",") if n]
    if names == ["all"]:
        names = [n for n in LEGAL if n not in NOT_IN_ALL]
    for n in names:
        if n not in LEGAL:
            ap.error("unknown legal choice %r (known: %s)" % (n, ", ".join(LEGAL)))
    opts.legal = set(names)
    opts.origin_addr = None
    if opts.origin:
        hp = split_hostport(opts.origin, default=80) if valid_host(opts.origin) else None
        if hp is None:
            ap.error("--origin wants HOST:PORT")
        opts.origin_addr = hp
    elif opts.mode == "gateway":
        ap.error("gateway mode needs --origin")
    srv = Server(("127.0.0.1", opts.port), Handler)
    srv.opts, srv.pool, srv.lock, srv.count = opts, Pool(), threading.Lock(), 0
    print("varied-proxy on 127.0.0.1:%d mode=%s origin=%s legal=%s bug=%s" %
          (opts.port, opts.mode, opts.origin or "-", ",".join(sorted(opts.legal)) or "-",
           opts.bug or "-"), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
