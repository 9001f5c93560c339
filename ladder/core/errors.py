"""The one exception services raise for a request a user can fix; the API answers it with its ``status``
(400 unless the service says otherwise)."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the service refuses. ``message`` says what to fix; ``field`` names the input at fault."""

    def __init__(self, message: str, *, field: str | None = None, detail: str = "", status: int = 400) -> None:
        super().__init__(message)
        # 400 for the user's input; 403 for what only staff may do; 429 past a quota (QuotaExceeded);
        # 503 when our side (the sandbox) cannot serve the request right now.
        self.status = status
        self.message = message
        self.field = field
        # Extra text for the user, e.g. the tail of a bot's log from a failed smoke match.
        self.detail = detail
