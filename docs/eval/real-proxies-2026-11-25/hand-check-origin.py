# A keep-alive origin that logs every request head it receives (hand checks).
import socket, sys
REPLY = {"chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", "hop": b"HTTP/1.1 200 OK\r\nConnection: x-hop\r\nX-Hop: 1\r\nContent-Length: 2\r\n\r\nok"}.get(sys.argv[2] if sys.argv[2:] else "", b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(5)
while True:
    c, _ = s.accept()
    buf = b""
    while True:
        d = c.recv(65536)
        if not d: break
        buf += d
        while b"\r\n\r\n" in buf:
            head, buf = buf.split(b"\r\n\r\n", 1)
            print("ORIGIN GOT:", head.decode(errors="replace").replace("\r\n", " | "), flush=True)
            c.sendall(REPLY)
    c.close()
