"""Duplicate round robins: every deal (one seed) scheduled in every seat rotation of its bots, secret deal
seeds when rated, every rotation counted against the limits, and the standings per deal."""

from collections import defaultdict

import pytest

from ladder.core.errors import ServiceError
from ladder.core.quotas import QuotaExceeded
from ladder.core.rated_play import match_public_seed
from ladder.models import Match, Tournament
from ladder.selectors.tournaments import tournament_deals, tournament_page_data
from ladder.services.tournaments.round_robins import tournament_create
from ladder.services.tournaments.scheduling import derive_deal_seed, derive_seed
from tests.factories import StaffFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


def duplicate(bots, *, created_by=None, players=2, deals=2, **kwargs) -> Tournament:
    return tournament_create(created_by=created_by, game_slug="kingdomino", name="duplicate cup",
                             bot_ids=[b.id for b in bots], players_per_match=players, games_per_pairing=deals,
                             duplicate=True, **kwargs)


def rotations_by_deal(tournament: Tournament) -> dict[int, list[tuple[int, tuple[int, ...]]]]:
    """deal -> [(seed, seat order)] of its matches."""
    by_deal = defaultdict(list)
    for match in tournament.matches.prefetch_related("seats").order_by("index"):
        seating = tuple(seat.bot_id for seat in sorted(match.seats.all(), key=lambda seat: seat.position))
        by_deal[match.deal].append((match.seed, seating))
    return dict(by_deal)


def test_two_player_deals_are_played_in_both_orders_with_one_seed_each(bot_factory):
    bots = [bot_factory() for _ in range(3)]
    tournament = duplicate(bots, deals=2, seed=11)
    assert tournament.duplicate
    by_deal = rotations_by_deal(tournament)
    assert sorted(by_deal) == list(range(6))  # 3 pairings x 2 deals
    assert tournament.matches.count() == 12
    for deal, rotations in by_deal.items():
        (seed_a, order_a), (seed_b, order_b) = rotations
        assert seed_a == seed_b == derive_deal_seed(11, deal)
        assert order_b == order_a[::-1]
    assert len({rotations[0][0] for rotations in by_deal.values()}) == 6


def test_three_player_deals_are_played_in_the_three_cyclic_rotations(bot_factory):
    bots = [bot_factory() for _ in range(3)]
    tournament = duplicate(bots, players=3, deals=2, seed=5)
    by_deal = rotations_by_deal(tournament)
    assert sorted(by_deal) == [0, 1]
    ids = sorted(b.id for b in bots)
    for rotations in by_deal.values():
        assert len({seed for seed, _ in rotations}) == 1
        assert [order for _, order in rotations] == [tuple(ids[s:] + ids[:s]) for s in range(3)]
    assert by_deal[0][0][0] != by_deal[1][0][0]


def test_a_rated_duplicate_draws_one_secret_seed_per_deal_shown_once_the_tournament_finished(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = duplicate(bots, created_by=StaffFactory(), deals=3, rated=True)
    assert tournament.seed is None
    by_deal = rotations_by_deal(tournament)
    seeds = {deal: {seed for seed, _ in rotations} for deal, rotations in by_deal.items()}
    assert all(len(shared) == 1 for shared in seeds.values())
    drawn = [next(iter(shared)) for shared in seeds.values()]
    assert len(set(drawn)) == 3
    assert all(0 <= seed < 1 << 62 for seed in drawn)

    first, *rest = tournament.matches.select_related("tournament").order_by("index")
    finished_now(first)
    first.refresh_from_db()
    # Its deal's other rotation, still queued, shares the seed: it stays secret.
    assert match_public_seed(Match.objects.select_related("tournament").get(pk=first.pk)) is None
    for match in rest:
        finished_now(match)
    finished = Match.objects.select_related("tournament").get(pk=first.pk)
    assert finished.tournament.status == Tournament.Status.FINISHED
    assert match_public_seed(finished) == first.seed


def finished_now(match: Match) -> None:
    """Claim and record ``match`` on the workers' path, the first seat winning."""
    from bots.referee import MatchResult, SeatResult
    from ladder.services.play.matches import match_claim, match_record_result

    claim = match_claim(match_id=match.pk)
    assert claim is not None
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome="ok", reason="", time_used_ms=1, log="")
               for p, s in enumerate(claim.seats, start=1)],
        duration_s=0.1,
    )
    assert match_record_result(match_id=match.pk, token=claim.token, result=result)


def test_a_plain_round_robin_has_no_deals(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="cup", seed=3,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=2)
    assert not tournament.duplicate
    assert set(tournament.matches.values_list("deal", flat=True)) == {None}
    assert [m.seed for m in tournament.matches.order_by("index")] == [derive_seed(3, 0), derive_seed(3, 1)]


def test_the_match_limit_counts_every_rotation(bot_factory, settings):
    settings.TOURNAMENT_MAX_MATCHES = 7
    bots = [bot_factory() for _ in range(2)]
    with pytest.raises(ServiceError, match="would play 8 matches; the limit is 7") as refused:
        duplicate(bots, deals=4, seed=1)
    assert refused.value.field == "games_per_pairing"
    assert not Tournament.objects.exists()
    assert duplicate(bots, deals=3, seed=1).matches.count() == 6


def test_the_daily_quota_counts_every_rotation(bot_factory, user_factory, settings):
    settings.UNRATED_MATCHES_PER_DAY = 5
    ada = user_factory()
    bots = [bot_factory() for _ in range(2)]
    assert duplicate(bots, created_by=ada, deals=2, seed=1).matches.count() == 4
    # Two more deals are four more matches: past the five a day.
    with pytest.raises(QuotaExceeded):
        duplicate(bots, created_by=ada, deals=2, seed=2)
    assert Match.objects.count() == 4


# --- Standings per deal --------------------------------------------------------------------------------


def test_standings_give_each_pairs_points_per_deal(bot_factory):
    a, b, c = (bot_factory() for _ in range(3))
    tournament = TournamentFactory(duplicate=True, bots=[a, b, c])
    # Deal 0 (a, b): each wins from the first seat, so the deal is even.
    finished_match(bots=[a, b], tournament=tournament, deal=0, seed=70, places=[1, 2])
    finished_match(bots=[b, a], tournament=tournament, deal=0, seed=70, places=[1, 2])
    # Deal 1 (a, b): a wins both rotations.
    finished_match(bots=[a, b], tournament=tournament, deal=1, seed=71, places=[1, 2])
    finished_match(bots=[b, a], tournament=tournament, deal=1, seed=71, places=[2, 1])
    # Deal 2 (a, c): one rotation of two finished so far, a draw.
    finished_match(bots=[c, a], tournament=tournament, deal=2, seed=72, places=[1, 1])

    deals = tournament_deals(tournament=tournament)
    points = {row["deal"]: {line["bot_id"]: line["points"] for line in row["bots"]} for row in deals}
    assert points == {0: {a.id: 1.0, b.id: 1.0}, 1: {a.id: 2.0, b.id: 0.0}, 2: {a.id: 0.5, c.id: 0.5}}
    assert [(row["games"], row["rotations"], row["complete"]) for row in deals] == [
        (2, 2, True), (2, 2, True), (1, 2, False)]
    assert [line["bot"] for line in deals[1]["bots"]] == [a.name, b.name]
    assert tournament_page_data(tournament_id=tournament.id)["deals"] == deals


def test_a_tournament_that_is_not_duplicate_lists_no_deals(bot_factory):
    a, b = bot_factory(), bot_factory()
    tournament = TournamentFactory(bots=[a, b])
    finished_match(bots=[a, b], tournament=tournament)
    assert tournament_deals(tournament=tournament) == []
    assert tournament_page_data(tournament_id=tournament.id)["deals"] == []


def test_the_results_per_deal_take_three_queries_however_many_deals(bot_factory, django_assert_num_queries):
    a, b = bot_factory(), bot_factory()
    tournament = TournamentFactory(duplicate=True, bots=[a, b])
    for deal in range(4):
        finished_match(bots=[a, b], tournament=tournament, deal=deal, seed=deal)
        finished_match(bots=[b, a], tournament=tournament, deal=deal, seed=deal)
    with django_assert_num_queries(3):
        deals = tournament_deals(tournament=tournament)
    assert [row["deal"] for row in deals] == [0, 1, 2, 3] and all(row["complete"] for row in deals)
