"""API tokens for scripts: made (from a username and password, or by a signed-in user), listed, revoked,
rotated, and checked on every request that sends one.

A key is 40 hex characters (160 random bits), shown once when it is made or rotated; the database keeps
its SHA-256 (``ApiToken.digest``) and its first characters (``prefix``), so a leaked table gives no key.
A token may expire (``expires_at``); an expired, revoked or rotated key is refused, with a message saying
which and how to get a new one.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.db import transaction
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import ApiToken

PREFIX_CHARS = 8
#: The longest lifetime a token may be given (days); a token may also never expire.
MAX_EXPIRY_DAYS = 3650


def key_digest(key: str) -> str:
    """The stored form of ``key``."""
    return hashlib.sha256(key.encode()).hexdigest()


def _new_key() -> str:
    return secrets.token_hex(20)


def _expiry(expires_in_days: int | None, *, now: datetime) -> datetime | None:
    if expires_in_days is None:
        return None
    if isinstance(expires_in_days, bool) or not isinstance(expires_in_days, int) or not (
            1 <= expires_in_days <= MAX_EXPIRY_DAYS):
        raise ServiceError(f"expires_in_days must be a whole number from 1 to {MAX_EXPIRY_DAYS}, or left out for a "
                           "token that never expires", field="expires_in_days")
    return now + timedelta(days=expires_in_days)


@transaction.atomic
def token_create(*, user, name: str = "", expires_in_days: int | None = None) -> tuple[ApiToken, str]:
    """A new token of ``user``: ``(token, key)``; the key is never readable again. ServiceError when the
    account already holds ``API_TOKENS_PER_USER`` tokens (naming how to revoke one), or for a bad expiry."""
    now = timezone.now()
    expires_at = _expiry(expires_in_days, now=now)
    name = (name or "").strip()
    if len(name) > 100:
        raise ServiceError("a token's name may be at most 100 characters", field="name")
    # The lock makes the count and the insert one step, so parallel requests cannot pass the cap together.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    limit = settings.API_TOKENS_PER_USER
    if ApiToken.objects.filter(user=user).count() >= limit:
        raise ServiceError(f"this account already has {limit} API tokens, the most it may hold: revoke one you "
                           "no longer use (DELETE /api/auth/tokens/<id>/, or the account page) first")
    key = _new_key()
    token = ApiToken.objects.create(user=user, digest=key_digest(key), prefix=key[:PREFIX_CHARS], name=name,
                                    expires_at=expires_at)
    return token, key


def token_for_credentials(*, username: str, password: str, request=None, name: str = "",
                          expires_in_days: int | None = None) -> tuple[ApiToken, str]:
    """A new API token for the account of ``username`` and ``password``: ``(token, key)``. ServiceError 400
    on a wrong username or password, without saying which of the two was wrong."""
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        raise ServiceError("wrong username or password: check both, or register with POST /api/auth/register/")
    return token_create(user=user, name=name, expires_in_days=expires_in_days)


class TokenRefused(Exception):
    """A key that authenticates no one; the message says why and what to do."""


def token_authenticate(*, key: str, now: datetime | None = None) -> ApiToken:
    """The live token of ``key``, its user loaded; TokenRefused for an unknown (wrong, revoked, rotated)
    or expired key, or an inactive account."""
    token = ApiToken.objects.select_related("user").filter(digest=key_digest(key)).first()
    if token is None:
        raise TokenRefused("Invalid token: it is wrong, or was revoked or rotated; get a new one with "
                           "POST /api/auth/token/")
    now = timezone.now() if now is None else now
    if token.expires_at is not None and token.expires_at <= now:
        raise TokenRefused(f"this token expired at {token.expires_at:%Y-%m-%d %H:%M} UTC; get a new one with "
                           "POST /api/auth/token/, or rotate it (POST /api/auth/tokens/<id>/rotate/)")
    if not token.user.is_active:
        raise TokenRefused("this token's account is disabled")
    return token


def tokens_of(*, user) -> list[ApiToken]:
    """The tokens of ``user``, newest first."""
    return list(ApiToken.objects.filter(user=user).order_by("-id"))


def _own(*, user, token_id: int) -> ApiToken:
    token = ApiToken.objects.select_for_update().filter(user=user, pk=token_id).first()
    if token is None:
        # The same answer for another account's token as for none: ids say nothing about other accounts.
        raise ServiceError(f"you have no API token {token_id}", status=404)
    return token


@transaction.atomic
def token_revoke(*, user, token_id: int) -> None:
    """Delete ``user``'s token ``token_id``: its key is refused from now on. ServiceError 404 if ``user``
    has no such token."""
    _own(user=user, token_id=token_id).delete()


@transaction.atomic
def token_rotate(*, user, token_id: int, expires_in_days: int | None = None) -> tuple[ApiToken, str]:
    """Give ``user``'s token ``token_id`` a new key (returned once: ``(token, key)``), refusing the old one
    from now on; the token keeps its id and name. Its expiry is ``expires_in_days`` from now when given,
    otherwise the token keeps the lifetime it had (one that never expired still never does)."""
    token = _own(user=user, token_id=token_id)
    now = timezone.now()
    if expires_in_days is not None:
        token.expires_at = _expiry(expires_in_days, now=now)
    elif token.expires_at is not None:
        token.expires_at = now + max(token.expires_at - token.created_at, timedelta(0))
    key = _new_key()
    token.digest, token.prefix, token.created_at = key_digest(key), key[:PREFIX_CHARS], now
    token.save(update_fields=["digest", "prefix", "created_at", "expires_at"])
    return token, key
