"""Accounts: the one username rule, and registration with an API token."""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from ladder.core.errors import ServiceError
from ladder.services.accounts.tokens import token_create

USERNAME_MAX_CHARS = 150
USERNAME_RULE = "letters, digits and @ . + - _ only (no spaces, control characters or markup)"


def username_problem(username: str) -> str | None:
    """Why ``username`` cannot be an account's name, or None if it can: the one rule of every way in (the
    API, the site, ``user_register``). Django's UnicodeUsernameValidator already refuses these; the
    control and format characters (ESC, BEL, a right-to-left override) are named so the message says
    which one was sent."""
    if not username:
        return "choose a username"
    if len(username) > USERNAME_MAX_CHARS:
        return f"a username may be at most {USERNAME_MAX_CHARS} characters"
    hidden = sorted({char for char in username if unicodedata.category(char).startswith("C")})
    if hidden:
        names = ", ".join(f"U+{ord(char):04X}" for char in hidden)
        return f"a username may hold {USERNAME_RULE}; this one holds the invisible characters {names}"
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        refused = sorted({char for char in username if not (char.isalnum() or char in "@.+-_")})
        shown = ", ".join("a space" if char == " " else repr(char) for char in refused) or repr(username)
        return f"a username may hold {USERNAME_RULE}; not {shown}"
    return None


def validate_username(username: str) -> None:
    """:func:`username_problem` as a validator for forms and serializers (Django's ValidationError)."""
    problem = username_problem(username)
    if problem:
        raise ValidationError(problem, code="invalid_username")


def user_register(*, username: str, password: str):
    """Create a user and its API token; returns ``(user, token_key)``. ServiceError if the name breaks the
    username rule (:func:`username_problem`) or is taken, or the password is too weak."""
    User = get_user_model()
    username = username.strip()
    problem = username_problem(username)
    if problem:
        raise ServiceError(problem, field="username")
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
            _token, key = token_create(user=user, name="made at registration")
    except IntegrityError as exc:
        raise ServiceError(f"the username {username!r} is taken", field="username") from exc
    return user, key
