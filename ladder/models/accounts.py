"""API tokens of the accounts (the accounts themselves are Django's users)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """An API token of an account, for scripts (``Authorization: Token <key>``). Only the SHA-256 of the
    key is stored: the key itself is shown once, when the token is made (``ladder.services.accounts.tokens``).
    An account may hold several (one per script or machine), each revocable alone; ``expires_at`` null: it
    never expires. Revoking or rotating deletes or replaces the digest, so the old key is refused at once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    # Keys are 160 random bits: a fast digest is enough, there is nothing to brute-force.
    digest = models.CharField(max_length=64, unique=True)
    # The key's first characters, to tell tokens apart in a list without showing the key.
    prefix = models.CharField(max_length=8)
    name = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… of {self.user_id}"
