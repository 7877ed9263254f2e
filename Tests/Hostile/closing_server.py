#!/usr/bin/env python3
"""A hostile WebSocket peer for reel's tests: on 127.0.0.1, it completes every upgrade (offering
back the first subprotocol asked for) and closes after the client's first message with the code and reason given on the
command line — a fake relay or server whose close reason carries terminal escapes. Prints its
port on the first line; serves at most 20 connections and ends after 120 s."""
import base64, hashlib, socket, sys, threading, time

code = int(sys.argv[1])
reason = sys.argv[2].encode("utf-8", "surrogateescape").decode("unicode_escape").encode("utf-8")
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
listener.settimeout(120)
print(listener.getsockname()[1], flush=True)


def serve(connection):
    connection.settimeout(20)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(4096)
        if not chunk:
            return
        head += chunk
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            headers[name.strip().lower()] = value.strip()
    key = headers.get(b"sec-websocket-key", b"")
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    protocol = headers.get(b"sec-websocket-protocol", b"").split(b",")[0].strip()
    response = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    response += b"Sec-WebSocket-Accept: " + accept + b"\r\n"
    if protocol:
        response += b"Sec-WebSocket-Protocol: " + protocol + b"\r\n"
    connection.sendall(response + b"\r\n")
    # The client's first message (a request, a relay handshake), then the close: a refusal.
    connection.recv(4096)
    payload = code.to_bytes(2, "big") + reason[:123]
    connection.sendall(bytes([0x88, len(payload)]) + payload)
    try:
        connection.recv(4096)
    except OSError:
        pass
    connection.close()


start = time.time()
for _ in range(20):
    try:
        connection, _ = listener.accept()
    except OSError:
        break
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
    if time.time() - start > 120:
        break
time.sleep(1)
