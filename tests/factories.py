"""Factories for the ladder's rows (users, bots, versions, tournaments, matches, seats), the two trusted
bots every test plays with, and a helper that records a real finished match.

This module imports nothing of the test suite (``tests/conftest.py`` imports it, to offer its factories
as fixtures), so a test module, a helper or a benchmark may import it alone. A bot is made with an
accepted version 1 and a rating row, as an accepted upload leaves it. A finished match is played by the real engine (every seat
takes the first legal action) and recorded the way a worker records it (``match_claim`` then
``match_record_result``), so replays, places, rating changes and tournament state are what production
would store.
"""

from __future__ import annotations

import copy
import hashlib
import io
import random
import uuid
import zipfile
from collections.abc import Sequence
from datetime import timedelta

import factory
from django.utils import timezone

import engines

__all__ = ["FIRST_LEGAL_BOT", "LAST_LEGAL_BOT", "BotFactory", "BotVersionFactory", "FinishedMatchFactory", "LadderTournamentFactory", "MatchFactory", "RatedTournamentFactory", "RatingChangeFactory",
           "SeatFactory", "StaffFactory", "TournamentFactory", "UserFactory", "WebhookFactory", "api_token_key",
           "big_history",
           "finished_match", "make_zip", "rated_field", "rated_result"]


# A bot that always takes the first legal action: valid in every game, instant, deterministic.
FIRST_LEGAL_BOT = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"
# A bot that takes the last legal action, so two bots differ.
LAST_LEGAL_BOT = b"def act(observation, legal_actions):\n    return legal_actions[-1]\n"


def _game(slug: str):
    from ladder.models import Game

    return Game.objects.get(slug=slug)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    # The suffix keeps names unique across test runs that share a database and across copies of the
    # sequence: ``get_or_create`` would otherwise hand a second client the first one's user.
    username = factory.Sequence(lambda n: f"user{n}-{uuid.uuid4().hex[:6]}")
    password = factory.django.Password("correct-horse-battery")


def api_token_key(user, **options) -> str:
    """The key of a new API token of ``user`` (``options``: ``name``, ``expires_in_days``), made as the API
    makes one: only its digest is stored, so the key is known only here."""
    from ladder.services.accounts.tokens import token_create

    return token_create(user=user, **options)[1]


class BotFactory(factory.django.DjangoModelFactory):
    """A bot with an accepted version 1 (``code``) and a rating row, as an upload would leave it."""

    class Meta:
        model = "ladder.Bot"
        skip_postgeneration_save = True

    owner = factory.SubFactory(UserFactory)
    game = factory.LazyFunction(lambda: _game("kingdomino"))
    name = factory.Sequence(lambda n: f"bot{n}")

    @factory.post_generation
    def code(bot, create, extracted, **kwargs):
        from ladder.models import BotVersion, Rating

        code = extracted or FIRST_LEGAL_BOT
        BotVersion.objects.create(
            bot=bot, number=1, code=code, sha256=hashlib.sha256(code).hexdigest(), size=len(code),
            kind="py", validation_status="accepted",
        )
        Rating.objects.create(bot=bot, game=bot.game)


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


class WebhookFactory(factory.django.DjangoModelFactory):
    """A webhook to every event, at a loopback address nothing listens on, its secret sealed as
    ``webhook_create`` seals one (the secret: ``whsec_test``)."""

    class Meta:
        model = "ladder.Webhook"

    owner = factory.SubFactory(UserFactory)
    url = "http://127.0.0.1:9/hook"
    events = factory.LazyFunction(lambda: ["bot.validated", "comparison.finished", "tournament.finished",
                                           "bot.deactivated"])
    secret_sealed = factory.LazyFunction(lambda: _sealed("whsec_test"))


def _sealed(secret: str) -> str:
    from ladder.services.webhooks.subscriptions import secret_seal

    return secret_seal(secret)


class StaffFactory(UserFactory):
    """A staff account. Its name is unique without the shared sequence, so that ``get_or_create`` never
    hands back an ordinary user made under the same name."""

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
    rules_version = factory.LazyAttribute(lambda match: engines.get(match.game.slug).rules_version)


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
    decisions: Sequence[list[dict]] | None = None,
    finished_at=None,
    deal: int | None = None,
    seed: int | None = None,
):
    """A finished match between ``bots`` (seat order), claimed and recorded by the services a worker calls
    (by default in a rated tournament, so that it moves the bots' ratings). ``deal`` and ``seed`` make it
    one rotation of a duplicate round robin's deal.

    The actions, scores and (unless ``places`` overrides them) places come from a real first-legal-action
    playout, so the replay of the match is valid. ``outcomes`` marks forfeits (e.g. ``"timeout"``).
    ``decisions`` are the seats' decision records (none by default). ``finished_at`` back-dates the match
    once it is recorded.
    """
    from bots.referee import MatchResult, SeatResult
    from ladder.models import Match
    from ladder.services.play.matches import match_claim, match_record_result

    tournament = tournament or RatedTournamentFactory(game=bots[0].game, bots=list(bots))
    match = MatchFactory(tournament=tournament, players=len(bots), deal=deal,
                         **({} if seed is None else {"seed": seed}))
    for position, bot in enumerate(bots):
        SeatFactory(match=match, position=position, bot=bot)
    actions, scores, ranking = _first_legal_playout(match.game.slug, match.players, match.seed, match.options)
    places = list(places or ranking)
    outcomes = list(outcomes or ["ok"] * len(bots))
    logs = list(logs or [f"log of {bot.name}\n" for bot in bots])
    decisions = list(decisions or [[] for _ in bots])
    claim = match_claim(match_id=match.pk, worker="tests")
    assert claim is not None, f"match {match.pk} could not be claimed"
    result = MatchResult(
        game=match.game.slug, players=match.players, seed=match.seed, options=match.options, actions=actions,
        seats=[SeatResult(bot=bot.name, score=scores[position], place=places[position], outcome=outcomes[position],
                          reason="" if outcomes[position] == "ok" else f"{outcomes[position]} on move 1",
                          time_used_ms=1, log=logs[position], decisions=decisions[position])
               for position, bot in enumerate(bots)],
        duration_s=0.5,
    )
    assert match_record_result(match_id=match.pk, token=claim.token, result=result)
    if finished_at is not None:
        Match.objects.filter(pk=match.pk).update(started_at=finished_at, finished_at=finished_at)
    match.refresh_from_db()
    return match


# --- A big history, built in bulk --------------------------------------------------------------------


class LadderTournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "ladder.Tournament"

    name = factory.Sequence(lambda n: f"ladder {n}")
    kind = "ladder"
    players_per_match = 2
    rated = True
    seed = None


class FinishedMatchFactory(factory.django.DjangoModelFactory):
    """Built (not saved) so that thousands can go through one ``bulk_create``."""

    class Meta:
        model = "ladder.Match"

    index = factory.Sequence(lambda n: n)
    players = 2
    seed = factory.Sequence(lambda n: n)
    status = "finished"
    finished_at = factory.LazyFunction(timezone.now)
    duration_s = 0.1
    rules_version = factory.LazyAttribute(lambda match: engines.get(match.game.slug).rules_version)


def bulk_insert(model, objects: list) -> list:
    """Save ``objects`` (unsaved instances of ``model``) as ``bulk_create`` would, and return them with their
    ids. By COPY, with ids drawn from the table's sequence first: for tens of thousands of rows, building
    and binding one INSERT's text costs far more than the rows themselves."""
    from django.db import DEFAULT_DB_ALIAS, connections

    connection = connections[DEFAULT_DB_ALIAS]  # the connection itself: the proxy's lookups add up here
    if not objects:
        return objects
    table = model._meta.db_table
    fields = list(model._meta.concrete_fields)
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                       [table, len(objects)])
        for obj, (pk,) in zip(objects, cursor.fetchall(), strict=True):
            obj.pk = pk
        names = ", ".join(connection.ops.quote_name(field.column) for field in fields)
        preps = [(field.pre_save, field.get_db_prep_save) for field in fields]
        with cursor.cursor.copy(f"COPY {connection.ops.quote_name(table)} ({names}) FROM STDIN") as copy:
            for obj in objects:
                copy.write_row([prep(pre_save(obj, True), connection) for pre_save, prep in preps])
    for obj in objects:
        obj._state.adding, obj._state.db = False, "default"
    return objects


def big_history() -> dict:
    """10,000 finished two-player Kingdomino matches between 20 bots, with seats, rating changes, ratings,
    pair records and the tournament's standings, built in bulk (:func:`bulk_insert`). Returns ``{"game", "tournament", "bots", "match_ids"}``.

    The one history not recorded match by match through ``match_record_result`` (as :func:`finished_match`
    records): it exists for its volume, which the query-count tests read and that path would take minutes
    to write."""
    from ladder.models import Game, Match, Rating, RatingChange, Seat
    from ladder.services.ratings.pair_records import pair_records_rebuild
    from ladder.services.ratings.tournament_records import records_rebuild

    game = Game.objects.get(slug="kingdomino")
    bots = [BotFactory(game=game, name=f"many-{i:02d}") for i in range(20)]
    versions = {b.id: b.versions.get() for b in bots}
    tournament = LadderTournamentFactory(game=game)
    rng = random.Random(3)
    start = timezone.now() - timedelta(days=10)
    template = FinishedMatchFactory.build(game=game, tournament=tournament, finished_at=start)
    matches = []
    for i in range(10_000):  # copies of one built match (the factory builds a few hundred a second)
        match = copy.copy(template)
        match.index, match.seed, match.finished_at = template.index + i, template.seed + i, start + timedelta(seconds=i)
        matches.append(match)
    bulk_insert(Match, matches)
    elo = {b.id: 1500.0 for b in bots}
    seats, plan = [], []
    for match in matches:
        a, b = rng.sample(bots, 2)
        winner = rng.random() < 0.5
        for position, (bot, place) in enumerate(((a, 1 if winner else 2), (b, 2 if winner else 1))):
            before = elo[bot.id]
            elo[bot.id] = before + (8.0 if place == 1 else -8.0)
            seats.append(Seat(match=match, position=position, bot=bot, bot_version=versions[bot.id], score=30 - place,
                              place=place, outcome="ok", log="", rating_before=before, rating_after=elo[bot.id]))
            plan.append((match, bot, before, elo[bot.id]))
    bulk_insert(Seat, seats)
    bulk_insert(RatingChange, [
        RatingChange(seat=seat, match=match, bot=bot, game=game, before=before, after=after, delta=after - before)
        for seat, (match, bot, before, after) in zip(seats, plan, strict=True)])
    for bot in bots:
        wins = sum(1 for s in seats if s.bot_id == bot.id and s.place == 1)
        games = sum(1 for s in seats if s.bot_id == bot.id)
        Rating.objects.filter(bot=bot).update(elo=elo[bot.id], games=games, wins=wins, losses=games - wins)
    pair_records_rebuild(game_id=game.id, now=timezone.now())
    records_rebuild(tournament_ids=[tournament.id], now=timezone.now())
    return {"game": game, "tournament": tournament, "bots": bots, "match_ids": [m.id for m in matches]}


def rated_result(*, bots: Sequence, places: Sequence[int], tournament=None):
    """A rated match between ``bots`` with the given ``places``, recorded as a worker records it (ratings
    and pair records included) but not played: it has no actions, so no replay. For histories of many
    results whose games do not matter, where :func:`finished_match` would play each one."""
    from bots.referee import MatchResult, SeatResult
    from ladder.services.play.matches import match_claim, match_record_result

    tournament = tournament or RatedTournamentFactory(game=bots[0].game, bots=list(bots))
    match = MatchFactory(tournament=tournament, players=len(bots))
    for position, bot in enumerate(bots):
        SeatFactory(match=match, position=position, bot=bot)
    claim = match_claim(match_id=match.pk, worker="tests")
    result = MatchResult(
        game=match.game.slug, players=match.players, seed=match.seed, options=match.options, actions=[],
        seats=[SeatResult(bot=bot.name, score=0, place=place, outcome="ok", reason="", time_used_ms=1, log="")
               for bot, place in zip(bots, places, strict=True)],
        duration_s=0.1,
    )
    assert match_record_result(match_id=match.pk, token=claim.token, result=result)
    return match


def rated_field(*, names: Sequence[str] = ("top", "mid-a", "mid-b", "low"), games: int = 10) -> dict:
    """Four bots and a rated history (:func:`rated_result`) whose order is settled at both ends and a coin
    toss in the middle: ``top`` beats everyone ``games`` times, the two middle bots beat ``low`` as often
    and split ``games`` games between themselves evenly (identical records, so ``p_above`` between them
    is exactly 1/2). Returns the bots by name."""
    from ladder.models import Game

    game = Game.objects.get(slug="kingdomino")
    bots = {name: BotFactory(game=game, name=name) for name in names}
    top, mid_a, mid_b, low = (bots[name] for name in names)
    tournament = RatedTournamentFactory(game=game, bots=list(bots.values()))
    for _ in range(games):
        for winner, loser in ((top, mid_a), (top, mid_b), (top, low), (mid_a, low), (mid_b, low)):
            rated_result(bots=[winner, loser], places=[1, 2], tournament=tournament)
    for i in range(games):
        rated_result(bots=[mid_a, mid_b], places=[1, 2] if i % 2 else [2, 1], tournament=tournament)
    return bots


def make_zip(members: dict[str, bytes] | list[tuple[zipfile.ZipInfo | str, bytes]],
             compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of ``members`` (name or ``ZipInfo`` to bytes), written as given."""
    buffer = io.BytesIO()
    items = members.items() if isinstance(members, dict) else members
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in items:
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_with_members(*names: str, bot: bytes = FIRST_LEGAL_BOT) -> bytes:
    """A zip of a good ``bot.py`` (``bot``) and a one-byte member for each of ``names``, written as named:
    the poisoned uploads and bundles the archive checks must refuse."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", bot)
        for name in names:
            archive.writestr(name, b"1")
    return buffer.getvalue()

