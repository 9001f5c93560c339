"""API tokens for scripts: exchanging a username and password for the account's token."""

from __future__ import annotations

from django.contrib.auth import authenticate
from rest_framework.authtoken.models import Token

from ladder.services.errors import ServiceError


def token_for_credentials(*, username: str, password: str, request=None) -> str:
    """The account's API token (created on first use). ServiceError 400 on a wrong username or
    password, without saying which of the two was wrong."""
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        raise ServiceError("wrong username or password: check both, or register with POST /api/auth/register/")
    token, _ = Token.objects.get_or_create(user=user)
    return token.key
