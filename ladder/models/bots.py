"""Bots and their uploaded versions: the code bytes, their checksum and the workers' verdict on them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from ladder.models.base import TimeStampedModel
from ladder.models.games import Game


class Bot(TimeStampedModel):
    """A named bot of one owner for one game; its code lives in :class:`BotVersion` rows."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="bots")
    name = models.CharField(max_length=64)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "game", name="bot_unique_name_per_game"),
            models.CheckConstraint(condition=~Q(name=""), name="bot_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.game_id})"


class BotVersion(TimeStampedModel):
    """One uploaded revision of a bot: the code bytes (``bot.py`` source or a zip) and their checksum.

    Code is stored in the database so that workers on other machines need no shared disk; they cache it
    by ``sha256``.
    """

    class Kind(models.TextChoices):
        PY = "py", "bot.py"
        ZIP = "zip", "zip archive"

    class Validation(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    code = models.BinaryField()
    sha256 = models.CharField(max_length=64, db_index=True)
    size = models.PositiveIntegerField()
    kind = models.CharField(max_length=3, choices=Kind.choices, default=Kind.PY)
    validation_status = models.CharField(max_length=10, choices=Validation.choices, default=Validation.PENDING)
    validation_message = models.TextField(blank=True, default="")
    #: The tail of the smoke match's log when it failed: the bot's own output, shown to its owner only.
    validation_log = models.TextField(blank=True, default="")
    #: When a worker decided (accepted or rejected); null while pending.
    validated_at = models.DateTimeField(null=True, blank=True)
    #: When its check was last sent to the workers (the reconciler sends it again if it stays pending).
    validation_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="botversion_number_positive"),
            models.CheckConstraint(condition=Q(size__gte=1), name="botversion_code_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"
