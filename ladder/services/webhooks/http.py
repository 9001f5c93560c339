"""One webhook POST to a checked address: no redirect followed, one deadline for all of it, a bounded read.

:func:`post_pinned` connects to the address :func:`ladder.services.webhooks.targets.target_resolve`
checked, never to a fresh lookup of the host, while the request still names the host (the ``Host``
header; for https the TLS server name and the certificate check). It reads at most
:data:`EXCERPT_BYTES` of the answer's body and keeps them escaped: a receiver's answer is shown to the
webhook's owner, never interpreted.

The connection, the TLS handshake, the request and the answer share one deadline: the socket's timeout
is set to what is left of it before each operation (:class:`_DeadlineSocket`), so a receiver that
answers one byte at a time cannot stretch an attempt past it, as a timeout per read would let it.
"""

from __future__ import annotations

import dataclasses
import http.client
import logging
import socket
import ssl
import time

from ladder.services.webhooks.targets import Target

#: Bytes of the answer's body read and kept (the rest is never read).
EXCERPT_BYTES = 256
#: Characters of the escaped excerpt kept.
EXCERPT_CHARS = 600
USER_AGENT = "botladder-webhooks/1"

logger = logging.getLogger(__name__)


class DeadlinePassed(TimeoutError):
    """The attempt's deadline passed before an operation on its connection could start or end."""


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


class _Deadline:
    """Sets the socket's timeout to what is left of ``deadline`` (a ``time.monotonic()`` time) before each
    operation that may wait; DeadlinePassed once nothing is left."""

    deadline: float

    def _arm(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed("the attempt's deadline passed")
        self.settimeout(left)

    def connect(self, address):
        self._arm()
        return super().connect(address)

    def recv_into(self, *args, **kwargs):
        self._arm()
        return super().recv_into(*args, **kwargs)

    def recv(self, *args, **kwargs):
        self._arm()
        return super().recv(*args, **kwargs)

    def send(self, *args, **kwargs):
        self._arm()
        return super().send(*args, **kwargs)

    def sendall(self, *args, **kwargs):
        self._arm()
        return super().sendall(*args, **kwargs)


class _DeadlineSocket(_Deadline, socket.socket):
    """A TCP socket whose every wait ends by its deadline."""


class _DeadlineSSLSocket(_Deadline, ssl.SSLSocket):
    """A TLS socket whose handshake, reads and writes end by its deadline."""

    def do_handshake(self, *args, **kwargs):
        self._arm()
        return super().do_handshake(*args, **kwargs)


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to ``address`` that names ``host``, all of it done by ``deadline``."""

    def __init__(self, host: str, port: int, *, address: str, deadline: float) -> None:
        super().__init__(host, port)
        self._address = address
        self._deadline = deadline

    def _tcp(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self._address else socket.AF_INET
        sock = _DeadlineSocket(family, socket.SOCK_STREAM)
        sock.deadline = self._deadline
        try:
            sock.connect((self._address, self.port))
        except BaseException:
            sock.close()
            raise
        return sock

    def connect(self) -> None:
        self.sock = self._tcp()


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """An HTTPS connection to ``address`` whose TLS names and verifies ``host``."""

    def connect(self) -> None:
        context = ssl.create_default_context()
        context.sslsocket_class = _DeadlineSSLSocket
        sock = self._tcp()
        try:
            # The handshake waits too: it runs below, once the socket knows its deadline.
            tls = context.wrap_socket(sock, server_hostname=self.host, do_handshake_on_connect=False)
        except BaseException:
            sock.close()
            raise
        tls.deadline = self._deadline
        self.sock = tls
        tls.do_handshake()


def escape_excerpt(data: bytes) -> str:
    """``data`` as printable ASCII (at most :data:`EXCERPT_CHARS` characters): control characters,
    backslashes and every byte not ASCII as backslash escapes, so that no answer can slip control or
    terminal sequences, or bytes that are not text, into what its owner reads."""
    # Latin-1 maps each byte to one character, which unicode_escape writes as itself (printable ASCII) or
    # as \xNN, \n, \\: byte for byte, whatever the encoding the receiver meant.
    text = data.decode("latin-1").encode("unicode_escape").decode("ascii")
    return text[:EXCERPT_CHARS]


def post_pinned(target: Target, *, body: bytes, headers: dict[str, str], timeout: float,
                deadline: float | None = None) -> PostResult:
    """POST ``body`` to ``target`` once, connection, request and answer done within ``timeout`` seconds in
    all (by ``deadline``, a ``time.monotonic()`` time, when given: the attempt's, begun before its lookup);
    never raises for anything the network, the receiver or the URL does."""
    started = time.monotonic()
    deadline = started + timeout if deadline is None else deadline
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target.host, target.port, address=target.address, deadline=deadline)
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
        error = (f"no answer within {timeout:g} s" if status_code is None
                 else f"the answer did not end within {timeout:g} s")
    except ssl.SSLError as exc:
        error = f"TLS failed: {exc.reason or exc}"
    except (OSError, http.client.HTTPException) as exc:
        error = f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        # Whatever else the standard library raises (a header it cannot encode, say) is this attempt's
        # failure, recorded like the others, never a task that dies without a record.
        logger.warning("webhook POST to %s failed unexpectedly", target.host, exc_info=True)
        error = f"not sent: {type(exc).__name__}: {exc}"
    finally:
        connection.close()
    duration_ms = int((time.monotonic() - started) * 1000)
    return PostResult(status_code=status_code, error=error[:300], duration_ms=duration_ms, excerpt=excerpt)
