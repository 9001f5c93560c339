"""``ladder.services.tournaments.round_robins``: scheduling a round robin (every pairing with rotated seats,
the newest accepted versions, seeds derived from the tournament's, the duplicate's deals sharing a seed),
every refusal of ``tournament_create`` with the input at fault, the entrants' checks, and
``tournament_finish_if_done``. Messages are published only on commit, which these tests never reach."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.messaging.enqueue import broker_waiting_match_ids
from ladder.models import BotVersion, Game, Match, Tournament
from ladder.services.play.matches import match_claim
from ladder.services.tournaments.round_robins import (
    current_versions,
    entrants_check,
    game_options_check,
    tournament_create,
    tournament_finish_if_done,
)
from ladder.services.tournaments.scheduling import derive_deal_seed, derive_seed
from tests.factories import BotFactory, BotVersionFactory, StaffFactory, UserFactory
from tests.held_elsewhere import held_elsewhere

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def create(bots, **fields) -> Tournament:
    return tournament_create(**{"created_by": UserFactory(), "game_slug": "kingdomino", "name": "cup",
                                "bot_ids": [bot.id for bot in bots], "players_per_match": 2, **fields})


def seatings(tournament) -> list[tuple[int, ...]]:
    return [tuple(match.seats.order_by("position").values_list("bot_id", flat=True))
            for match in tournament.matches.order_by("index")]


def test_every_pair_plays_each_game_with_seats_rotated_and_seeds_from_the_tournaments():
    bots = [BotFactory() for _ in range(3)]
    tournament = create(bots, games_per_pairing=2, seed=77, name="  spring cup  ")
    assert tournament.name == "spring cup" and not tournament.rated and tournament.seed == 77
    assert set(tournament.bots.all()) == set(bots)
    played = seatings(tournament)
    assert len(played) == 6
    assert Counter(frozenset(seating) for seating in played) == {frozenset((a.id, b.id)): 2
                                                                 for a, b in combinations(bots, 2)}
    assert Counter(seating[0] for seating in played) == {bot.id: 2 for bot in bots}  # each bot seated first twice
    for match in tournament.matches.all():
        assert match.status == Match.Status.QUEUED and match.seed == derive_seed(77, match.index)
        assert match.options == Game.objects.get(slug="kingdomino").default_options


def test_a_round_robins_matches_are_written_once_before_a_worker_claims_them(
        private_queue, django_capture_on_commit_callbacks):
    """Inserted already marked sent (``enqueued_at``), in the transaction that creates them: publishing their
    messages after the commit writes no match row again (which would also hold the rows a worker is
    claiming meanwhile)."""
    bots = [BotFactory() for _ in range(3)]
    with CaptureQueriesContext(connection) as statements:
        with django_capture_on_commit_callbacks(execute=True):
            tournament = create(bots, games_per_pairing=2)
    updates = [query["sql"] for query in statements.captured_queries
               if query["sql"].startswith("UPDATE") and '"ladder_match"' in query["sql"]]
    assert updates == []
    assert tournament.matches.filter(enqueued_at__isnull=True).count() == 0
    assert broker_waiting_match_ids() == frozenset(tournament.matches.values_list("id", flat=True))


def test_a_bot_plays_with_its_newest_accepted_version():
    a, b = BotFactory(), BotFactory()
    newest = BotVersionFactory(bot=a)
    BotVersionFactory(bot=a, validation_status=BotVersion.Validation.PENDING)
    assert current_versions([a.id, b.id]) == {a.id: newest.id, b.id: b.versions.get().id}
    match = create([a, b]).matches.get()
    assert match.seats.get(bot=a).bot_version_id == newest.id


def test_a_duplicate_round_robin_plays_each_deal_from_every_seat_with_one_seed():
    a, b = BotFactory(), BotFactory()
    tournament = create([a, b], games_per_pairing=3, duplicate=True, seed=5)
    matches = list(tournament.matches.order_by("index"))
    assert len(matches) == 6
    by_deal: dict[int, list[Match]] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 3
    for deal, rotations in by_deal.items():
        assert {match.seed for match in rotations} == {derive_deal_seed(5, deal)}
        assert {tuple(match.seats.order_by("position").values_list("bot_id", flat=True))
                for match in rotations} == {(a.id, b.id), (b.id, a.id)}


def test_a_random_seed_is_drawn_when_none_is_given():
    bots = [BotFactory(), BotFactory()]
    assert create(bots).seed != create(bots).seed


def refusal(bots, **fields) -> ServiceError:
    count = Tournament.objects.count()
    with pytest.raises(ServiceError) as caught:
        create(bots, **fields)
    assert Tournament.objects.count() == count
    return caught.value


@pytest.mark.parametrize(("fields", "field", "words"), [
    ({"name": "  "}, "name", "give the tournament a name"),
    ({"players_per_match": 1}, "players_per_match", "not 1"),
    ({"players_per_match": 9}, "players_per_match", "not 9"),
    ({"games_per_pairing": 0}, "games_per_pairing", "at least 1"),
    ({"players_per_match": 3}, "bots", "needs at least 3 bots"),
    ({"game_slug": "chess"}, "game", "unknown game"),
    ({"options": [1, 2]}, "options", "JSON object"),
    ({"options": {"no_such_option": 1}}, "options", "refused these settings"),
])
def test_requests_refused_with_the_input_at_fault(fields, field, words):
    error = refusal([BotFactory(), BotFactory()], **fields)
    assert error.field == field and words in error.message and error.status == 400


def test_more_matches_than_the_server_allows_is_refused(settings):
    settings.TOURNAMENT_MAX_MATCHES = 5
    error = refusal([BotFactory(), BotFactory()], games_per_pairing=6)
    assert error.field == "games_per_pairing" and "would play 6 matches; the limit is 5" in error.message


def test_a_rated_tournament_is_for_staff_only_and_takes_no_seed():
    bots = [BotFactory(), BotFactory()]
    assert refusal(bots, rated=True).status == 403
    assert refusal(bots, rated=True, created_by=StaffFactory(), seed=3).field == "seed"
    rated = create(bots, rated=True, created_by=StaffFactory())
    assert rated.rated and rated.seed is None


def test_the_entrants_check_names_every_bot_at_fault():
    kingdomino = Game.objects.get(slug="kingdomino")
    good = BotFactory()
    other_game = BotFactory(game=Game.objects.exclude(slug="kingdomino").first())
    inactive = BotFactory(active=False)
    pending = BotFactory()
    pending.versions.update(validation_status=BotVersion.Validation.PENDING)

    def words(bot_ids) -> str:
        with pytest.raises(ServiceError) as caught:
            entrants_check(bot_ids=bot_ids, game=kingdomino, field="entrants")
        assert caught.value.field == "entrants"
        return caught.value.message

    assert "listed once" in words([good.id, good.id])
    assert "no bots with ids [999999]" in words([good.id, 999999])
    assert f"another game than kingdomino: {other_game.name}" in words([good.id, other_game.id])
    assert f"inactive: {inactive.name}" in words([good.id, inactive.id])
    assert f"no accepted version: {pending.name}" in words([good.id, pending.id])
    assert entrants_check(bot_ids=[good.id], game=kingdomino, field="entrants") == {good.id: good}


def test_options_are_merged_over_the_games_defaults():
    game = Game.objects.get(slug="kingdomino")
    assert game_options_check(game=game, players=2, options=None) == game.default_options
    assert game_options_check(game=game, players=2, options={}) == game.default_options


@pytest.mark.django_db(transaction=True)
def test_the_last_two_matches_recorded_at_once_finish_the_tournament():
    """Two recordings of a round robin's last two matches, each in its transaction: the first one's look
    sees the other match still running and holds the tournament until it commits; the second one's look
    waits for that and then finds nothing left (a look that did not wait would see the first match still
    running, and nobody would finish the tournament)."""
    import threading

    tournament = create([BotFactory(), BotFactory()], games_per_pairing=2)
    first, second = tournament.matches.order_by("index")
    assert match_claim(match_id=first.pk, worker="a") and match_claim(match_id=second.pk, worker="b")
    looks = []

    def record(match_id):
        Match.objects.filter(pk=match_id).update(status=Match.Status.FINISHED, finished_at=timezone.now())
        looks.append(tournament_finish_if_done(tournament_id=tournament.id))

    holder, release = held_elsewhere(lambda: record(first.pk))
    threading.Timer(0.3, release.set).start()
    with transaction.atomic():
        record(second.pk)
    holder.join(10)
    assert looks == [False, True]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_tournament_finishes_once_when_no_match_is_queued_or_running():
    tournament = create([BotFactory(), BotFactory()], games_per_pairing=2)
    first, second = tournament.matches.order_by("index")
    assert not tournament_finish_if_done(tournament_id=tournament.id)
    Match.objects.filter(pk=first.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now())
    assert match_claim(match_id=second.pk, worker="tests") is not None  # running now
    assert not tournament_finish_if_done(tournament_id=tournament.id)
    Match.objects.filter(pk=second.pk).update(status=Match.Status.FAILED, finished_at=timezone.now())
    assert tournament_finish_if_done(tournament_id=tournament.id)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished_at is not None
    assert not tournament_finish_if_done(tournament_id=tournament.id)
