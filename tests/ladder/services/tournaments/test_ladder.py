"""The continuous ladder's tick: work-conserving while it learns, at maintenance pace once settled, after
every other kind of work, with stored per-bot entries (seats, versions, recent games)."""

import hashlib
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import BotVersion, LadderEntry, Match, PairRecord, Seat, Tournament
from ladder.selectors.ladder import ladder_games_recent
from ladder.services.tournaments.ladder import (
    ladder_backlog_target,
    ladder_field,
    ladder_tick,
    ladder_tournament_get,
)
from ladder.services.tournaments.round_robins import tournament_create

pytestmark = pytest.mark.django_db


def _ladder():
    return Tournament.objects.get(kind="ladder", game__slug="kingdomino")


def _settle(bots, *, weight=4000.0, games=None, settings=None):
    """Pair records and entries as if every two of ``bots`` had played ``weight`` even games: every interval
    is then narrow and no bot is provisional."""
    game = bots[0].game
    ladder = ladder_tournament_get(game=game)
    now = timezone.now()
    ids = sorted(b.id for b in bots)
    PairRecord.objects.bulk_create([
        PairRecord(game=game, bot_low_id=a, bot_high_id=b, weight=weight, score=weight / 2, updated_at=now)
        for i, a in enumerate(ids) for b in ids[i + 1:]])
    for bot in bots:
        LadderEntry.objects.create(tournament=ladder, bot=bot, seat_counts=[10, 10], scheduled=20,
                                   last_scheduled_at=now, version=bot.versions.get(),
                                   version_games=games or settings.LADDER_PROVISIONAL_GAMES, recent={})
    return ladder


def test_tick_pairs_active_bots_at_low_priority(bot_factory):
    bots = [bot_factory() for _ in range(5)]
    idle = bot_factory(active=False)
    assert ladder_tick(matches_per_game=2, rng=random.Random(1)) == {"kingdomino": 2}
    matches = list(_ladder().matches.prefetch_related("seats"))
    assert {m.priority for m in matches} == {5} and {m.index for m in matches} == {0, 1}
    for match in matches:
        seated = [seat.bot_id for seat in match.seats.all()]
        assert len(seated) == len(set(seated)) == 2 and set(seated) <= {b.id for b in bots}
    assert idle.id not in Seat.objects.values_list("bot_id", flat=True)
    assert ladder_tick(matches_per_game=1, rng=random.Random(2)) == {"kingdomino": 1}
    assert _ladder().matches.count() == 3


def test_a_queued_tournament_match_comes_first(bot_factory):
    bots = [bot_factory() for _ in range(3)]
    tournament_create(created_by=None, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                      players_per_match=2)
    assert ladder_tick() == {} and ladder_tick(matches_per_game=2) == {}
    assert not Match.objects.filter(tournament__kind="ladder").exists()
    Match.objects.filter(tournament__name="cup").update(status="finished", finished_at=timezone.now())
    assert ladder_tick()["kingdomino"] > 0


def test_a_pending_upload_check_comes_first(bot_factory):
    bots = [bot_factory() for _ in range(3)]
    code = b"print('new')\n"
    BotVersion.objects.create(bot=bots[0], number=2, code=code, sha256=hashlib.sha256(code).hexdigest(),
                              size=len(code), kind="py", validation_status="pending")
    assert ladder_tick() == {}
    BotVersion.objects.filter(number=2).update(validation_status="rejected")
    assert ladder_tick()["kingdomino"] > 0


def test_tick_does_nothing_when_disabled_or_alone(bot_factory, settings):
    bot_factory()
    assert ladder_tick() == {}
    settings.LADDER_ENABLED = False
    bot_factory()
    assert ladder_tick() == {}


def test_ticks_with_exactly_two_bots_number_their_matches_in_turn(bot_factory):
    """The first tick leaves the ladder's highest index at 0: every later tick must number its matches
    after it, not collide with it."""
    bot_factory()
    bot_factory()
    for tick in range(12):
        assert ladder_tick(matches_per_game=1, rng=random.Random(tick)) == {"kingdomino": 1}
    assert sorted(_ladder().matches.values_list("index", flat=True)) == list(range(12))
    assert len(set(_ladder().matches.values_list("seed", flat=True))) == 12


def test_the_backlog_target_follows_the_pace_of_the_last_window(bot_factory, settings):
    settings.LADDER_RATE_WINDOW_S, settings.LADDER_LEAD_S = 10.0, 15.0
    settings.LADDER_MIN_BACKLOG, settings.LADDER_MAX_BACKLOG = 8, 200
    bot_factory(), bot_factory()
    now = timezone.now()
    assert ladder_backlog_target(now=now) == 8  # no pace known yet
    ladder_tick(matches_per_game=60, rng=random.Random(0))
    ids = list(_ladder().matches.order_by("id").values_list("id", flat=True))
    # 40 finished in the window (4 a second), 5 long ago, 3 running now.
    Match.objects.filter(id__in=ids[:40]).update(status="finished", finished_at=now - timedelta(seconds=5))
    Match.objects.filter(id__in=ids[40:45]).update(status="finished", finished_at=now - timedelta(seconds=60))
    Match.objects.filter(id__in=ids[45:48]).update(status="running", attempt_token="0" * 32,
                                                   lease_expires_at=now + timedelta(seconds=60))
    assert ladder_backlog_target(now=now) == 4 * 15 + 3
    settings.LADDER_MAX_BACKLOG = 50
    assert ladder_backlog_target(now=now) == 50


def test_a_learning_ladder_tops_the_queue_up_to_the_target_and_no_further(bot_factory, settings):
    settings.LADDER_MIN_BACKLOG = 12
    [bot_factory() for _ in range(6)]
    assert ladder_tick(rng=random.Random(0)) == {"kingdomino": 12}
    assert ladder_tick(rng=random.Random(1)) == {}
    # Five of them played: five places free.
    played = list(_ladder().matches.order_by("id").values_list("id", flat=True)[:5])
    Match.objects.filter(id__in=played).update(status="finished", finished_at=timezone.now() - timedelta(hours=1))
    assert ladder_tick(rng=random.Random(2)) == {"kingdomino": 5}


def test_a_settled_ladder_plays_at_maintenance_pace(bot_factory, settings):
    settings.LADDER_MAINTENANCE_PER_HOUR = 60.0
    bots = [bot_factory() for _ in range(4)]
    ladder = _settle(bots, settings=settings)
    now = timezone.now()
    field = ladder_field(game=bots[0].game, now=now)
    assert not field.learning and field.widest <= settings.LADDER_TARGET_HALF_WIDTH
    assert ladder_tick(now=now + timedelta(seconds=30)) == {}
    # One a minute: three minutes after the last, three are due.
    assert ladder_tick(now=now + timedelta(seconds=185), rng=random.Random(0)) == {"kingdomino": 3}
    assert ladder.matches.count() == 3
    assert ladder_tick(now=now + timedelta(seconds=200)) == {}


def test_a_wide_interval_or_a_new_version_wakes_the_ladder(bot_factory, settings):
    settings.LADDER_MIN_BACKLOG = 6
    bots = [bot_factory() for _ in range(4)]
    _settle(bots, settings=settings)
    now = timezone.now()
    assert ladder_tick(now=now + timedelta(seconds=10)) == {}
    code = b"# v2\n"
    BotVersion.objects.create(bot=bots[1], number=2, code=code, sha256=hashlib.sha256(code).hexdigest(),
                              size=len(code), kind="py", validation_status="accepted")
    field = ladder_field(game=bots[0].game, now=now)
    assert field.learning
    assert ladder_tick(now=now + timedelta(seconds=10), rng=random.Random(0)) == {"kingdomino": 6}
    # The new version plays first: it is in every group (it has had none of its provisional games).
    for match in _ladder().matches.prefetch_related("seats"):
        assert bots[1].id in {seat.bot_id for seat in match.seats.all()}
    assert set(Seat.objects.filter(bot=bots[1]).values_list("bot_version__number", flat=True)) == {2}
    entry = LadderEntry.objects.get(bot=bots[1])
    assert entry.version.number == 2 and entry.version_games == 6


def test_a_new_bot_with_no_games_wakes_a_settled_ladder(bot_factory, settings):
    settings.LADDER_MIN_BACKLOG = 4
    bots = [bot_factory() for _ in range(4)]
    _settle(bots, settings=settings)
    newcomer = bot_factory()
    assert ladder_tick(rng=random.Random(0)) == {"kingdomino": 4}
    assert all(newcomer.id in set(match.seats.values_list("bot_id", flat=True)) for match in _ladder().matches.all())


def test_entries_count_seats_versions_and_recent_games(bot_factory, settings):
    bots = [bot_factory() for _ in range(3)]
    ladder_tick(matches_per_game=9, rng=random.Random(4))
    entries = {e.bot_id: e for e in LadderEntry.objects.filter(tournament=_ladder())}
    for bot in bots:
        seats = list(Seat.objects.filter(bot=bot).order_by("position").values_list("position", flat=True))
        entry = entries[bot.id]
        assert entry.scheduled == len(seats) == entry.version_games == sum(entry.seat_counts)
        assert entry.seat_counts == [seats.count(0), seats.count(1)]
        assert entry.version.number == 1
        assert ladder_games_recent(entry, now=timezone.now()) == {"last_hour": len(seats), "last_day": len(seats)}
        assert ladder_games_recent(entry, now=timezone.now() + timedelta(hours=2)) == {"last_hour": 0,
                                                                                       "last_day": len(seats)}
        assert ladder_games_recent(entry, now=timezone.now() + timedelta(days=2)) == {"last_hour": 0, "last_day": 0}
    assert ladder_games_recent(None, now=timezone.now()) == {"last_hour": 0, "last_day": 0}


def test_a_bot_that_waited_past_the_bound_plays_next(bot_factory, settings):
    settings.LADDER_MAX_WAIT_S = 60.0
    bots = [bot_factory() for _ in range(6)]
    ladder = _settle(bots, settings=settings)
    for seed in range(8):
        waiting = bots[seed % 6]
        LadderEntry.objects.filter(tournament=ladder, bot=waiting).update(
            last_scheduled_at=timezone.now() - timedelta(minutes=5))
        ladder_tick(matches_per_game=1, rng=random.Random(seed))
        assert waiting.id in set(ladder.matches.order_by("-id").first().seats.values_list("bot_id", flat=True))


def test_unplayed_ladder_games_count_as_information(bot_factory):
    """A queued game narrows its bots' intervals in the next tick's eyes, so the tick does not choose the
    same games again while they wait."""
    bots = [bot_factory() for _ in range(4)]
    before = ladder_field(game=bots[0].game, now=timezone.now())
    ladder_tick(matches_per_game=20, rng=random.Random(0))
    after = ladder_field(game=bots[0].game, now=timezone.now())
    assert all(a.deviation < b.deviation for a, b in zip(
        sorted(after.candidates, key=lambda c: c.bot_id), sorted(before.candidates, key=lambda c: c.bot_id)))


def test_a_ladder_whose_order_is_certain_rests_though_a_runaway_winners_interval_stays_wide(bot_factory, settings):
    """A bot that beats everyone keeps a wide interval (how much stronger it is, only the prior bounds), but
    more of its games teach nothing of the order: the ladder rests. Two close bots still in doubt wake it."""
    from ladder.models import Rating

    strong, weak = bot_factory(), bot_factory()
    _settle([strong, weak], weight=300.0, settings=settings)
    Rating.objects.filter(bot=strong).update(elo=2300.0)
    Rating.objects.filter(bot=weak).update(elo=1200.0)
    field = ladder_field(game=strong.game, now=timezone.now())
    assert not field.learning and field.widest == 0.0
    assert max(c.deviation for c in field.candidates) > 100  # wide: 300 games at p(1 - p) ~ 0.002
    Rating.objects.filter(bot=weak).update(elo=2290.0)
    field = ladder_field(game=strong.game, now=timezone.now())
    assert field.learning and field.widest > settings.LADDER_TARGET_HALF_WIDTH
