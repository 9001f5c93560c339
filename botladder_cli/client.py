"""HTTP to the ladder's REST API, with every failure turned into one :class:`ApiError` whose message a
person can act on.

The server answers every error as ``{"detail", "code", "fields"}`` (docs/api-walkthrough.md); the message
here is its ``detail``, with the wait of a 429 (``Retry-After``). A server that cannot be reached, a
time-out, or an answer that is not the API's (a proxy's HTML page) are ApiErrors too, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator

import requests

#: Seconds to wait for the server to connect and to send each part of an answer.
TIMEOUT_S = (10, 60)


class ApiError(Exception):
    """A request that did not succeed. ``status`` is the HTTP status (None when no answer came), ``body``
    the server's error body (``{}`` when none). ``message`` ends with the bot's ``log_tail`` when the
    server sent one; ``lines`` are the message's lines for a person, the log's own lines after it."""

    def __init__(self, message: str, *, status: int | None = None, body: dict | None = None,
                 retry_after_s: int | None = None, log_tail: str = "") -> None:
        self.lines = [message, *log_tail.rstrip("\n").split("\n")] if log_tail else [message]
        message = f"{message}\n{log_tail}" if log_tail else message
        super().__init__(message)
        self.message = message
        self.status = status
        self.body = body or {}
        self.retry_after_s = retry_after_s

    def to_json(self) -> dict:
        return {"error": self.message, "status": self.status, "code": self.body.get("code"),
                "fields": self.body.get("fields", {}), "retry_after_s": self.retry_after_s}


def _error_of(response: requests.Response) -> ApiError:
    try:
        body = response.json()
    except ValueError:
        body = None
    retry = response.headers.get("Retry-After")
    retry_after_s = int(retry) if retry and retry.isdigit() else None
    log_tail = ""
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        message = body["detail"]
        if isinstance(body.get("log_tail"), str):
            log_tail = body["log_tail"]
    else:
        body = {}
        message = f"the server answered {response.status_code} {response.reason or ''}".rstrip()
    if response.status_code == 429 and retry_after_s is not None and "try again" not in message:
        message += f"; try again in {retry_after_s} seconds"
    return ApiError(message, status=response.status_code, body=body, retry_after_s=retry_after_s, log_tail=log_tail)


class Client:
    """One server, one optional token. Methods return the decoded JSON body of a success."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "botladder-cli"
        if token:
            self.session.headers["Authorization"] = f"Token {token}"

    def _send(self, method: str, path: str, *, stream: bool = False, **kwargs) -> requests.Response:
        address = f"{self.url}{path}"
        try:
            response = self.session.request(method, address, timeout=TIMEOUT_S, stream=stream, **kwargs)
        except requests.Timeout as error:
            raise ApiError(f"{self.url} did not answer in time ({type(error).__name__}); try again later") from error
        except requests.RequestException as error:
            raise ApiError(f"cannot reach {self.url}: {_reason(error)}; check BOTLADDER_URL or "
                           "`botladder login --url`") from error
        if response.status_code >= 400:
            raise _error_of(response)
        return response

    def _json(self, response: requests.Response):
        try:
            return response.json()
        except ValueError as error:
            raise ApiError(f"the server at {self.url} answered something that is not the ladder's API "
                           f"(HTTP {response.status_code}, {response.headers.get('Content-Type', 'no type')})",
                           status=response.status_code) from error

    def get(self, path: str, **params):
        return self._json(self._send("GET", path, params={k: v for k, v in params.items() if v is not None}))

    def post(self, path: str, *, json: dict | None = None, data: dict | None = None, files: dict | None = None):
        return self._json(self._send("POST", path, json=json, data=data, files=files))

    def stream(self, path: str, **params) -> Streamed:
        """A streamed answer, once its status and headers came (an error status is an ApiError here)."""
        response = self._send("GET", path, stream=True, params={k: v for k, v in params.items() if v is not None})
        return Streamed(self.url, response)


class Streamed:
    """The headers of a streamed answer, and its body chunk by chunk (:meth:`chunks`); a connection
    broken midway is an ApiError."""

    def __init__(self, url: str, response: requests.Response) -> None:
        self.url = url
        self.headers = response.headers
        self._response = response

    def chunks(self) -> Iterator[bytes]:
        try:
            yield from self._response.iter_content(chunk_size=65536)
        except requests.RequestException as error:
            raise ApiError(f"the download from {self.url} broke off: {_reason(error)}") from error
        finally:
            self._response.close()


def _reason(error: Exception) -> str:
    """The innermost reason of a requests error ('Connection refused'), not its nested wrappers."""
    inner = error
    while inner.__context__ is not None and inner.__context__ is not inner:
        inner = inner.__context__
    text = str(getattr(inner, "strerror", None) or inner)
    return text if len(text) < 300 else text[:300] + "..."
