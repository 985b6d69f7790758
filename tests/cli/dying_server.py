#!/usr/bin/env python3
"""A small HTTP/1.1 server that dies or hangs on one planted request: what
cli_test.sh fuzzes to check that a death is a finding (issue 42).

    dying_server.py DIR crash|hang|serve [PORT]

Serves 127.0.0.1:PORT (0 or absent: any free port), writing the port to
DIR/port and its pid to DIR/pid. Any DELETE kills it (crash: os._exit(3),
the listener gone with it) or hangs it (hang: from then on no request on any
connection is answered; connections are still accepted), or is served
(serve: the same server without its defect, a baseline's build). Everything else
gets a plain in-memory store (PUT, GET, HEAD; other methods 405): its
answers are no reference server's, so the tests judge its violations as
known and look at its death only.
"""
import http.server
import os
import sys
import threading
import time

store = {}
hung = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", head=False):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def planted(self):
        if MODE == "crash":
            os._exit(3)
        if MODE == "serve":  # (a build without the defect)
            store.pop(self.path, None)
            self.answer(204)
            return
        hung.set()

    def handle_one_request(self):
        if hung.is_set():
            while True:
                time.sleep(60)
        super().handle_one_request()

    def do_DELETE(self):
        self.planted()
        while MODE != "serve":
            time.sleep(60)

    def do_PUT(self):
        created = self.path not in store
        store[self.path] = self.body()
        self.answer(201 if created else 204)

    def do_GET(self):
        if self.path in store:
            self.answer(200, store[self.path])
        else:
            self.answer(404)

    def do_HEAD(self):
        if self.path in store:
            self.send_response(200)
            self.send_header("Content-Length", str(len(store[self.path])))
            self.end_headers()
        else:
            self.answer(404, head=True)

    def other(self):
        self.body()
        self.answer(405)

    do_POST = do_OPTIONS = do_PATCH = do_PROPFIND = do_PROPPATCH = other
    do_MKCOL = do_COPY = do_MOVE = do_LOCK = do_UNLOCK = other


if __name__ == "__main__":
    DIR, MODE = sys.argv[1], sys.argv[2]
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    with open(os.path.join(DIR, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
    with open(os.path.join(DIR, "pid"), "w") as f:
        f.write(str(os.getpid()))
    server.serve_forever()
