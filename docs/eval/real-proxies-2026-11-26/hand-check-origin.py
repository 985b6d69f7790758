# A keep-alive origin that logs every request head it receives (hand checks); threaded, survives resets.
import socketserver, sys
REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
class H(socketserver.BaseRequestHandler):
    def handle(self):
        buf = b""
        try:
            while True:
                d = self.request.recv(65536)
                if not d: break
                buf += d
                while b"\r\n\r\n" in buf:
                    head, buf = buf.split(b"\r\n\r\n", 1)
                    print("ORIGIN GOT:", head.decode(errors="replace").replace("\r\n", " | "), flush=True)
                    self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" if head.startswith(b"HEAD") else REPLY)
        except OSError:
            pass
socketserver.ThreadingTCPServer.allow_reuse_address = True
socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
