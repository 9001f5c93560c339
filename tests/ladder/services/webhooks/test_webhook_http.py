"""``ladder.services.webhooks.http``: one POST to a checked address against a real HTTP receiver on the
loopback. The connection goes to the pinned address while the request names the host; 2xx is delivered,
any other answer (a redirect, not followed) an error; the body read is bounded and escaped; a refused
connection, a silent receiver, one that drips its answer (one deadline for all of it), a TLS failure and
a path http.client cannot send are results, never raised."""

from __future__ import annotations

import socket

import pytest

from ladder.services.webhooks.http import (
    EXCERPT_BYTES,
    EXCERPT_CHARS,
    USER_AGENT,
    PostResult,
    escape_excerpt,
    post_pinned,
)
from ladder.services.webhooks.targets import Target
from tests.webhook_receiver import Dripper, Receiver


def pinned(port: int, *, host: str = "hook.example", scheme: str = "http", path: str = "/hook?x=1") -> Target:
    return Target(scheme=scheme, host=host, port=port, path=path, address="127.0.0.1")


def test_the_post_goes_to_the_pinned_address_and_names_the_host():
    with Receiver(statuses=[204], body=b"") as receiver:
        result = post_pinned(pinned(receiver.port), body=b'{"a":1}', headers={"X-Extra": "yes"}, timeout=5)
    assert result.delivered and result.status_code == 204 and result.error == ""
    [received] = receiver.received
    assert received.path == "/hook?x=1" and received.body == b'{"a":1}'
    assert received.headers["Host"] == f"hook.example:{receiver.port}"
    assert received.headers["Content-Type"] == "application/json"
    assert received.headers["User-Agent"] == USER_AGENT
    assert received.headers["X-Extra"] == "yes"


@pytest.mark.parametrize(("status", "error"), [
    (500, "answered 500"), (404, "answered 404"), (302, "answered 302: redirects are not followed"),
])
def test_an_answer_other_than_2xx_is_an_error_and_a_redirect_is_not_followed(status, error):
    with Receiver(statuses=[status]) as receiver:
        result = post_pinned(pinned(receiver.port), body=b"{}", headers={}, timeout=5)
    assert (result.status_code, result.error, result.delivered) == (status, error, False)
    assert len(receiver.received) == 1


def test_only_the_first_bytes_of_the_answer_are_read_and_kept_escaped():
    body = b"\x1b[31mred\r\n\\" + "é".encode() + b"x" * 1000
    with Receiver(body=body) as receiver:
        result = post_pinned(pinned(receiver.port), body=b"{}", headers={}, timeout=5)
    assert result.excerpt == escape_excerpt(body[:EXCERPT_BYTES])
    assert result.excerpt.startswith("\\x1b[31mred\\r\\n\\\\\\xc3\\xa9xxx")
    assert result.excerpt.isascii() and result.excerpt.isprintable()


def test_escaping_keeps_printable_ascii_and_escapes_every_other_byte_within_the_bound():
    assert escape_excerpt(b"ok: {\"fine\": 1}") == 'ok: {"fine": 1}'
    assert escape_excerpt(b"\x00\x07\t\xff") == "\\x00\\x07\\t\\xff"
    assert escape_excerpt(b"") == ""
    assert len(escape_excerpt(b"\x00" * EXCERPT_CHARS)) == EXCERPT_CHARS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_a_result_without_a_status():
    result = post_pinned(pinned(free_port()), body=b"{}", headers={}, timeout=2)
    assert result.status_code is None and not result.delivered
    assert result.error.startswith("ConnectionRefusedError")


def test_a_receiver_that_never_answers_is_a_timeout():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # accepts connections (the backlog) but never reads or answers
        result = post_pinned(pinned(silent.getsockname()[1]), body=b"{}", headers={}, timeout=0.3)
    assert result.status_code is None and result.error == "no answer within 0.3 s"
    assert 250 <= result.duration_ms < 5000


def test_https_to_a_receiver_that_speaks_plain_http_is_a_tls_failure():
    with Receiver() as receiver:
        result = post_pinned(pinned(receiver.port, scheme="https"), body=b"{}", headers={}, timeout=5)
    assert result.status_code is None and result.error.startswith("TLS failed")


def test_a_result_is_delivered_only_for_a_2xx():
    assert [PostResult(status_code=code, error="", duration_ms=1, excerpt="").delivered
            for code in (None, 199, 200, 299, 300)] == [False, False, True, True, False]


def test_a_receiver_that_drips_its_answer_a_byte_at_a_time_is_cut_at_the_deadline():
    """Each byte comes within the timeout of the read before it: only a deadline for the whole answer ends it."""
    with Dripper(every_s=1.5) as dripper:
        result = post_pinned(pinned(dripper.port), body=b"{}", headers={}, timeout=2)
    assert dripper.requests == 1
    assert result.status_code is None and result.error == "no answer within 2 s"
    assert 1900 <= result.duration_ms < 3500


def test_https_to_a_receiver_that_never_answers_its_handshake_ends_at_the_deadline():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        result = post_pinned(pinned(silent.getsockname()[1], scheme="https"), body=b"{}", headers={}, timeout=0.5)
    assert result.status_code is None and result.error == "no answer within 0.5 s"
    assert result.duration_ms < 3000


def test_a_path_http_client_cannot_send_is_a_result_not_an_exception():
    with Receiver() as receiver:
        result = post_pinned(pinned(receiver.port, path="/hé"), body=b"{}", headers={}, timeout=2)
    assert result.status_code is None and result.error.startswith("not sent: UnicodeEncodeError")
    assert receiver.received == []
