"""Rated and unrated play: only the server's choice of games moves leaderboard ratings, rated matches draw
secret seeds, and the daily quota of unrated matches holds."""

import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.core.errors import ServiceError
from ladder.core.quotas import QuotaExceeded, unrated_matches_quota
from ladder.models import Match, Rating, RatingChange, Seat, Tournament
from ladder.services.play.matches import match_claim, match_record_result
from ladder.services.tournaments.ladder import ladder_tick, ladder_tournament_get
from ladder.services.tournaments.round_robins import tournament_create
from ladder.services.tournaments.scheduling import derive_seed
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


def record(match_id: int, places=(1, 2)) -> None:
    """Claim and record ``match_id`` on the workers' path, the first seat winning."""
    claim = match_claim(match_id=match_id)
    assert claim is not None
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome="ok", reason="", time_used_ms=1, log="")
               for s, p in zip(claim.seats, places, strict=True)],
        duration_s=0.1,
    )
    assert match_record_result(match_id=match_id, token=claim.token, result=result)


def rating_rows() -> list[tuple]:
    return sorted(Rating.objects.values_list("bot_id", "elo", "games", "wins", "draws", "losses"))


def test_a_users_round_robin_with_a_chosen_seed_leaves_every_leaderboard_rating_alone(bot_factory, user_factory):
    ada = user_factory()
    own = [bot_factory(owner=ada) for _ in range(2)]
    other = bot_factory()  # another user's bot: anyone's active bot may be benchmarked against
    before = rating_rows()
    tournament = tournament_create(created_by=ada, game_slug="kingdomino", name="farm", seed=11,
                                   bot_ids=[b.id for b in [*own, other]], players_per_match=2, games_per_pairing=2)
    assert not tournament.rated
    for match_id in tournament.matches.values_list("id", flat=True):
        record(match_id)
    assert tournament.matches.filter(status="finished").count() == 6
    assert rating_rows() == before
    assert not RatingChange.objects.exists()
    assert not Seat.objects.filter(match__tournament=tournament).exclude(rating_before=None, rating_after=None)
    assert Seat.objects.filter(match__tournament=tournament).exclude(place=None).count() == 12


def test_a_staff_rated_round_robin_moves_ratings_once_per_match(bot_factory, user_factory):
    bots = [bot_factory() for _ in range(3)]
    tournament = tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="cup",
                                   bot_ids=[b.id for b in bots], players_per_match=2, rated=True)
    for match_id in tournament.matches.values_list("id", flat=True):
        record(match_id)
    assert RatingChange.objects.count() == 6
    assert sum(Rating.objects.filter(bot__in=bots).values_list("games", flat=True)) == 6
    assert not Seat.objects.filter(match__tournament=tournament, rating_after=None).exists()


def test_only_staff_start_rated_tournaments_and_never_with_a_chosen_seed(bot_factory, user_factory):
    bots = [bot_factory() for _ in range(2)]
    common = {"game_slug": "kingdomino", "name": "cup", "bot_ids": [b.id for b in bots], "players_per_match": 2}
    with pytest.raises(ServiceError) as refused:
        tournament_create(created_by=bots[0].owner, rated=True, **common)
    assert refused.value.status == 403 and "only staff" in refused.value.message
    with pytest.raises(ServiceError) as refused:
        tournament_create(created_by=StaffFactory(), rated=True, seed=11, **common)
    assert refused.value.status == 400 and refused.value.field == "seed"
    assert "secret" in refused.value.message
    assert not Tournament.objects.exists()


def test_rated_matches_draw_fresh_seeds_that_nothing_public_derives(bot_factory, user_factory):
    bots = [bot_factory() for _ in range(3)]
    staff = StaffFactory()
    first, second = (tournament_create(created_by=staff, game_slug="kingdomino", name=name, rated=True,
                                       bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=2)
                     for name in ("one", "two"))
    assert first.seed is None and second.seed is None
    seeds = list(Match.objects.values_list("seed", flat=True))
    assert len(set(seeds)) == len(seeds) == 12
    assert all(0 <= seed < 1 << 62 for seed in seeds)


def test_an_unrated_round_robin_derives_its_seeds_from_its_own(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = tournament_create(created_by=bots[0].owner, game_slug="kingdomino", name="mine", seed=11,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=2)
    assert list(tournament.matches.order_by("index").values_list("seed", flat=True)) == [
        derive_seed(11, 0), derive_seed(11, 1)]


def test_the_ladder_is_rated_has_no_seed_and_its_matches_draw_secret_seeds(bot_factory):
    bots = [bot_factory() for _ in range(4)]
    assert ladder_tick(matches_per_game=2) == {"kingdomino": 2}
    ladder = ladder_tournament_get(game=bots[0].game)
    assert ladder.rated and ladder.seed is None
    seeds = list(ladder.matches.values_list("seed", flat=True))
    assert len(set(seeds)) == 2
    for match_id in ladder.matches.values_list("id", flat=True):
        record(match_id)
    assert RatingChange.objects.count() == 4


def test_the_database_holds_the_ladder_rated_and_seeds_to_unrated_tournaments(bot_factory):
    game = bot_factory().game
    for unfit in ({"kind": "ladder", "rated": False, "seed": 1}, {"rated": True, "seed": 1}, {"seed": None}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Tournament.objects.create(game=game, name="x", players_per_match=2, **unfit)


def test_rebuild_ratings_replays_only_rated_matches(bot_factory, user_factory, settings):
    settings.RATING_PROVISIONAL_GAMES = 2
    bots = [bot_factory() for _ in range(3)]
    ids = [b.id for b in bots]
    rated = tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="rated",
                              rated=True, bot_ids=ids, players_per_match=2, games_per_pairing=2)
    unrated = tournament_create(created_by=bots[0].owner, game_slug="kingdomino", name="mine", seed=3,
                                bot_ids=ids, players_per_match=2, games_per_pairing=2)
    for index, match_id in enumerate(Match.objects.order_by("?").values_list("id", flat=True)):
        record(match_id, places=(1, 2) if index % 3 else (2, 1))
    incremental = rating_rows()
    history = list(RatingChange.objects.values_list("match_id", "bot_id", "before", "after"))
    # A seat of an unrated match rated by an older rule: the rebuild clears it and never counts it.
    Seat.objects.filter(match__tournament=unrated).update(rating_before=1500.0, rating_after=1600.0)
    call_command("rebuild_ratings", "kingdomino")
    assert rating_rows() == incremental
    assert list(RatingChange.objects.values_list("match_id", "bot_id", "before", "after")) == history
    assert {match_id for match_id, *_ in history} == set(rated.matches.values_list("id", flat=True))
    assert not Seat.objects.filter(match__tournament=unrated).exclude(rating_before=None, rating_after=None)


def test_the_daily_quota_of_unrated_matches_refuses_with_the_wait(bot_factory, settings):
    settings.UNRATED_MATCHES_PER_DAY = 5
    bots = [bot_factory() for _ in range(2)]
    owner = bots[0].owner
    common = {"game_slug": "kingdomino", "bot_ids": [b.id for b in bots], "players_per_match": 2}
    tournament_create(created_by=owner, name="one", games_per_pairing=3, **common)
    # Two hours ago for the first three: they leave the window in 22 hours.
    Match.objects.update(created_at=timezone.now() - timedelta(hours=2))
    tournament_create(created_by=owner, name="two", games_per_pairing=1, **common)
    quota = unrated_matches_quota(user=owner)
    assert (quota.limit, quota.used, quota.left, quota.period) == (5, 4, 1, "day")
    with pytest.raises(QuotaExceeded) as refused:
        tournament_create(created_by=owner, name="three", games_per_pairing=2, **common)
    assert refused.value.status == 429
    assert "at most 5 matches per day in unrated tournaments" in refused.value.message
    assert 22 * 3600 - 60 <= refused.value.retry_after_s <= 22 * 3600
    assert Tournament.objects.count() == 2
    # A whole day's quota is not enough: no wait helps, so it is a plain refusal.
    with pytest.raises(ServiceError) as too_big:
        tournament_create(created_by=owner, name="four", games_per_pairing=6, **common)
    assert too_big.value.status == 400 and "at most 5 matches per day" in too_big.value.message
    # Another user's quota is their own, and rated tournaments do not count.
    tournament_create(created_by=bots[1].owner, name="theirs", games_per_pairing=5, **common)


@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_cannot_both_take_the_last_of_the_quota(bot_factory, settings):
    settings.UNRATED_MATCHES_PER_DAY = 3
    bots = [bot_factory() for _ in range(2)]
    owner = bots[0].owner
    common = {"created_by": owner, "game_slug": "kingdomino", "bot_ids": [b.id for b in bots],
              "players_per_match": 2, "games_per_pairing": 2}
    outcome = {}

    def second_request():
        try:
            tournament_create(name="second", **common)
            outcome["second"] = "created"
        except QuotaExceeded:
            outcome["second"] = "refused"
        finally:
            connection.close()

    with transaction.atomic():
        tournament_create(name="first", **common)
        racer = threading.Thread(target=second_request)
        racer.start()
        racer.join(timeout=1.0)
        # The first request holds the owner's row until it commits: the second waits for it.
        assert racer.is_alive()
    racer.join(timeout=30)
    assert outcome == {"second": "refused"}
    assert list(Tournament.objects.values_list("name", flat=True)) == ["first"]
