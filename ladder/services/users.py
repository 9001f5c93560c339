"""Accounts: registration with an API token."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from ladder.services.errors import ServiceError


def user_register(*, username: str, password: str):
    """Create a user and its API token; returns ``(user, token_key)``. ServiceError if the name is taken
    or the password too weak."""
    User = get_user_model()
    username = username.strip()
    if not username:
        raise ServiceError("choose a username", field="username")
    user = User(username=username)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ServiceError(" ".join(exc.messages), field="password") from exc
    if User.objects.filter(username__iexact=username).exists():
        raise ServiceError(f"the username {username!r} is taken", field="username")
    try:
        with transaction.atomic():
            user.set_password(password)
            user.save()
            token = Token.objects.create(user=user)
    except IntegrityError as exc:
        raise ServiceError(f"the username {username!r} is taken", field="username") from exc
    return user, token.key
