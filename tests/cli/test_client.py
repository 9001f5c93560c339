"""``botladder_cli.client`` against a real HTTP server on the loopback that answers from a script: a
success's JSON (the token sent, empty parameters left out), every failure one ApiError a person can act
on (the API's ``detail`` and log tail, a 429's wait, another server's page, an answer that is not JSON,
no server, a time-out) and streamed downloads chunk by chunk."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from botladder_cli import client as client_module
from botladder_cli.client import ApiError, Client


class Server:
    """Answers each request with the next ``(status, headers, body)`` of ``script`` (the last repeats) and
    records ``(method, path, headers, body)``."""

    def __init__(self, *script: tuple[int, dict, bytes]) -> None:
        self.script = list(script)
        self.requests: list[tuple[str, str, dict, bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.requests.append((self.command, self.path, dict(self.headers.items()), body))
                status, headers, data = server.script.pop(0) if len(server.script) > 1 else server.script[0]
                self.send_response(status)
                for name, value in {"Content-Length": str(len(data)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = answer  # noqa: N815 (the standard library's names)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    def __enter__(self) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def json_answer(status: int, body, **headers) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()


def error_of(server_answer, call=lambda c: c.get("/api/x/")) -> ApiError:
    with Server(server_answer) as server, pytest.raises(ApiError) as caught:
        call(Client(server.url))
    return caught.value


def test_a_success_is_its_json_with_the_token_sent_and_empty_parameters_left_out():
    with Server(json_answer(200, {"ok": [1, 2]})) as server:
        assert Client(server.url, token="t0k").get("/api/bots/", game="kingdomino", page=None) == {"ok": [1, 2]}
        assert Client(server.url).post("/api/login/", json={"a": 1}) == {"ok": [1, 2]}
    (method, path, headers, _), (post, _, anonymous, body) = server.requests
    assert (method, path) == ("GET", "/api/bots/?game=kingdomino")
    assert headers["Authorization"] == "Token t0k" and headers["User-Agent"] == "botladder-cli"
    assert post == "POST" and "Authorization" not in anonymous and json.loads(body) == {"a": 1}


def test_an_api_error_is_its_detail_with_the_status_code_and_fields():
    body = {"detail": "a bot name is 1 to 64 letters", "code": "invalid", "fields": {"name": ["bad"]}}
    error = error_of(json_answer(400, body))
    assert (error.message, error.status, error.body) == ("a bot name is 1 to 64 letters", 400, body)
    assert error.to_json() == {"error": "a bot name is 1 to 64 letters", "status": 400, "code": "invalid",
                               "fields": {"name": ["bad"]}, "retry_after_s": None}


def test_a_failed_checks_log_tail_follows_its_detail():
    error = error_of(json_answer(400, {"detail": "the smoke match failed", "log_tail": "Traceback: boom"}))
    assert error.message == "the smoke match failed\nTraceback: boom"


def test_a_throttled_request_says_how_long_to_wait_once():
    error = error_of(json_answer(429, {"detail": "too many uploads"}, **{"Retry-After": "42"}))
    assert (error.message, error.retry_after_s) == ("too many uploads; try again in 42 seconds", 42)
    already = error_of(json_answer(429, {"detail": "slow down; try again in 5 seconds"}, **{"Retry-After": "5"}))
    assert already.message == "slow down; try again in 5 seconds"


def test_another_servers_error_page_is_its_status_and_reason():
    error = error_of((502, {"Content-Type": "text/html"}, b"<html>Bad Gateway</html>"))
    assert (error.message, error.status, error.body) == ("the server answered 502 Bad Gateway", 502, {})


def test_a_success_that_is_not_json_is_not_the_ladders_api():
    error = error_of((200, {"Content-Type": "text/html"}, b"<html>login page</html>"))
    assert "is not the ladder's API (HTTP 200, text/html)" in error.message and error.status == 200


def test_no_server_is_one_line_with_the_innermost_reason():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ApiError) as caught:
        Client(f"http://127.0.0.1:{port}").get("/api/x/")
    assert caught.value.status is None
    assert caught.value.message.startswith(f"cannot reach http://127.0.0.1:{port}: ")
    assert "Connection refused" in caught.value.message and "check BOTLADDER_URL" in caught.value.message
    assert "\n" not in caught.value.message


def test_a_server_that_never_answers_is_a_time_out(monkeypatch):
    monkeypatch.setattr(client_module, "TIMEOUT_S", (1, 0.3))
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        with pytest.raises(ApiError) as caught:
            Client(f"http://127.0.0.1:{silent.getsockname()[1]}").get("/api/x/")
    assert "did not answer in time" in caught.value.message


def test_a_stream_gives_its_headers_and_its_body_in_chunks_and_an_error_status_at_once():
    data = b"line\n" * 50_000
    with Server((200, {"Content-Type": "application/x-ndjson", "X-Next": "7"}, data)) as server:
        streamed = Client(server.url).stream("/api/export/", after=3, until=None)
        assert streamed.headers["X-Next"] == "7"
        chunks = list(streamed.chunks())
    assert b"".join(chunks) == data and len(chunks) > 1
    assert server.requests[0][1] == "/api/export/?after=3"
    error = error_of(json_answer(404, {"detail": "no such export"}), call=lambda c: c.stream("/api/export/"))
    assert (error.message, error.status) == ("no such export", 404)
