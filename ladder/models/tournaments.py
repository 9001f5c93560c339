"""Tournaments (round robins and the continuous ladder), version comparisons, and what the ladder and the
tournaments' pages read instead of their history: ladder entries, standings, head-to-head records, tallies."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from ladder.models.base import TimeStampedModel
from ladder.models.bots import Bot, BotVersion
from ladder.models.games import Game


class Tournament(TimeStampedModel):
    """A set of matches between chosen bots: a round robin, or the continuous ladder of one game.

    ``rated`` says whether its matches move leaderboard ratings (``ladder.core.rated_play``): the
    ladder always does, a round robin only when staff marked it. A rated tournament has no ``seed``: each
    of its matches draws its own secret seed; an unrated one derives its matches' seeds from ``seed``.
    """

    class Kind(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        LADDER = "ladder"

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="tournaments")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.ROUND_ROBIN)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    players_per_match = models.PositiveSmallIntegerField()
    games_per_pairing = models.PositiveSmallIntegerField(default=1)
    options = models.JSONField(default=dict, blank=True)
    # Overrides of the user-facing sandbox limits for this tournament's matches ({}: none); checked against
    # the server's caps when the tournament is created (ladder.core.limits).
    limits = models.JSONField(default=dict, blank=True, db_default={})
    rated = models.BooleanField(default=False, db_default=False)
    # A duplicate round robin plays every deal (seed) of a pairing once in each seat rotation of its bots;
    # ``games_per_pairing`` then counts deals, and each match names its ``deal``.
    duplicate = models.BooleanField(default=False, db_default=False)
    seed = models.BigIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments"
    )
    bots = models.ManyToManyField(Bot, related_name="tournaments", blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(players_per_match__gte=1), name="tournament_players_positive"),
            models.CheckConstraint(condition=Q(games_per_pairing__gte=1), name="tournament_games_positive"),
            models.UniqueConstraint(fields=["game"], condition=Q(kind="ladder"), name="tournament_one_ladder_per_game"),
            models.CheckConstraint(condition=~Q(kind="ladder") | Q(rated=True), name="tournament_ladder_is_rated"),
            models.CheckConstraint(
                condition=Q(rated=True, seed__isnull=True) | Q(rated=False, seed__isnull=False),
                name="tournament_seed_only_unrated",
            ),
            models.CheckConstraint(
                condition=~Q(status="finished") | Q(finished_at__isnull=False), name="tournament_finished_has_time"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Comparison(TimeStampedModel):
    """Is the ``candidate`` version of a bot better than its ``baseline``? Paired games until an SPRT decides.

    Games are played in pairs on one deal (seed): against the baseline, once from each seat; against a
    field of ``opponents``, the candidate and the baseline each meet the pair's opponent from the same
    seat on the same deal. A pair scores 0, 1/2, 1, 3/2 or 2 for the candidate, and ``pairs`` counts the
    pairs of each score (the pentanomial counts), with ``llr_history`` the SPRT's log-likelihood ratio
    after each complete pair (``ladder.services.tournaments.comparisons``). Never rated: its matches leave the
    leaderboard alone. ``verdict`` is null while running and set once done.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"

    class Verdict(models.TextChoices):
        BETTER = "better"
        WORSE = "worse"
        EQUAL = "equal"
        INCONCLUSIVE = "inconclusive"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="comparisons")
    baseline = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    candidate = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    # The field the versions play; none: the candidate plays the baseline itself.
    opponents = models.ManyToManyField(Bot, related_name="+", blank=True)
    elo0 = models.FloatField()
    elo1 = models.FloatField()
    alpha = models.FloatField()
    beta = models.FloatField()
    max_games = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    verdict = models.CharField(max_length=12, choices=Verdict.choices, null=True, blank=True)
    #: Complete pairs by the candidate's points over the pair: 0, 1/2, 1, 3/2, 2.
    pairs = models.JSONField(default=list, blank=True)
    #: The LLR after each complete pair, in the order they completed.
    llr_history = models.JSONField(default=list, blank=True)
    options = models.JSONField(default=dict, blank=True)
    limits = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="comparisons"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(elo0__lt=F("elo1")), name="comparison_elo0_below_elo1"),
            models.CheckConstraint(condition=Q(alpha__gt=0, alpha__lt=1, beta__gt=0, beta__lt=1),
                                   name="comparison_error_rates_in_range"),
            models.CheckConstraint(condition=Q(max_games__gte=2), name="comparison_max_games_a_pair"),
            models.CheckConstraint(condition=~Q(baseline=F("candidate")), name="comparison_two_versions"),
            models.CheckConstraint(
                condition=Q(status="running", verdict__isnull=True)
                | Q(status="done", verdict__isnull=False, finished_at__isnull=False),
                name="comparison_verdict_once_done",
            ),
        ]

    def __str__(self) -> str:
        return f"comparison {self.pk} of bot {self.bot_id}"


class LadderEntry(models.Model):
    """A bot's place in its game's ladder schedule: what the ladder's tick reads of it instead of the
    history (``ladder.services.tournaments.ladder``), so that a tick costs the same after ten million matches
    as after ten. Written by the tick in the transaction that schedules the bot's matches; counts are of
    scheduled ladder games, which all but a failed few go on to be played.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="ladder_entries")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="ladder_entries")
    # Ladder games per seat, seat 0 first, at the ladder's players per match.
    seat_counts = models.JSONField(default=list)
    scheduled = models.PositiveIntegerField(default=0)
    last_scheduled_at = models.DateTimeField(null=True, blank=True)
    # The version its last games seated and how many ladder games that version has had: a new version
    # plays its first games before the others (LADDER_PROVISIONAL_GAMES).
    version = models.ForeignKey(BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    version_games = models.PositiveIntegerField(default=0)
    # Games scheduled per ten-minute step of the last day: {"<unix time // 600>": count}.
    recent = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot"], name="ladderentry_unique_bot")]

    def __str__(self) -> str:
        return f"bot {self.bot_id} on ladder {self.tournament_id}: {self.scheduled} games"


class TournamentStanding(models.Model):
    """One bot's line of a tournament's table, summed over the tournament's finished matches of two or more
    seats: what the tournament's pages and routes read (``ladder.selectors.tournaments``) instead of every
    match, so that they cost the same after a million matches as after ten. Added to in the transaction
    that records a match (``ladder.services.ratings.tournament_records``), rebuilt from the history by that
    module's rebuild. The counts are those of ``ladder.ratings.tables.standings``.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    games = models.PositiveIntegerField(default=0)
    # Points by place (N-1 .. 0, shared places share): multiples of 1/2, exact in a float.
    points = models.FloatField(default=0.0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    forfeits = models.PositiveIntegerField(default=0)
    #: The game's own points summed over the bot's matches (the table shows their average).
    score = models.BigIntegerField(default=0)
    # Where the bot was first seen (the finished match of lowest id, and its seat there): the table lists
    # bots whose records tie in that order.
    first_match_id = models.BigIntegerField()
    first_position = models.PositiveSmallIntegerField()
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="tournamentstanding_unique_bot"),
            models.CheckConstraint(condition=Q(forfeits__lte=F("games")), name="tournamentstanding_forfeits_played"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_id} in tournament {self.tournament_id}: {self.points} points"


class TournamentHeadToHead(models.Model):
    """The pairwise results between two bots in one tournament, summed (its crosstable and its
    Bradley-Terry fit read these). One row per tournament and pair, the lower bot id first; the counts are
    that bot's, ``weight`` and ``score`` as in :class:`PairRecord` (2/N per pair of an N-player match)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    bot_low = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    bot_high = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    weight = models.FloatField(default=0.0)
    score = models.FloatField(default=0.0)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot_low", "bot_high"], name="tournamenth2h_unique_pair"),
            models.CheckConstraint(condition=Q(bot_low__lt=F("bot_high")), name="tournamenth2h_low_first"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_low_id} vs {self.bot_high_id}: +{self.wins} ={self.draws} -{self.losses}"


class TournamentTally(models.Model):
    """How many of a tournament's matches finished, counted as they are recorded: the progress of a
    tournament (its page, its route, the lists and the home page) reads it instead of counting a history
    that grows without bound. The other statuses are counted from the matches: queued and running ones
    are the live queue, failed ones are rare."""

    tournament = models.OneToOneField(Tournament, on_delete=models.CASCADE, primary_key=True, related_name="tally")
    finished = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"tournament {self.tournament_id}: {self.finished} finished"
