"""A process marked as one that must never run bots (the web tier) cannot start the sandbox, even unsafe."""

import pytest

from bots.sandbox import FORBIDDEN_ENV, SandboxUnavailable, get_sandbox


@pytest.mark.parametrize("allow_unsafe", [False, True])
def test_the_sandbox_refuses_to_start_where_bots_are_forbidden(monkeypatch, allow_unsafe):
    monkeypatch.setenv(FORBIDDEN_ENV, "1")
    with pytest.raises(SandboxUnavailable, match=f"this process may not run bots: {FORBIDDEN_ENV} is set"):
        get_sandbox(allow_unsafe=allow_unsafe)
