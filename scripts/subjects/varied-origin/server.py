#!/usr/bin/env python3
"""An HTTP/1.1 origin server written apart from dualfuzz's model, from the RFC
text alone, whose behaviour is a set of choices the RFCs leave to a server
(each one a MAY, a SHOULD not followed, or one of several MUST-allowed
answers) and, for the other direction, planted bugs that each break one MUST.

    server.py PORT [--legal NAME,NAME...|all] [--bug NAME] [--files DIR]

A correct server whatever --legal names: a run of dualfuzz against it that
reports a violation is a false alarm of dualfuzz. With --bug, a run that
reports none is a missed violation. `--legal all` takes every choice that
does not exclude another. Only the standard library; threads, one per
connection, pipelined requests answered in order.

Legal choices (clause that allows it):
  http10         answers as HTTP/1.0 and closes after each (RFC 9110 §2.5, 9112 §9.3)
  close          "Connection: close" on every answer, then closes (9112 §9.6)
  chunked        GET content chunked to HTTP/1.1 requests (9112 §7.1)
  no-validators  no ETag, no Last-Modified (9110 §8.8.2.1, §8.8.3: SHOULD)
  weak-etag      weak entity tags only (9110 §8.8.3)
  no-range       Range ignored: a 200 (9110 §14.2: MAY ignore)
  multipart      several ranges as multipart/byteranges (else coalesced, §14.2)
  read-only-405  PUT, DELETE, POST, PATCH: 405 with Allow (9110 §15.5.6)
  read-only-501  every method but GET, HEAD, OPTIONS: 501 (9110 §15.6.2)
  forbid-writes  writes: 403 (9110 §15.5.4)
  auth           401 with WWW-Authenticate without credentials (9110 §11.6.1)
  busy           one request in five: 503 with Retry-After, or 429 (9110 §15.6.4, 6585)
  post-creates   POST stores its content at its target: 201 with Location (9110 §9.3.3)
  delete-202     DELETE answered 202, done 50 ms later (9110 §9.3.5, §15.3.3)
  gone-410       a deleted path answers 410 (9110 §15.5.11)
  head-no-length HEAD without Content-Length (9110 §8.6: MAY)
  keepalive-3    closes a connection after its third answer, said in it (9112 §9.6)
  idle-close     closes a connection idle for 100 ms (9112 §9.5)
  early-hints    a 103 before every 200 to HTTP/1.1 (9110 §15.2, RFC 8297)
  continue       a 100 before the answer to any HTTP/1.1 request with content (9110 §15.2.1)
  options-204    OPTIONS answered 204 with Allow (9110 §9.3.7)
  trace-405      TRACE refused with 405 and Allow (9110 §9.3.8)
  new-etag       a new entity tag on every write, same content or not (9110 §8.8.3)
  slash-redirect GET of a path that has stored children: 301 to PATH/ (9110 §15.4.2)
  nested-409     PUT below a path with nothing stored: 409 (9110 §9.3.4)
  minimal-304    a 304 with ETag and Date only (9110 §15.4.5)
  lower-case     field names in lower case (9110 §5.1)
  no-content-type content without Content-Type (9110 §8.3: SHOULD)
 and on the wire (what a client's parser must take):
  chunk-ext      chunked content with chunk extensions and a trailer section (9112 §7.1.1, §7.1.2)
  empty-reason   status lines with an empty reason phrase (9112 §4)
  ows            field values with spaces and tabs around them, "Chunked" (9112 §5.1, 9110 §5.6.3)
  close-delimited GET content without length, ended by closing (9112 §6.3 rule 8)
  304-length     a 304 with the 200's Content-Length and Content-Type (9110 §8.6, §15.4.5)
  split-fields   list fields (Allow, Cache-Control) on several lines (9110 §5.3)
  interim-many   a 100 and a 103 before every final answer to HTTP/1.1 (9110 §15.2)
Planted bugs (clause broken):
  stale-304      If-None-Match with a tag of an older content: 304 (9110 §13.1.2)
  range-off      a single range one byte short (9110 §14.1.2)
  head-length    HEAD's Content-Length one more than GET's (9110 §9.3.2, §8.6)
  lost-put       every third PUT answered 204 and not stored (9110 §9.3.4)
  ghost-delete   DELETE answered 204, the content kept (9110 §9.3.5)
  no-allow       a 405 without Allow (9110 §15.5.6)
  no-challenge   a 401 without WWW-Authenticate (9110 §11.6.1)
  get-405        GET of a missing path: 405 (9110 §9.1)
  crash-if-match exits at a DELETE with If-Match (a death)
  hang-options   stops answering at an OPTIONS with content (a hang)
  ims-over-inm   If-Modified-Since evaluated though If-None-Match is there (9110 §13.1.3)
  no-date        no Date on 200 answers (9110 §6.6.1)
  inm-star-put   a PUT or DELETE with If-None-Match: * goes ahead on what is there (9110 §13.1.2)
  weak-if-match  If-Match compared weakly: W/"t" matches "t" (9110 §13.1.1, §8.8.3.2)
  ius-ignored    If-Unmodified-Since never evaluated (9110 §13.1.4)
  etag-reuse     a PUT of other content keeps the strong tag it replaces (9110 §8.8.3)
  if-range-ignored a Range served whatever If-Range says (9110 §13.1.5)
  unsatisfiable-206 a Range with no satisfiable range: an empty 206 (9110 §14.2, §15.5.17)
  304-body       a 304 followed by content bytes (9110 §15.4.5, 9112 §6.3)
  head-body      HEAD answered with GET's content bytes after it (9110 §9.3.2, 9112 §6.3)
"""
import argparse
import email.utils
import hashlib
import ipaddress
import os
import re
import socket
import socketserver
import sys
import threading
import time
from urllib.parse import quote

LEGAL = ["http10", "close", "chunked", "no-validators", "weak-etag", "no-range",
         "multipart", "read-only-405", "read-only-501", "forbid-writes", "auth", "busy",
         "post-creates", "delete-202", "gone-410", "head-no-length", "keepalive-3",
         "idle-close", "early-hints", "continue", "options-204", "trace-405", "new-etag",
         "slash-redirect", "nested-409", "minimal-304", "lower-case", "no-content-type",
         "chunk-ext", "empty-reason", "ows", "close-delimited", "304-length", "split-fields",
         "interim-many"]
# Choices that exclude another, or that leave nothing else to judge: not in `all`.
NOT_IN_ALL = {"http10", "close", "close-delimited", "read-only-405", "read-only-501", "forbid-writes", "auth",
              "no-validators", "no-range"}
BUGS = ["stale-304", "range-off", "head-length", "lost-put", "ghost-delete", "no-allow",
        "no-challenge", "get-405", "crash-if-match", "hang-options", "ims-over-inm",
        "no-date", "inm-star-put", "weak-if-match", "ius-ignored", "etag-reuse",
        "if-range-ignored", "unsatisfiable-206", "304-body", "head-body"]
NODELAY = os.environ.get("VARIED_ORIGIN_NAGLE") is None  # (set it to see Nagle's delays)
CREDENTIALS = "Basic ZHVhbGZ1eno6ZHVhbGZ1eno="  # dualfuzz:dualfuzz
WRITES = {"PUT", "DELETE", "POST", "PATCH"}
# RFC 9110 §7.2: Host = uri-host [ ":" port ], RFC 3986 §3.2.2.
HOST_SHAPE = re.compile(r"(\[([^\]]*)\]|([A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)"
                        r"(:[0-9]*)?")
FUTURE = re.compile(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+")


def valid_host(v):
    m = HOST_SHAPE.fullmatch(v)
    if not m:
        return False
    literal = m.group(2)
    if literal is None:
        return True
    if FUTURE.fullmatch(literal):
        return True
    try:
        return "%" not in literal and bool(ipaddress.IPv6Address(literal))
    except ValueError:
        return False
KNOWN = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH"}


class Resource:
    def __init__(self, body, version, mtime):
        self.body, self.version, self.mtime = body, version, mtime
        self.fixed_tag = None


class Store:
    """Paths to resources; one lock for all (answers judged in order)."""

    def __init__(self, opts):
        self.opts, self.lock = opts, threading.Lock()
        self.items, self.deleted, self.history = {}, set(), {}
        self.clock = int(time.time())
        self.serial, self.requests, self.puts = 0, 0, 0

    def tick(self):
        # Last-Modified: whole seconds, never before an earlier write.
        self.clock = max(self.clock, int(time.time()))
        return self.clock

    def put(self, path, body):
        self.serial += 1
        old = self.items.get(path)
        version = self.serial
        if old and old.body == body and "new-etag" not in self.opts.legal:
            version = old.version
        r = Resource(body, version, self.tick())
        if old and "etag-reuse" == self.opts.bug:
            r.fixed_tag = self.tag_of(old)
        self.items[path] = r
        self.history.setdefault(path, set()).add(self.tag_of(r))
        self.deleted.discard(path)
        return old is None

    def delete(self, path):
        self.items.pop(path, None)
        self.deleted.add(path)

    def tag_of(self, r):
        if r.fixed_tag:
            return r.fixed_tag
        digest = hashlib.sha256(b"%d:" % r.version + r.body).hexdigest()[:16]
        return ('W/"%s"' if "weak-etag" in self.opts.legal else '"%s"') % digest


def http_date(t):
    return email.utils.formatdate(t, usegmt=True)


def parse_date(v):
    try:
        d = email.utils.parsedate_to_datetime(v)
        return int(d.timestamp()) if d else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def tags_of(v):
    """The entity tags of an If-Match/If-None-Match list, "*" as itself; None
    for a value that is not a list of tags."""
    v = v.strip()
    if v == "*":
        return ["*"]
    out = []
    for m in re.finditer(r'\s*(W/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(,|$)', v):
        out.append((m.group(1) or "") + m.group(2))
    rebuilt = ",".join(out)
    return out if out and len(re.sub(r"\s", "", v)) == len(rebuilt) else None


def opaque(t):
    return t[2:] if t.startswith("W/") else t


def parse_ranges(v, size):
    """The satisfiable ranges of a bytes Range, [] when none is, None when the
    value is not a bytes range-set (ignored: §14.2)."""
    m = re.fullmatch(r"\s*bytes\s*=\s*(.*)", v)
    if not m:
        return None
    out = []
    for spec in m.group(1).split(","):
        spec = spec.strip()
        if not spec:
            continue
        a = re.fullmatch(r"(\d+)-(\d*)", spec)
        b = re.fullmatch(r"-(\d+)", spec)
        if a:
            first = int(a.group(1))
            last = int(a.group(2)) if a.group(2) else size - 1
            if a.group(2) and last < first:
                return None
            if first < size:
                out.append((first, min(last, size - 1)))
        elif b:
            n = int(b.group(1))
            if n > 0 and size > 0:
                out.append((max(0, size - n), size - 1))
        else:
            return None
    return out


class Handler(socketserver.StreamRequestHandler):
    disable_nagle_algorithm = NODELAY
    def setup(self):
        super().setup()
        self.opts, self.store = self.server.opts, self.server.store
        self.answered = 0
        self.method, self.path, self.closing = "", "", False

    def legal(self, name):
        return name in self.opts.legal

    def handle(self):
        while True:
            if self.legal("idle-close"):
                self.connection.settimeout(0.1)
            try:
                line = self.rfile.readline(65537)
            except (socket.timeout, OSError):
                return
            if not line:
                return
            if line in (b"\r\n", b"\n"):
                continue  # RFC 9112 §2.2: an empty line before a request MAY be ignored
            self.connection.settimeout(None)
            if not self.one(line):
                return

    def read_head(self):
        fields = []
        while True:
            line = self.rfile.readline(65537)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                return fields
            if len(fields) > 100 or line[:1] in (b" ", b"\t") or b":" not in line:
                return "bad"
            name, _, value = line.partition(b":")
            if name != name.strip() or not re.fullmatch(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
                return "bad"
            fields.append((name.decode("latin-1").lower(),
                           value.strip(b" \t\r\n").decode("latin-1")))

    def one(self, line):
        """Reads and answers one request; False when the connection ends."""
        self.method = ""
        parts = line.rstrip(b"\r\n").split(b" ")
        fields = self.read_head()
        if fields is None:
            return False
        if len(parts) != 3 or fields == "bad" or not re.fullmatch(rb"HTTP/1\.[01]", parts[2]):
            self.version = b"HTTP/1.1"
            self.send(400, {}, b"bad request\n", close=True)
            return False
        method, target, self.version = (p.decode("latin-1") for p in parts)
        self.version = self.version.encode()
        f = {}
        for name, value in fields:
            f[name] = f[name] + ", " + value if name in f and name != "host" else value
        hosts = [v for n, v in fields if n == "host"]
        # RFC 9112 §3.2: a 400 to a 1.1 request without Host, with two, or an invalid one.
        if (self.version == b"HTTP/1.1" and len(hosts) != 1) or len(hosts) > 1 or \
                (hosts and not valid_host(hosts[0])):
            self.send(400, {}, b"bad host\n", close=True)
            return False
        if "transfer-encoding" in f:
            codings = [c.strip().lower() for c in f["transfer-encoding"].split(",")]
            # RFC 9112 §6.3: chunked not last is a 400; §6.1: a coding not
            # understood SHOULD be a 501; with Content-Length, MAY reject.
            if codings[-1] != "chunked" or "content-length" in f:
                self.send(400, {}, b"bad framing\n", close=True)
                return False
            if codings != ["chunked"]:
                self.send(501, {}, b"unknown coding\n", close=True)
                return False
            body = self.read_chunked()
            if body is None:
                self.send(400, {}, b"bad chunks\n", close=True)
                return False
        elif "content-length" in f:
            if not re.fullmatch(r"\d{1,9}", f["content-length"]):
                self.send(400, {}, b"bad length\n", close=True)
                return False
            body = self.rfile.read(int(f["content-length"]))
        else:
            body = b""
        if target.startswith("http://") or target.startswith("https://"):
            target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
        path = target.split("?", 1)[0]
        if self.legal("continue") and self.version == b"HTTP/1.1" and body:
            self.raw(b"HTTP/1.1 100 Continue\r\n\r\n")
        self.closing = ("close" in f.get("connection", "").lower() or
                        (self.version == b"HTTP/1.0" and
                         "keep-alive" not in f.get("connection", "").lower()))
        self.method = method
        self.dispatch(method, path, target, f, body)
        self.answered += 1
        return not self.closing

    def read_chunked(self):
        out = b""
        while True:
            size = self.rfile.readline(1024).split(b";")[0].strip()
            if not re.fullmatch(rb"[0-9A-Fa-f]{1,7}", size):
                return None
            n = int(size, 16)
            if n == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass
                return out
            out += self.rfile.read(n)
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                return None

    # --- answers -------------------------------------------------------------

    def raw(self, data):
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass

    def send(self, status, headers, body=b"", close=False, head=False):
        reasons = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
                   206: "Partial Content", 301: "Moved Permanently", 304: "Not Modified",
                   400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
                   404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
                   410: "Gone", 412: "Precondition Failed", 416: "Range Not Satisfiable",
                   429: "Too Many Requests", 501: "Not Implemented",
                   503: "Service Unavailable"}
        version = b"HTTP/1.0" if self.legal("http10") else b"HTTP/1.1"
        if self.legal("http10") or self.legal("close") or (
                self.legal("keepalive-3") and self.answered >= 2):
            close = True
        if close or self.closing:
            close = self.closing = True  # §9.6: SHOULD say so when closing
        h = dict(headers)
        head = head or self.method == "HEAD"
        if body and "Content-Type" not in h and not self.legal("no-content-type"):
            h["Content-Type"] = "text/plain"
        if not (self.opts.bug == "no-date" and status == 200):
            h.setdefault("Date", http_date(time.time()))
        h.setdefault("Server", "varied-origin")
        no_content = status in (204, 304) or 100 <= status < 200
        chunked = ((self.legal("chunked") or self.legal("chunk-ext")) and status == 200 and
                   not head and self.version == b"HTTP/1.1" and not self.legal("http10") and
                   body)
        delimited = (self.legal("close-delimited") and status == 200 and not head and
                     self.method == "GET" and not chunked)
        if delimited:
            close = self.closing = True
        if not no_content and "Content-Length" not in h and not chunked and not delimited:
            if not (head and self.legal("head-no-length")):
                h["Content-Length"] = str(len(body))
        if head and self.legal("head-no-length"):
            h.pop("Content-Length", None)
        # HEAD's fields as GET's would be (§9.3.2): a chunked GET's HEAD says
        # chunked too, with no content to follow (9112 §6.3 rule 1).
        if head and status == 200 and (self.legal("chunked") or self.legal("chunk-ext")) \
                and self.version == b"HTTP/1.1" and not self.legal("http10"):
            h.pop("Content-Length", None)
            h["Transfer-Encoding"] = "chunked"
        if chunked:
            h["Transfer-Encoding"] = "Chunked" if self.legal("ows") else "chunked"
            if self.legal("chunk-ext"):
                h["Trailer"] = "X-Checksum"
        if close:
            h["Connection"] = "close"
        elif self.version == b"HTTP/1.0" and not self.legal("http10"):
            h["Connection"] = "keep-alive"
        interim = self.version == b"HTTP/1.1" and not self.legal("http10") and status >= 200
        if self.legal("interim-many") and interim:
            self.raw(b"HTTP/1.1 100 Continue\r\n\r\n"
                     b"HTTP/1.1 103 Early Hints\r\nLink: </small.txt>; rel=preload\r\n\r\n")
        elif self.legal("early-hints") and status == 200 and interim:
            self.raw(b"HTTP/1.1 103 Early Hints\r\nLink: </small.txt>; rel=preload\r\n\r\n")
        reason = b"" if self.legal("empty-reason") else reasons.get(status, "Other").encode()
        lines = [b"%s %d %s" % (version, status, reason)]
        for k, v in h.items():
            name = k.lower() if self.legal("lower-case") else k
            values = [v]
            if self.legal("split-fields") and k in ("Allow", "Cache-Control") and ", " in v:
                values = v.split(", ")
            for one in values:
                one = " \t%s\t " % one if self.legal("ows") else one
                lines.append(("%s:%s" % (name, one if self.legal("ows") else " " + one))
                             .encode("latin-1"))
        out = b"\r\n".join(lines) + b"\r\n\r\n"
        if (head and self.opts.bug == "head-body" and status == 200) or (
                status == 304 and self.opts.bug == "304-body"):
            out += body or b"not modified\n"  # (no framing says so: the next answer's start)
        if not head and not no_content:
            if chunked:
                mid = len(body) // 2
                ext = b";a=1;b=\"x y\"" if self.legal("chunk-ext") else b""
                for piece in (body[:mid], body[mid:]):
                    if piece:
                        out += b"%x%s\r\n" % (len(piece), ext) + piece + b"\r\n"
                out += b"0%s\r\n" % ext
                if self.legal("chunk-ext"):
                    out += b"X-Checksum: %d\r\n" % (sum(body) % 65536)
                out += b"\r\n"
            else:
                out += body
        self.raw(out)

    def validators(self, r, with_lm=True):
        if self.legal("no-validators"):
            return {}
        h = {"ETag": self.store.tag_of(r)}
        if with_lm:
            h["Last-Modified"] = http_date(r.mtime)
        return h

    def describe(self, r):
        h = self.validators(r)
        if not self.legal("no-content-type") and r.body:
            h["Content-Type"] = "application/octet-stream"
        if not self.legal("no-range"):
            h["Accept-Ranges"] = "bytes"
        return h

    def allow(self):
        if self.legal("read-only-405") or self.legal("read-only-501") or \
                self.legal("forbid-writes"):
            return "GET, HEAD, OPTIONS" + ("" if self.legal("trace-405") else ", TRACE")
        methods = "GET, HEAD, OPTIONS, PUT, DELETE, POST"
        return methods + ("" if self.legal("trace-405") else ", TRACE")

    def refuse405(self):
        h = {} if self.opts.bug == "no-allow" else {"Allow": self.allow()}
        self.send(405, h, b"method not allowed\n")

    # --- the semantics -------------------------------------------------------

    def dispatch(self, method, path, target, f, body):
        st = self.store
        with st.lock:
            st.requests += 1
            count = st.requests
        if self.opts.bug == "crash-if-match" and method == "DELETE" and "if-match" in f:
            os._exit(3)
        if self.opts.bug == "hang-options" and method == "OPTIONS" and body:
            self.server.hung.set()
        if self.server.hung.is_set():
            time.sleep(3600)
        if self.legal("auth") and f.get("authorization") != CREDENTIALS:
            h = {} if self.opts.bug == "no-challenge" else \
                {"WWW-Authenticate": 'Basic realm="varied"'}
            return self.send(401, h, b"credentials, please\n")
        if self.opts.bug == "no-challenge" and count % 7 == 0:
            return self.send(401, {}, b"credentials, please\n")
        if self.legal("busy") and count % 5 == 0:
            if count % 10 == 0:
                return self.send(429, {"Retry-After": "1"}, b"slow down\n")
            return self.send(503, {"Retry-After": "1"}, b"busy\n")
        if method not in KNOWN:
            return self.send(501, {}, b"unknown method\n")
        if method in WRITES or method == "TRACE":
            if self.legal("read-only-501") and method != "TRACE":
                return self.send(501, {}, b"not implemented\n")
            if self.legal("read-only-405") and method != "TRACE":
                return self.refuse405()
            if self.legal("forbid-writes") and method != "TRACE":
                return self.send(403, {}, b"forbidden\n")
        if method == "TRACE":
            if self.legal("trace-405"):
                return self.refuse405()
            return self.send(200, {"Content-Type": "message/http"},
                             ("TRACE %s HTTP/1.1\r\n\r\n" % target).encode())
        if method == "OPTIONS":
            return self.send(204 if self.legal("options-204") else 200,
                             {"Allow": self.allow()})
        if "content-range" in f and method == "PUT":
            return self.send(400, {}, b"no partial PUT\n")  # §14.5: MUST
        self.path = path  # (what the stale-304 bug remembers tags by)
        with st.lock:
            getattr(self, "do_" + method.lower())(path, f, body)

    def missing(self, path):
        if self.legal("gone-410") and path in self.store.deleted:
            return self.send(410, {}, b"gone\n")
        if self.opts.bug == "get-405" and self.method in ("GET", "HEAD"):
            return self.send(405, {"Allow": self.allow()}, b"nothing here\n")
        return self.send(404, {}, b"not found\n")

    def preconditions(self, r, f, safe):
        """RFC 9110 §13.2.2; the status to answer instead, or None."""
        tag = self.store.tag_of(r) if r and not self.legal("no-validators") else None
        lm = r.mtime if r and not self.legal("no-validators") else None
        if "if-match" in f:
            tags = tags_of(f["if-match"])
            if tags is not None:
                ok = r is not None and (tags == ["*"] or (
                    tag is not None and not tag.startswith("W/") and tag in tags))
                if self.opts.bug == "weak-if-match" and r is not None and tag is not None:
                    ok = ok or opaque(tag) in [opaque(t) for t in tags]
                if not ok:
                    return 412
        elif "if-unmodified-since" in f and r is not None and lm is not None and \
                self.opts.bug != "ius-ignored":
            d = parse_date(f["if-unmodified-since"])
            if d is not None and lm > d:
                return 412
        if "if-none-match" in f:
            tags = tags_of(f["if-none-match"])
            if tags is not None:
                match = r is not None and (tags == ["*"] or (
                    tag is not None and opaque(tag) in [opaque(t) for t in tags]))
                if not match and self.opts.bug == "stale-304" and r is not None and safe:
                    old = {opaque(t) for t in self.store.history.get(self.path, ())}
                    match = any(opaque(t) in old for t in tags)
                if match and not safe and tags == ["*"] and self.opts.bug == "inm-star-put":
                    match = False
                if match:
                    return 304 if safe else 412
                if self.opts.bug != "ims-over-inm":
                    return None
        if safe and "if-modified-since" in f and r is not None and lm is not None and \
                ("if-none-match" not in f or self.opts.bug == "ims-over-inm"):
            d = parse_date(f["if-modified-since"])
            if d is not None and d <= time.time() and lm <= d:
                return 304
        return None

    def do_get(self, path, f, body, head=False):
        r = self.store.items.get(path)
        if r is None:
            if self.legal("slash-redirect") and not path.endswith("/") and any(
                    p.startswith(path + "/") for p in self.store.items):
                return self.send(301, {"Location": quote(path) + "/"}, b"see folder\n")
            return self.missing(path)
        status = self.preconditions(r, f, True)
        if status == 304:
            h = self.validators(r, with_lm=not self.legal("minimal-304"))
            if self.legal("304-length"):
                h["Content-Length"] = str(len(r.body))
                h["Content-Type"] = "application/octet-stream"
            return self.send(304, h)
        if status:
            return self.send(status, {}, b"precondition failed\n")
        h = self.describe(r)
        if head:
            n = len(r.body) + (1 if self.opts.bug == "head-length" else 0)
            if not self.legal("head-no-length"):
                h["Content-Length"] = str(n)
            return self.send(200, h, head=True)
        ranges = None
        if "range" in f and not self.legal("no-range"):
            ranges = parse_ranges(f["range"], len(r.body))
            if "if-range" in f and self.opts.bug != "if-range-ignored":
                v = f["if-range"]
                tag = self.store.tag_of(r) if not self.legal("no-validators") else None
                if v.startswith('"') or v.startswith("W/"):
                    if tag is None or tag.startswith("W/") or v != tag:
                        ranges = None
                else:
                    d = parse_date(v)
                    # A date matches only an exact Last-Modified (§13.1.5).
                    if d is None or self.legal("no-validators") or d != r.mtime:
                        ranges = None
        if ranges is None:
            return self.send(200, h, r.body)
        if not ranges and self.opts.bug == "unsatisfiable-206":
            return self.send(206, dict(h, **{"Content-Range": "bytes */%d" % len(r.body)}))
        if not ranges:
            return self.send(416, {"Content-Range": "bytes */%d" % len(r.body)},
                             b"unsatisfiable\n")
        size = len(r.body)
        if len(ranges) > 1 and self.legal("multipart"):
            boundary = "VARIEDORIGINBOUNDARY"
            out = b""
            for a, b in ranges:
                out += ("--%s\r\nContent-Type: application/octet-stream\r\n"
                        "Content-Range: bytes %d-%d/%d\r\n\r\n" % (boundary, a, b, size)
                        ).encode() + r.body[a:b + 1] + b"\r\n"
            out += ("--%s--\r\n" % boundary).encode()
            h.pop("Content-Type", None)
            h["Content-Type"] = "multipart/byteranges; boundary=" + boundary
            return self.send(206, h, out)
        # Several ranges as one part only where they overlap or nearly touch
        # (§14.2 "separated by a gap that is smaller than the overhead");
        # else the whole representation (MAY ignore).
        spans = sorted(ranges)
        if any(b0 + 80 < a1 for (_, b0), (a1, _) in zip(spans, spans[1:])):
            return self.send(200, h, r.body)
        a = min(x for x, _ in ranges)
        b = max(y for _, y in ranges)
        if self.opts.bug == "range-off" and b > a:
            b -= 1
            part = r.body[a:b + 1]
            h["Content-Range"] = "bytes %d-%d/%d" % (a, b + 1, size)
            return self.send(206, h, part)
        h["Content-Range"] = "bytes %d-%d/%d" % (a, b, size)
        return self.send(206, h, r.body[a:b + 1])

    def do_head(self, path, f, body):
        return self.do_get(path, f, body, head=True)

    def precondition_failed(self, r, f):
        """Answers a write whose preconditions fail (412); whether it did."""
        status = self.preconditions(r, f, False)
        if status:
            self.send(status, {}, b"precondition failed\n")
        return bool(status)

    def do_put(self, path, f, body):
        st = self.store
        r = st.items.get(path)
        if self.precondition_failed(r, f):
            return
        parent = path.rsplit("/", 1)[0]
        if self.legal("nested-409") and parent and parent not in st.items and not any(
                p.startswith(parent + "/") for p in st.items):
            return self.send(409, {}, b"no parent\n")
        st.puts += 1
        if self.opts.bug == "lost-put" and r is not None and st.puts % 3 == 0:
            return self.send(204, {})
        created = st.put(path, body)
        h = self.validators(st.items[path])
        if created:
            return self.send(201, dict(h, Location=quote(path)), b"created\n")
        return self.send(204, h)

    def do_post(self, path, f, body):
        st = self.store
        if self.precondition_failed(st.items.get(path), f):
            return
        if self.legal("post-creates"):
            created = st.put(path, body)
            if created:
                return self.send(201, {"Location": quote(path)}, b"created\n")
            return self.send(200, {"Content-Type": "text/plain"}, b"stored\n")
        # Processes the content and changes nothing: an echo.
        return self.send(200, {"Content-Type": "text/plain"}, b"got %d bytes\n" % len(body))

    def do_patch(self, path, f, body):
        return self.refuse405()  # PATCH is not in Allow

    def do_delete(self, path, f, body):
        st = self.store
        r = st.items.get(path)
        if r is None:
            return self.missing(path)
        if self.precondition_failed(r, f):
            return
        if self.opts.bug == "ghost-delete":
            return self.send(204, {})
        if self.legal("delete-202"):
            def later():
                time.sleep(0.05)
                with st.lock:
                    if st.items.get(path) is r:
                        st.delete(path)
            threading.Thread(target=later, daemon=True).start()
            return self.send(202, {}, b"will delete\n")
        st.delete(path)
        return self.send(204, {})


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--legal", default="", help="comma-separated choices, or all")
    ap.add_argument("--bug", default="", choices=[""] + BUGS)
    ap.add_argument("--files", help="a folder whose files are served (read-only site)")
    opts = ap.parse_args()
    names = [n for n in opts.legal.split(",") if n]
    if names == ["all"]:
        names = [n for n in LEGAL if n not in NOT_IN_ALL]
    for n in names:
        if n not in LEGAL:
            ap.error("unknown legal choice %r (known: %s)" % (n, ", ".join(LEGAL)))
    opts.legal = set(names)
    srv = Server(("127.0.0.1", opts.port), Handler)
    srv.opts, srv.store, srv.hung = opts, Store(opts), threading.Event()
    # A small site of its own: an index linking three files (issue 42's discovery).
    files = {"/small.txt": b"A small text file of the varied origin.\n",
             "/medium.txt": b"".join(b"line %03d of a text file\n" % i for i in range(200)),
             "/empty.txt": b""}
    if opts.files:
        for root, _, names_ in os.walk(opts.files):
            for n in names_:
                p = os.path.join(root, n)
                with open(p, "rb") as fh:
                    files["/" + os.path.relpath(p, opts.files)] = fh.read()
    files["/"] = ("<html><body>%s</body></html>" % "".join(
        '<a href="%s">%s</a>' % (p, p) for p in sorted(files))).encode()
    for p, b in files.items():
        srv.store.put(p, b)
    print("varied-origin on 127.0.0.1:%d legal=%s bug=%s" %
          (opts.port, ",".join(sorted(opts.legal)) or "-", opts.bug or "-"), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
