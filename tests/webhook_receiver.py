"""Real HTTP receivers for webhook tests, on the loopback: :class:`Receiver`, a threaded server that records
every POST (its headers and raw body) and answers with the next status of a script (the last one
repeats), and :class:`Dripper`, which answers one byte at a time and never finishes."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclasses.dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def signed_by(self, secret: str) -> bool:
        """Whether X-Ladder-Signature is the HMAC-SHA256 of the raw body under ``secret``, as a receiver
        checks it (docs/webhooks.md)."""
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers.get("X-Ladder-Signature", ""))


class Receiver:
    """``with Receiver(statuses=[500, 200]) as receiver:`` ... ``receiver.url``, ``receiver.received``."""

    def __init__(self, *, statuses=(200,), body: bytes = b"ok", host: str = "127.0.0.1", on_post=None,
                 tls=None) -> None:
        """``on_post(received)``, when given, runs in the server's thread before each answer."""
        self.statuses = list(statuses)
        self.body = body
        self.received: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the standard library's name)
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    receiver.received.append(Received(self.path, dict(self.headers.items()), data))
                    status = receiver.statuses.pop(0) if len(receiver.statuses) > 1 else receiver.statuses[0]
                if on_post is not None:
                    on_post(receiver.received[-1])
                self.send_response(status)
                self.send_header("Content-Length", str(len(receiver.body)))
                if 300 <= status < 400:
                    self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.end_headers()
                self.wfile.write(receiver.body)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer((host, 0), Handler)
        if tls is not None:
            # https: the handshake runs as each connection is accepted, under ``tls`` (an SSLContext).
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class Dripper:
    """``with Dripper(every_s=1.5) as dripper:`` a receiver on the loopback that reads each request, then
    answers one byte every ``every_s`` seconds of a status line and a header that never end, for at most
    ``for_s`` seconds (then closes): the answer that outlives any timeout per read. ``dripper.requests``
    counts the requests it read."""

    def __init__(self, *, every_s: float = 1.5, for_s: float = 15.0) -> None:
        self.every_s = every_s
        self.for_s = for_s
        self.requests = 0
        self._stop = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return self._server.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(connection,), daemon=True).start()

    def _drip(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(2)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.requests += 1
            answer = b"HTTP/1.1 200 OK\r\nX-Drip: " + b"a" * 100_000
            ends = time.monotonic() + self.for_s
            for byte in answer:
                if self._stop.wait(self.every_s) or time.monotonic() > ends:
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return

    def __enter__(self) -> Dripper:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._server.close()
