"""Matches, their seats, and the setups (options and limits) they are played under."""

from __future__ import annotations

import hashlib
import json

from django.db import models
from django.db.models import Q

from ladder import packed_actions, seat_logs
from ladder.models.base import TimeStampedModel
from ladder.models.bots import Bot, BotVersion
from ladder.models.games import Game
from ladder.models.tournaments import Comparison, Tournament


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
