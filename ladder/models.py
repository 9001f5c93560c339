"""The ladder's durable state (docs/architecture.md, "Data"). The database is the source of truth.

Invariants live in the database as constraints, so that every writer (web, workers, admin, shell) is held
to them. Business logic lives in ``ladder.services``; these classes only describe data.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower

from ladder import packed_actions, seat_logs
from ladder.ratings.elo import INITIAL_RATING


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Game(TimeStampedModel):
    """A game with an installed engine; rows mirror ``engines.names()`` (see services.games)."""

    slug = models.SlugField(max_length=40, unique=True)
    title = models.CharField(max_length=100)
    min_players = models.PositiveSmallIntegerField()
    max_players = models.PositiveSmallIntegerField()
    default_options = models.JSONField(default=dict, blank=True)
    # False when the engine is no longer installed: its history stays, no new matches are scheduled.
    available = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(min_players__gte=1), name="game_min_players_positive"),
            models.CheckConstraint(condition=Q(max_players__gte=F("min_players")), name="game_player_range"),
        ]

    def __str__(self) -> str:
        return self.slug


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


class MatchSetupManager(models.Manager):
    def for_parts(self, *, options: dict | None, limits: dict | None) -> MatchSetup | None:
        """The stored setup of exactly these ``options`` and ``limits``, written now if no match was
        scheduled under them before; None for neither ({} each: the engine's defaults, the settings at
        play time). Two callers writing the same new setup at once both get the one row that won."""
        options, limits = dict(options or {}), dict(limits or {})
        if not options and not limits:
            return None
        digest = MatchSetup.digest_of(options=options, limits=limits)
        found = self.filter(digest=digest).first()
        if found is not None:
            return found
        self.bulk_create([MatchSetup(digest=digest, options=options, limits=limits)], ignore_conflicts=True)
        return self.get(digest=digest)


class MatchSetup(models.Model):
    """What a match is played under besides its seed and its seats: the game's options and every sandbox
    limit, resolved when it was scheduled. Stored once and shared by every match scheduled under the same:
    a tournament's matches, a game's ladder matches until its settings change, a comparison's games. Rows
    are never changed or deleted; ``digest`` (:meth:`digest_of`) finds a setup again. A match's row holds
    its key instead of the two (the largest values of a scheduled match's row when each carried its own
    copies)."""

    digest = models.CharField(max_length=64, unique=True)
    options = models.JSONField(default=dict)
    limits = models.JSONField(default=dict)

    objects = MatchSetupManager()

    def __str__(self) -> str:
        return f"match setup {self.pk}"

    @staticmethod
    def digest_of(*, options: dict, limits: dict) -> str:
        """SHA-256 of the canonical JSON (keys sorted, no spaces) of both: equal parts, equal digests."""
        canonical = json.dumps({"limits": limits, "options": options}, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=True)
        return hashlib.sha256(canonical.encode()).hexdigest()


class MatchQuerySet(models.QuerySet):
    def update(self, **kwargs):
        # ``actions`` (a property: ``Match.actions``) is written as its packed column, as saving it does.
        if "actions" in kwargs:
            kwargs["actions_packed"] = packed_actions.pack(list(kwargs.pop("actions")))
            kwargs["actions_json"] = []
        # ``options`` and ``limits`` (properties) are written as the key of their stored setup: each matched
        # match's setup with the parts given replaced, the others kept.
        parts = {name: kwargs.pop(name) for name in ("options", "limits") if name in kwargs}
        if parts:
            updated = 0
            for setup_id in set(self.values_list("setup_id", flat=True)):
                current = MatchSetup.objects.filter(pk=setup_id).first()
                setup = MatchSetup.objects.for_parts(
                    options=parts["options"] if "options" in parts else (current.options if current else {}),
                    limits=parts["limits"] if "limits" in parts else (current.limits if current else {}))
                same = self.filter(setup_id=setup_id) if setup_id is not None else self.filter(setup__isnull=True)
                updated += same.update(setup=setup, **kwargs)
            return updated
        return super().update(**kwargs)


class Match(TimeStampedModel):
    """One game between seated bot versions: ``(game, players, seed, options, actions)`` replays it.

    Lifecycle: queued -> running (claimed by a worker with a lease and an attempt token) -> finished, or
    failed after ``MATCH_MAX_ATTEMPTS`` sandbox faults. A running match whose lease expired goes back to
    queued; only the holder of the current token may record the result. A match of a version comparison
    still queued when its test decides is deleted, never played.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="matches")
    # A match belongs to a tournament or to a version comparison, never both (a constraint holds it).
    # Neither has an index of its own: the unique (tournament, index) and (comparison, index) lead with it.
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="matches", db_index=False)
    comparison = models.ForeignKey(Comparison, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="matches", db_index=False)
    # Position of the match in its tournament's (or comparison's) schedule; in an unrated tournament its
    # seed derives from it.
    index = models.PositiveIntegerField()
    players = models.PositiveSmallIntegerField()
    # In a duplicate round robin, the deal this match is one seat rotation of: the rotations of a deal
    # share its seed. In a comparison, the pair it is one game of. Null in any other tournament.
    deal = models.PositiveIntegerField(null=True, blank=True)
    # Rated matches: drawn from a CSPRNG when scheduled, secret until the match finished (rated_play).
    seed = models.BigIntegerField()
    # The game's options and every sandbox limit the match is played under, resolved when it was
    # scheduled, so that retries and later readers see what it was played under: a setup shared with the
    # other matches scheduled under the same (read and written through :attr:`options` and
    # :attr:`limits`). Null: neither (the engine's defaults; the settings at play time, for a match
    # scheduled before limits were stored). No index: no read looks for the matches of a setup, and setups
    # are never deleted.
    setup = models.ForeignKey(MatchSetup, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                              db_index=False)
    # The actions: ``actions_packed`` (``ladder.packed_actions``, compressed) for a match recorded since
    # they are stored so, else ``actions_json`` (the column ``actions``, which older rows keep); read and
    # written through :attr:`actions`.
    actions_json = models.JSONField(default=list, blank=True, db_column="actions")
    actions_packed = models.BinaryField(null=True, blank=True)
    # The game's ``rules_version`` when the match was scheduled: its actions replay only under those rules.
    # Nullable while code that does not write it may still be deployed (migration 0005 backfills).
    rules_version = models.PositiveIntegerField(null=True, blank=True)
    class Priority(models.IntegerChoices):
        """Lower runs first: a tournament's or comparison's matches, then the ladder's (its own queue)."""

        TOURNAMENT = 0
        LADDER = 5

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # A Priority value (the column predates the choices, which it does not store).
    priority = models.PositiveSmallIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    attempt_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    # The worker seconds this match may take at worst under its limits (limits.match_worst_case_s), fixed
    # when it was scheduled: what its creator's budget holds for it until it is played and settles at
    # duration_s (ladder.core.worker_time). Null for matches scheduled before budgets existed.
    reserved_s = models.FloatField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, default="")
    failure_reason = models.TextField(blank=True, default="")

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "index"], name="match_unique_index"),
            # Partial, like the comparisons' other index: the ladder's and tournaments' matches have no entry.
            models.UniqueConstraint(fields=["comparison", "index"], condition=Q(comparison__isnull=False),
                                    name="match_unique_comparison_index"),
            models.CheckConstraint(
                condition=Q(tournament__isnull=False, comparison__isnull=True)
                | Q(tournament__isnull=True, comparison__isnull=False),
                name="match_tournament_or_comparison",
            ),
            models.CheckConstraint(condition=Q(players__gte=1), name="match_players_positive"),
            models.CheckConstraint(
                condition=~Q(status="running") | Q(attempt_token__isnull=False, lease_expires_at__isnull=False),
                name="match_running_has_lease",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=["finished", "failed"]) | Q(finished_at__isnull=False),
                name="match_done_has_time",
            ),
        ]
        # Every index of the match row costs each of its three row versions (scheduled, claimed, finished)
        # an entry: only those the reads and the workers need, and partial ones where only queued or
        # running matches, or a comparison's, are searched. No index holds the lease, so that renewing it
        # is a HOT update.
        indexes = [
            # The queue (queued by priority, then age) and the running matches whose lease the reconciler checks.
            models.Index(fields=["status", "priority", "id"], condition=Q(status__in=["queued", "running"]),
                         name="match_waiting"),
            # Counts by status of one tournament, and its newest finished matches (by id) on its page.
            models.Index(fields=["tournament", "status", "id"], name="match_tournament_status_id"),
            models.Index(fields=["comparison", "status"], condition=Q(comparison__isnull=False),
                         name="match_comparison_status"),
            # A rotation of a tournament's duplicate deal: the claim's and the recording's look at the
            # deal's other rotations (``match_sql.claim_sql``, ``rotations``) reads those few matches, not
            # the tournament's. A comparison's matches, which have deals too, are not in it.
            models.Index(fields=["tournament", "deal", "index"],
                         condition=Q(deal__isnull=False, tournament__isnull=False), name="match_deal_rotations"),
            # The ladder's pace on its game's page: matches of one tournament finished since a moment.
            models.Index(fields=["tournament", "finished_at"], name="match_tournament_finished"),
            # A tournament's first start (its progress' estimate): the least of one tournament's, found at once.
            models.Index(fields=["tournament", "started_at"], name="match_tournament_started"),
            # The match list's keyset pages when ordered by finish time.
            models.Index(fields=["finished_at", "id"], name="match_finished_id"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game_id}, {self.status})"

    @staticmethod
    def actions_from(*, actions_json, actions_packed) -> list:
        """The actions of a match read as its two columns (``values_list``): the packed ones, or the JSON."""
        return packed_actions.unpack(actions_packed) if actions_packed is not None else actions_json

    @property
    def actions(self) -> list:
        """Every action of the match, in order ([] before it is played)."""
        packed = self.actions_packed
        cached = self.__dict__.get("_actions_cache")
        if cached is None or cached[0] is not packed:
            cached = (packed, Match.actions_from(actions_json=self.actions_json, actions_packed=packed))
            self.__dict__["_actions_cache"] = cached
        return cached[1]

    @actions.setter
    def actions(self, value: list) -> None:
        self.actions_packed = packed_actions.pack(list(value))
        self.actions_json = []
        self.__dict__["_actions_cache"] = (self.actions_packed, list(value))

    @property
    def options(self) -> dict:
        """The game options the match is played under. Reads its setup (one query unless the setup was
        selected with the match: ``select_related("setup")``)."""
        return dict(self.setup.options) if self.setup_id is not None else {}

    @options.setter
    def options(self, value: dict | None) -> None:
        # One query or two: scheduling code resolves the setup once for all its matches (``setup=``).
        self.setup = MatchSetup.objects.for_parts(options=value, limits=self.limits)

    @property
    def limits(self) -> dict:
        """Every sandbox limit the match is played under ({}: the settings at play time). Reads its setup
        as :attr:`options` does."""
        return dict(self.setup.limits) if self.setup_id is not None else {}

    @limits.setter
    def limits(self, value: dict | None) -> None:
        self.setup = MatchSetup.objects.for_parts(options=self.options, limits=value)

    def save(self, *args, update_fields=None, **kwargs):
        # ``actions`` is kept in two columns (the packed one and the older JSON one): saving it saves both;
        # ``options`` and ``limits`` are kept as the key of their setup.
        if update_fields is not None:
            update_fields = set(update_fields)
            if "actions" in update_fields:
                update_fields = (update_fields - {"actions"}) | {"actions_packed", "actions_json"}
            if update_fields & {"options", "limits"}:
                update_fields = (update_fields - {"options", "limits"}) | {"setup"}
        super().save(*args, update_fields=update_fields, **kwargs)


class Seat(models.Model):
    """One player of a match: the bot version seated there and, once finished, its result."""

    class Outcome(models.TextChoices):
        OK = "ok"
        TIMEOUT = "timeout"
        CRASH = "crash"
        MEMORY = "memory"
        ILLEGAL_ACTION = "illegal_action"
        BAD_OUTPUT = "bad_output"

    # No index of its own: the unique (match, position) leads with it.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    position = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="seats")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # Kept as text rather than restricted to Outcome so a newer referee's outcome is still recorded.
    outcome = models.CharField(max_length=20, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    time_used_ms = models.PositiveIntegerField(null=True, blank=True)
    #: The seat's :attr:`log` and :attr:`decisions` as one value (:mod:`ladder.seat_logs`: the log stored
    #: once, compressed with the records); NULL for a seat that printed nothing and took no decision, or
    #: has not played. Readable only by the bot's owner.
    logs = models.BinaryField(null=True, blank=True)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_unique_position"),
            # Per version, not per bot: a comparison seats two versions of one bot in the same match.
            # Tournaments still seat each bot once (tournament_create refuses a bot listed twice).
            models.UniqueConstraint(fields=["match", "bot_version"], name="seat_version_once_per_match"),
            models.CheckConstraint(condition=Q(place__isnull=True) | Q(place__gte=1), name="seat_place_positive"),
        ]

    def __str__(self) -> str:
        return f"seat {self.position} of match {self.match_id}"

    @property
    def log(self) -> str:
        """What the bot printed in the match (within the seat's log cap), from :attr:`logs`."""
        return self._logs_unpacked().log

    @log.setter
    def log(self, value: str) -> None:
        self._logs_pack(value, self._logs_unpacked().decisions)

    @property
    def decisions(self) -> list:
        """One record per decision the seat took, in order: ``{"step", "ms", "log"}``, where ``step`` indexes
        the match's actions, ``ms`` is the think time and ``log`` what the bot printed while deciding (within
        the seat's log cap), from :attr:`logs`. Changed by assigning a new list."""
        return self._logs_unpacked().decisions

    @decisions.setter
    def decisions(self, value: list) -> None:
        self._logs_pack(self._logs_unpacked().log, list(value))

    def _logs_unpacked(self) -> seat_logs.SeatLogs:
        # Unpacked once per value of ``logs``: a reload or an assignment brings another value.
        packed = self.logs
        cached = self.__dict__.get("_logs_cache")
        if cached is None or cached[0] is not packed:
            cached = (packed, seat_logs.unpack(packed))
            self.__dict__["_logs_cache"] = cached
        return cached[1]

    def _logs_pack(self, log: str, decisions: list) -> None:
        self.logs = seat_logs.pack(log, decisions)
        self.__dict__["_logs_cache"] = (self.logs, seat_logs.SeatLogs(log, decisions))

    def save(self, *args, update_fields=None, **kwargs):
        # ``log`` and ``decisions`` are kept in ``logs``: saving either saves that column.
        if update_fields is not None:
            update_fields = {"logs" if name in ("log", "decisions") else name for name in update_fields}
        super().save(*args, update_fields=update_fields, **kwargs)

    @staticmethod
    def outcome_forfeits(outcome: str) -> bool:
        """Whether a seat with ``outcome`` lost by forfeit: any outcome but ``ok`` (and the empty outcome
        of a seat not played yet). The one rule the ratings, the standings and every page read."""
        return outcome not in ("", Seat.Outcome.OK)


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

    Rows are inserted by the game's one applier (``ladder.services.ratings.rating_updates``), in the order it
    applies the matches, so their ids are the order of application that ``rebuild_ratings`` replays.
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
    (``ladder.services.ratings.rating_updates.ratings_apply_pending``) applies the game's pending matches in
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
    (``ladder.services.ratings.rating_updates``), rebuilt with the ratings by ``rebuild_ratings``.
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


class Webhook(TimeStampedModel):
    """A user's subscription to the events of their own bots, comparisons and tournaments
    (``ladder.services.webhooks``): each event named in ``events`` is POSTed to ``url``, signed with the
    webhook's secret. The secret is shown once, at creation; it is kept sealed (``secret_sealed``,
    encrypted under a key derived from ``SECRET_KEY``), since signing needs it back, never a hash."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    #: The event names subscribed to, e.g. ["bot.validated", "comparison.finished"].
    events = models.JSONField(default=list)
    secret_sealed = models.TextField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of user {self.owner_id}: {self.url}"


class WebhookDelivery(TimeStampedModel):
    """One event for one webhook: the exact body every attempt sends, and where its attempts stand.

    pending -> delivered (a 2xx answer) or failed (``WEBHOOKS_MAX_ATTEMPTS`` attempts without one). A
    pending delivery is due at ``next_attempt_at``; while an attempt runs that is the end of its lease
    (``leased_until`` too, which counts it in flight), so that the delivery of a worker that died is taken
    up again by the sweep (``webhook_deliveries_sweep``). ``held``: it waits for room under its owner's
    caps (in flight, per hour), not for a retry.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    #: The event's id (the body's "id"): the same for every attempt, and for every webhook it went to.
    event_id = models.UUIDField()
    #: The JSON body, byte for byte what is signed and sent at every attempt.
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    #: When its task message was last published (the sweep sends a lost one again, not every run).
    sent_at = models.DateTimeField(null=True, blank=True)
    #: The end of the lease of the attempt running now (null when none runs): in flight until then.
    leased_until = models.DateTimeField(null=True, blank=True)
    #: Waiting for room under its owner's caps (``WEBHOOKS_IN_FLIGHT_PER_USER``, ``WEBHOOKS_ATTEMPTS_PER_HOUR``).
    held = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "event_id"], name="webhookdelivery_one_per_event"),
            models.CheckConstraint(condition=Q(status="pending", next_attempt_at__isnull=False)
                                   | (~Q(status="pending") & Q(next_attempt_at__isnull=True)),
                                   name="webhookdelivery_due_while_pending"),
        ]
        indexes = [models.Index(fields=["next_attempt_at"], condition=Q(status="pending"),
                                name="webhookdelivery_pending_due")]

    def __str__(self) -> str:
        return f"{self.event} {self.event_id} to webhook {self.webhook_id}: {self.status}"


class WebhookAttempt(models.Model):
    """One try of a delivery: the answer's status code (null when none came), what went wrong, how long it
    took, and a short escaped excerpt of the answer's body (never more)."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_rows")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    response_excerpt = models.CharField(max_length=600, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhookattempt_unique_number")]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}: {self.status_code or self.error}"


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
