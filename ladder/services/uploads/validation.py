"""Deciding pending bot versions, on the workers: compile, smoke match in the sandbox, accept or reject.

Uploads are stored as pending versions by ``ladder.services.uploads.bots`` without running any of their code;
:func:`bot_version_validate` is what the ``ladder.validate_version`` task calls for each. It is
idempotent: a version that is no longer pending is left alone, so a message delivered twice, or re-sent
by :func:`versions_reconcile`, costs one smoke match at most and decides nothing twice. Every check ends
in a decision except a fault of the sandbox: whatever else goes wrong while checking (a bug of the check,
an upload it did not foresee, a setting it cannot use) rejects the version with :data:`CHECK_FAILED`, and
the traceback goes to the log, so that no version waits for good with its check re-sent every
``VALIDATION_REQUEUE_AFTER_S``.

The smoke match is played as a rated ladder match of the game is (``ladder_match_setup``): the same
limits, hence the same ``move_ms``, ``bank_ms`` and ``match_ms`` in the bot's ``start`` message and the
same ``time_left_ms`` in every ``act``, the same number of players and options, the upload in a seat
drawn at random, a fresh secret seed. A bot that behaves only when it is checked would need to tell the
check from a rated match by something else (its opponent is the game's random bot; docs/bots.md says
what remains). The check's task has a match's time limits, and a smoke match is one match of the game
under limits held to the server's caps, so the system check's E004 bounds it as it bounds every match.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ladder.messaging.enqueue import versions_validate_on_commit
from ladder.models import BotVersion
from ladder.services.tournaments.ladder import ladder_match_setup
from ladder.services.webhooks.events import bot_validated

logger = logging.getLogger(__name__)

#: Characters of a rejection message kept (the smoke match's reason is already bounded by the referee).
_MESSAGE_CHARS = 4000
#: The message of a version whose check failed for a reason the check cannot name (its traceback is logged).
CHECK_FAILED = ("the check of this version failed on the server, not because of anything it could name in "
                "the upload: upload it again, and if that fails too, tell the operators (they have the error)")


def bot_version_validate(*, version_id: int) -> str:
    """Compile version ``version_id`` and play its smoke match; mark it ``accepted`` or ``rejected``.

    Returns the version's status afterwards (``"missing"`` for a version that no longer exists). A fault
    of the sandbox (:class:`bots.referee.SandboxFault`, :class:`bots.sandbox.SandboxUnavailable`)
    propagates and leaves the version pending: it says nothing about the upload, so the task retries. Any
    other exception out of the check rejects the version with :data:`CHECK_FAILED` (logged with its
    traceback and the version's id).
    """
    from bots.limits import Limits
    from bots.sandbox.errors import SandboxFault
    from bots.upload_checks import UploadRejected
    from bots.validate import validate_upload

    version = BotVersion.objects.select_related("bot__game").filter(pk=version_id).first()
    if version is None:
        return "missing"
    if version.validation_status != BotVersion.Validation.PENDING:
        return version.validation_status
    filename = "bot.zip" if version.kind == BotVersion.Kind.ZIP else "bot.py"
    try:
        setup = ladder_match_setup(game=version.bot.game)
        validated = validate_upload(bytes(version.code), filename, game=version.bot.game.slug,
                                    limits=Limits(**setup.limits), players=setup.players, options=setup.options,
                                    allow_unsafe=settings.BOTS_ALLOW_UNSAFE)
    except UploadRejected as exc:
        status, message, log = BotVersion.Validation.REJECTED, exc.message, exc.log_tail
    except SandboxFault:
        raise
    except Exception:
        # Deciding is the recovery: left pending, the version would be checked again every
        # VALIDATION_REQUEUE_AFTER_S, fail the same way each time, and never tell its owner anything.
        logger.exception("the check of bot version %s failed; rejecting it", version_id)
        status, message, log = BotVersion.Validation.REJECTED, CHECK_FAILED, ""
    else:
        status, message, log = BotVersion.Validation.ACCEPTED, validated.message, ""
    # Guarded by the status, so that of two workers checking the same version only the first decides, and
    # only its decision reaches the owner's webhooks (``bot.validated``, sent once this commits).
    with transaction.atomic():
        decided = BotVersion.objects.filter(pk=version_id, validation_status=BotVersion.Validation.PENDING).update(
            validation_status=status, validation_message=message[:_MESSAGE_CHARS], validation_log=log,
            validated_at=timezone.now(),
        )
        if decided:
            version.validation_status, version.validation_message = status, message[:_MESSAGE_CHARS]
            bot_validated(version=version)
    return BotVersion.objects.values_list("validation_status", flat=True).get(pk=version_id)


def version_pending(*, version_id: int) -> bool:
    """Whether version ``version_id`` still waits for its check (one indexed read)."""
    return BotVersion.objects.filter(pk=version_id, validation_status=BotVersion.Validation.PENDING).exists()


def versions_reconcile(*, now: datetime | None = None) -> int:
    """Send the check of every version still pending ``VALIDATION_REQUEUE_AFTER_S`` after its check was
    last sent (its message was lost, or its worker died) again; returns how many were sent. A version
    whose workers stay away is sent again once per that interval, not at every run."""
    now = now or timezone.now()
    before = now - timedelta(seconds=settings.VALIDATION_REQUEUE_AFTER_S)
    with transaction.atomic():
        stale = list(
            BotVersion.objects.filter(validation_status=BotVersion.Validation.PENDING, created_at__lt=before)
            .filter(Q(validation_sent_at__lt=before) | Q(validation_sent_at__isnull=True))
            .order_by("id").values_list("id", flat=True)
        )
        # Marked now, so that a broker that is down does not make every run send them again.
        BotVersion.objects.filter(id__in=stale).update(validation_sent_at=now)
        versions_validate_on_commit(stale)
    return len(stale)
