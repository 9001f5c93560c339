"""One webhook POST to a checked address: no redirect followed, a short timeout, a bounded read.

:func:`post_pinned` connects to the address :func:`ladder.services.webhook_targets.target_resolve`
checked, never to a fresh lookup of the host, while the request still names the host (the ``Host``
header; for https the TLS server name and the certificate check). It reads at most
:data:`EXCERPT_BYTES` of the answer's body and keeps them escaped: a receiver's answer is shown to the
webhook's owner, never interpreted.
"""

from __future__ import annotations

import dataclasses
import http.client
import socket
import ssl
import time

from ladder.services.webhook_targets import Target

#: Bytes of the answer's body read and kept (the rest is never read).
EXCERPT_BYTES = 256
#: Characters of the escaped excerpt kept.
EXCERPT_CHARS = 600
USER_AGENT = "botladder-webhooks/1"


@dataclasses.dataclass(frozen=True)
class PostResult:
    """What one POST got: ``status_code`` (None when no answer came), ``error`` ('' on a 2xx), the time it
    took and the answer's body excerpt, escaped."""

    status_code: int | None
    error: str
    duration_ms: int
    excerpt: str

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to ``address`` that names ``host``."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to ``address`` whose TLS names and verifies ``host``."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def escape_excerpt(data: bytes) -> str:
    """``data`` as printable ASCII (at most :data:`EXCERPT_CHARS` characters): control characters,
    backslashes and every byte not ASCII as backslash escapes, so that no answer can slip control or
    terminal sequences, or bytes that are not text, into what its owner reads."""
    # Latin-1 maps each byte to one character, which unicode_escape writes as itself (printable ASCII) or
    # as \xNN, \n, \\: byte for byte, whatever the encoding the receiver meant.
    text = data.decode("latin-1").encode("unicode_escape").decode("ascii")
    return text[:EXCERPT_CHARS]


def post_pinned(target: Target, *, body: bytes, headers: dict[str, str], timeout: float) -> PostResult:
    """POST ``body`` to ``target`` once; never raises for anything the network or the receiver does."""
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target.host, target.port, address=target.address, timeout=timeout)
    started = time.monotonic()
    status_code, error, excerpt = None, "", ""
    try:
        connection.request("POST", target.path, body=body, headers={
            "Content-Type": "application/json", "User-Agent": USER_AGENT, **headers})
        response = connection.getresponse()
        status_code = response.status
        excerpt = escape_excerpt(response.read(EXCERPT_BYTES))
        if 300 <= status_code < 400:
            error = f"answered {status_code}: redirects are not followed"
        elif not 200 <= status_code < 300:
            error = f"answered {status_code}"
    except TimeoutError:
        error = f"no answer within {timeout:g} s"
    except ssl.SSLError as exc:
        error = f"TLS failed: {exc.reason or exc}"
    except (OSError, http.client.HTTPException) as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        connection.close()
    duration_ms = int((time.monotonic() - started) * 1000)
    return PostResult(status_code=status_code, error=error[:300], duration_ms=duration_ms, excerpt=excerpt)
