"""Ratings and their history, the rated matches waiting for the applier, the pair records the leaderboard's
confidence reads, and the pairs flagged for arranged games."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from ladder.models.base import TimeStampedModel
from ladder.models.bots import Bot
from ladder.models.games import Game
from ladder.models.matches import Match, Seat
from ladder.ratings.elo import INITIAL_RATING


class Rating(TimeStampedModel):
    """A bot's Elo in one game and its record. Wins/draws/losses count sole first place, shared first
    place and anything else, so they sum to ``games`` in games of any size."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="ratings")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="ratings")
    elo = models.FloatField(default=INITIAL_RATING)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-elo", "id"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "game"], name="rating_unique_bot_game"),
            models.CheckConstraint(
                condition=Q(games=F("wins") + F("draws") + F("losses")), name="rating_record_adds_up"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bot_id}@{self.game_id}: {self.elo:.1f}"


class RatingChange(models.Model):
    """The rating history: one row per rated seat. Unique per seat, so a match is rated at most once.

    Rows are inserted by the game's one applier (``ladder.services.ratings.rating_applier``), in the order
    it applies the matches, so their ids are the order of application that ``rebuild_ratings`` replays.
    """

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="rating_change")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    # No index of its own: ``ratingchange_bot_history`` (bot, id) leads with it.
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["bot", "id"], name="ratingchange_bot_history")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.delta:+.1f} in match {self.match_id}"


class PendingRating(models.Model):
    """A rated match recorded and not yet applied to the ratings: the recorder inserts it with the result
    (``ladder.services.play.matches.match_record_result``), and the game's applier
    (``ladder.services.ratings.rating_applier.ratings_apply_pending``) applies the game's pending matches in
    ``id`` order, in batches, and deletes them in the same transaction. Empty but for the moments between a
    recording and its application, or after a worker died between the two (the reconciler applies those).
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="+", db_index=False)

    class Meta:
        indexes = [models.Index(fields=["game", "id"], name="pendingrating_game_order")]

    def __str__(self) -> str:
        return f"match {self.match_id} to rate"


class PairRecord(models.Model):
    """The rated results between two bots of a game, summed: what the leaderboard's confidence fit
    (``ladder.ratings.confidence``) reads instead of the whole history, so that it costs the same
    after a million matches as after a hundred. One row per game and pair of bots, the lower bot id first;
    the counts are that bot's. Added to in the transaction that rates a match
    (``ladder.services.ratings.rating_applier``), rebuilt with the ratings by ``rebuild_ratings``.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="+")
    bot_low = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    bot_high = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    # Pairwise results (an N-player match gives every pair at its table one), from bot_low's side.
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    # What the fit reads: the results' total weight (2/N each from an N-player match) and bot_low's
    # weighted score (a draw is half a win). Sums of a few distinct fractions, so float is exact enough.
    weight = models.FloatField(default=0.0)
    score = models.FloatField(default=0.0)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "bot_low", "bot_high"], name="pairrecord_unique_pair"),
            models.CheckConstraint(condition=Q(bot_low__lt=F("bot_high")), name="pairrecord_low_first"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_low_id} vs {self.bot_high_id}: +{self.wins} ={self.draws} -{self.losses}"


class PairFlag(models.Model):
    """A pair of bots whose rated results against each other depart from what their results against the
    rest of the field predict (``ladder.services.ratings.collusion``): the sign of games arranged between two
    accounts. While ``held`` (and once ``confirmed``), the pair's rated matches are held out of the ratings,
    the pair records and the ladder's pairing; ``cleared`` by staff, they count again. The figures are the
    screen's when it flagged the pair, from ``bot_low``'s side."""

    class Status(models.TextChoices):
        HELD = "held"
        CLEARED = "cleared"
        CONFIRMED = "confirmed"

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="+")
    bot_low = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    bot_high = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.HELD)
    weight = models.FloatField()
    score = models.FloatField()
    expected = models.FloatField()
    p_value = models.FloatField()
    flagged_at = models.DateTimeField()
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "bot_low", "bot_high"], name="pairflag_unique_pair"),
            models.CheckConstraint(condition=Q(bot_low__lt=F("bot_high")), name="pairflag_low_first"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_low_id} vs {self.bot_high_id}: {self.status}"
