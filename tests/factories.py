"""Factories for tournaments, matches and seats, and a helper that records a real finished match.

Users and bots come from the factories in ``tests/conftest.py`` (``UserFactory``, ``BotFactory``: a bot
with an accepted version 1 and a rating row). A finished match is played by the real engine (every seat
takes the first legal action) and its rating change is applied by the real service, so replays, places
and rating history are what production would store.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

import factory
from django.db import transaction
from django.utils import timezone

import engines
from tests.conftest import FIRST_LEGAL_BOT, BotFactory, UserFactory

__all__ = ["BotFactory", "BotVersionFactory", "MatchFactory", "RatedTournamentFactory", "RatingChangeFactory",
           "SeatFactory", "StaffFactory", "TournamentFactory", "UserFactory", "finished_match"]


def _game(slug: str):
    from ladder.models import Game

    return Game.objects.get(slug=slug)


class BotVersionFactory(factory.django.DjangoModelFactory):
    """Another accepted version of ``bot``, numbered after its newest."""

    class Meta:
        model = "ladder.BotVersion"

    bot = factory.SubFactory(BotFactory)
    number = factory.LazyAttribute(lambda version: version.bot.versions.count() + 1)
    code = factory.LazyAttribute(lambda version: FIRST_LEGAL_BOT + f"# version {version.number}\n".encode())
    sha256 = factory.LazyAttribute(lambda version: hashlib.sha256(version.code).hexdigest())
    size = factory.LazyAttribute(lambda version: len(version.code))
    validation_status = "accepted"


class TournamentFactory(factory.django.DjangoModelFactory):
    """A running unrated round robin of kingdomino with no matches; pass ``bots=[...]`` to enter bots."""

    class Meta:
        model = "ladder.Tournament"
        skip_postgeneration_save = True

    game = factory.LazyFunction(lambda: _game("kingdomino"))
    name = factory.Sequence(lambda n: f"cup {n}")
    players_per_match = 2
    seed = factory.Sequence(lambda n: 1000 + n)
    created_by = factory.SubFactory(UserFactory)
    started_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def bots(tournament, create, extracted, **kwargs):
        if extracted:
            tournament.bots.set(extracted)


class StaffFactory(UserFactory):
    """A staff account. Its name is unique without the shared sequence, which a second import of the
    conftest's factories would restart (and ``get_or_create`` would then hand back an ordinary user)."""

    username = factory.LazyFunction(lambda: f"staff-{uuid.uuid4().hex[:12]}")
    is_staff = True


class RatedTournamentFactory(TournamentFactory):
    """A round robin staff marked rated: its matches move leaderboard ratings; it has no seed."""

    rated = True
    seed = None
    created_by = factory.SubFactory(StaffFactory)


class MatchFactory(factory.django.DjangoModelFactory):
    """A queued match of its tournament's game, without seats."""

    class Meta:
        model = "ladder.Match"

    tournament = factory.SubFactory(TournamentFactory)
    game = factory.SelfAttribute("tournament.game")
    index = factory.Sequence(lambda n: n)
    players = 2
    seed = factory.Sequence(lambda n: 500 + n)
    options = factory.LazyAttribute(lambda match: dict(match.game.default_options))


class SeatFactory(factory.django.DjangoModelFactory):
    """A seat held by ``bot`` with its newest version."""

    class Meta:
        model = "ladder.Seat"

    match = factory.SubFactory(MatchFactory)
    position = factory.Sequence(lambda n: n)
    bot = factory.SubFactory(BotFactory)
    bot_version = factory.LazyAttribute(lambda seat: seat.bot.versions.order_by("-number").first())


class RatingChangeFactory(factory.django.DjangoModelFactory):
    """A rating history row for ``seat``, by default one that changed nothing."""

    class Meta:
        model = "ladder.RatingChange"

    seat = factory.SubFactory(SeatFactory)
    match = factory.SelfAttribute("seat.match")
    bot = factory.SelfAttribute("seat.bot")
    game = factory.SelfAttribute("seat.match.game")
    before = 1500.0
    after = factory.SelfAttribute("before")
    delta = 0.0


def _first_legal_playout(game: str, players: int, seed: int, options: dict) -> tuple[list, list[int], list[int]]:
    state = engines.get(game).new_state(players, seed, options)
    actions = []
    while not state.is_terminal():
        action = state.legal_actions()[0]
        state.apply(action)
        actions.append(action)
    return actions, state.scores(), state.ranking()


def finished_match(
    *,
    bots: Sequence,
    tournament=None,
    places: Sequence[int] | None = None,
    outcomes: Sequence[str] | None = None,
    logs: Sequence[str] | None = None,
    finished_at=None,
):
    """A finished match between ``bots`` (seat order), rated like a worker would rate it (by default in a
    rated tournament, so that it moves the bots' ratings).

    The actions, scores and (unless ``places`` overrides them) places come from a real first-legal-action
    playout, so the replay of the match is valid. ``outcomes`` marks forfeits (e.g. ``"timeout"``).
    """
    from ladder.models import Match
    from ladder.services.rating_updates import ratings_apply_match

    tournament = tournament or RatedTournamentFactory(game=bots[0].game, bots=list(bots))
    match = MatchFactory(tournament=tournament, players=len(bots))
    actions, scores, ranking = _first_legal_playout(match.game.slug, match.players, match.seed, match.options)
    places = list(places or ranking)
    outcomes = list(outcomes or ["ok"] * len(bots))
    logs = list(logs or [f"log of {bot.name}\n" for bot in bots])
    now = finished_at or timezone.now()
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.FINISHED, actions=actions, attempts=1, started_at=now, finished_at=now,
            duration_s=0.5,
        )
        match.refresh_from_db()
        seats = [
            SeatFactory(match=match, position=position, bot=bot, score=scores[position], place=places[position],
                        outcome=outcomes[position], log=logs[position],
                        reason="" if outcomes[position] == "ok" else f"{outcomes[position]} on move 1")
            for position, bot in enumerate(bots)
        ]
        ratings_apply_match(match=match, seats=seats)
    return match
