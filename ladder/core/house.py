"""The house account: the server's own user, which owns the example bots and the bench's bots.

It has no usable password, so nobody can log in as it; a user who registered the same name before the
house took it (its password usable) is an ordinary user. Its bots answer to no owner in rated play
(``rated_play.HOUSE_BOTS``), and its writes are the server's own, never counted against a rate (``quotas``).
"""

from __future__ import annotations

EXAMPLES_OWNER = "examples"


def is_house(user) -> bool:
    """Whether ``user`` is the house account (named so, and with no usable password)."""
    return getattr(user, "username", None) == EXAMPLES_OWNER and not user.has_usable_password()
