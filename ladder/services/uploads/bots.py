"""Uploading bots and new versions: the checks that run no code, storage of the code bytes as a pending
version, the bot's rating row. Workers accept or reject each version
(``ladder.services.uploads.validation``)."""

from __future__ import annotations

import hashlib
import re

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max

from ladder.core.errors import ServiceError
from ladder.core.games import game_get
from ladder.core.quotas import write_rate_check
from ladder.messaging.enqueue import versions_validate_on_commit
from ladder.models import Bot, BotVersion, Rating
from ladder.services.webhooks.events import bot_deactivated

BOT_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def bot_code_check(*, data: bytes, filename: str) -> str:
    """The checks of an upload that run none of its code (size, format, archive safety, names, text);
    returns its kind, ``"py"`` or ``"zip"``, or raises ServiceError with what to fix.

    Compiling and the smoke match run on a worker afterwards (:func:`bot_version_validate` in
    ``ladder.services.uploads.validation``): the web tier never compiles or runs a bot.
    """
    from bots.upload_checks import UploadRejected, check_static

    if len(data) > settings.BOTS_MAX_UPLOAD_BYTES:
        raise ServiceError(
            f"the upload is {len(data)} bytes; the limit is {settings.BOTS_MAX_UPLOAD_BYTES}", field="code"
        )
    try:
        return check_static(data, filename)
    except UploadRejected as exc:
        raise ServiceError(exc.message, field="code") from exc


def _version_add(*, bot: Bot, data: bytes, kind: str) -> BotVersion:
    """A new pending version of ``bot``; its check is sent to the workers once the transaction commits."""
    number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = BotVersion.objects.create(
        bot=bot,
        number=number,
        code=data,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        kind=kind,
        validation_status=BotVersion.Validation.PENDING,
        validation_message="waiting for a worker to compile it and play its smoke match",
    )
    versions_validate_on_commit([version.id])
    return version


def bot_create(*, owner: AbstractBaseUser, game_slug: str, name: str, data: bytes, filename: str) -> Bot:
    """Create a bot with a pending version 1 from an upload, and its rating row at the initial Elo.

    Raises QuotaExceeded (429) past ``owner``'s rate of uploads (``quotas.write_rate_check``); ServiceError
    for an unknown game, a bad or taken name, or an upload that fails the checks that run none of its code.
    A worker then compiles the version and plays its smoke match; the bot plays in tournaments and the
    ladder once a version is accepted.
    """
    write_rate_check(user=owner, kind="uploads")
    game = game_get(slug=game_slug)
    if not BOT_NAME_PATTERN.match(name or ""):
        raise ServiceError(
            "a bot name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit", field="name"
        )
    if Bot.objects.filter(game=game, name__iexact=name).exists():
        raise ServiceError(f"a {game.slug} bot called {name!r} already exists; pick another name", field="name")
    kind = bot_code_check(data=data, filename=filename)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, game=game, name=name)
            _version_add(bot=bot, data=data, kind=kind)
            Rating.objects.create(bot=bot, game=game)
    except IntegrityError as exc:
        # Two uploads raced for the same name; the unique constraint decided.
        raise ServiceError(f"a {game.slug} bot called {name!r} already exists; pick another name",
                           field="name") from exc
    return bot


def bot_version_create(*, bot: Bot, data: bytes, filename: str) -> BotVersion:
    """Add a pending version to ``bot`` (it keeps its rating); once a worker accepts it, it is the newest
    accepted version and plays from then on. Counts against its owner's rate of uploads, like
    :func:`bot_create` (QuotaExceeded past it); ServiceError for an upload that fails the checks."""
    write_rate_check(user=bot.owner, kind="uploads")
    kind = bot_code_check(data=data, filename=filename)
    with transaction.atomic():
        # Lock the bot so two concurrent uploads get consecutive numbers.
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        return _version_add(bot=locked, data=data, kind=kind)


def bot_set_active(*, bot: Bot, active: bool, by=None) -> Bot:
    """Include (True) or exclude (False) the bot from new tournaments and the ladder. Deactivating an
    active bot tells its owner's webhooks (``bot.deactivated``); doing it twice tells them once. Asked by
    user ``by`` (None: the server itself), it counts against ``by``'s rate of activations
    (``quotas.write_rate_check``, QuotaExceeded past it), whether it changes anything or not."""
    write_rate_check(user=by, kind="activations")
    with transaction.atomic():
        changed = Bot.objects.filter(pk=bot.pk).exclude(active=active).update(active=active)
        bot.active = active
        if changed and not active:
            bot_deactivated(bot=bot)
    return bot


def bot_code_by_sha256(*, sha256s: list[str]) -> dict[str, bytes]:
    """The code bytes for each checksum that is stored (workers fetch only what their cache lacks)."""
    rows = BotVersion.objects.filter(sha256__in=set(sha256s)).values_list("sha256", "code").distinct()
    return {sha: bytes(code) for sha, code in rows}
