"""The stored standings, head-to-head records and finished counts
(``ladder.services.ratings.tournament_records``) equal what ``ladder.ratings`` computes from the tournament's
finished matches: kept by the recorder match by match (forfeits, draws, 2 to 4 players, a retried match
counted once, a stale result not at all), rebuilt from the history in SQL, and backfilled by migration
0012."""

from __future__ import annotations

import dataclasses

import pytest
from django.db import connection
from django.db.models import Q
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.models import Match, Seat, TournamentHeadToHead, TournamentStanding, TournamentTally
from ladder.ratings.bradley_terry import fit_bradley_terry, match_pairwise_results
from ladder.ratings.tables import PlacedSeat, crosstable, standings
from ladder.selectors.matches import finished_seat_results
from ladder.selectors.tournaments import tournament_crosstable, tournament_progress, tournament_standings
from ladder.services.play.matches import match_claim, match_record_result, match_release_after_fault
from ladder.services.ratings.tournament_records import records_rebuild
from tests.factories import (
    BotFactory,
    FinishedMatchFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    TournamentFactory,
    bulk_insert,
)
from tests.ladder.migration_steps import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db


def _matches(tournament) -> list[list[PlacedSeat]]:
    return [seats for seats in finished_seat_results(Q(match__tournament=tournament)).values() if len(seats) >= 2]


def computed_standings(tournament) -> list[dict]:
    """The standings as computed from every finished match (what the pages read before they were stored),
    without the fit: ``standings`` with the bots' names."""
    names = {bot.id: bot.name for bot in BotFactory._meta.model.objects.all()}
    return [{**dataclasses.asdict(line), "bot": names[line.bot_id]} for line in standings(_matches(tournament))]


def computed_fit(tournament) -> dict:
    table = standings(_matches(tournament))
    entered = sorted(tournament.bots.values_list("id", flat=True))
    played = [line.bot_id for line in table]
    return fit_bradley_terry(match_pairwise_results(_matches(tournament)),
                                     bots=played + [b for b in entered if b not in played])


def assert_stored_equal_computed(tournament) -> None:
    stored = tournament_standings(tournament=tournament)
    played = [line for line in stored if line["games"]]
    assert [{k: v for k, v in line.items() if not k.startswith("rating")} for line in played] \
        == computed_standings(tournament)
    fit = computed_fit(tournament)
    for line in stored:
        expected = fit[line["bot_id"]]
        assert (line["rating"], line["rating_low"], line["rating_high"]) == pytest.approx(
            (expected.rating, expected.low, expected.high), rel=1e-6, abs=1e-3)
    expected_crosstable = crosstable(_matches(tournament))
    rows = tournament_crosstable(tournament=tournament)["rows"]
    assert {(row["bot_id"], cell["opponent_id"]): (cell["wins"], cell["draws"], cell["losses"])
            for row in rows for cell in row["results"]} == {
        (a, b): (h.wins, h.draws, h.losses) for a, row in expected_crosstable.items() for b, h in row.items()}
    finished = Match.objects.filter(tournament=tournament, status="finished").count()
    assert tournament_progress(tournament=tournament).finished == finished


def _result(match, bots, places, outcomes, scores):
    from bots.referee import MatchResult, SeatResult

    return MatchResult(
        game=match.game.slug, players=len(bots), seed=match.seed, options=match.options, actions=[],
        seats=[SeatResult(bot=bot.name, score=score, place=place, outcome=outcome,
                          reason="" if outcome == "ok" else "timeout on move 1", time_used_ms=1, log="")
               for bot, place, outcome, score in zip(bots, places, outcomes, scores, strict=True)],
        duration_s=0.1)


def record(tournament, bots, places, outcomes, scores, *, retried: bool = False) -> Match:
    """A match of ``tournament`` recorded as a worker records it; ``retried``: its first attempt faulted
    and was requeued, and that attempt's stale result comes after the second attempt's."""
    match = MatchFactory(tournament=tournament, players=len(bots))
    for position, bot in enumerate(bots):
        SeatFactory(match=match, position=position, bot=bot)
    claim = match_claim(match_id=match.pk, worker="tests")
    result = _result(match, bots, places, outcomes, scores)
    if retried:
        assert match_release_after_fault(match_id=match.pk, token=claim.token, reason="sandbox fault") == "requeued"
        stale, claim = claim, match_claim(match_id=match.pk, worker="tests")
    assert match_record_result(match_id=match.pk, token=claim.token, result=result)
    assert not match_record_result(match_id=match.pk, token=claim.token, result=result)
    if retried:
        assert not match_record_result(match_id=match.pk, token=stale.token, result=result)
    return match


def _match_plans(pool: int):
    @st.composite
    def plan(draw):
        players = draw(st.integers(2, 4))
        seats = draw(st.lists(st.integers(0, pool - 1), min_size=players, max_size=players, unique=True))
        places = draw(st.lists(st.integers(1, players), min_size=players, max_size=players))
        forfeits = draw(st.lists(st.booleans(), min_size=players, max_size=players))
        scores = draw(st.lists(st.integers(-5, 60), min_size=players, max_size=players))
        retried = draw(st.booleans())
        return seats, places, ["timeout" if f else "ok" for f in forfeits], scores, retried
    return plan()


POOL = 5


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(plans=st.lists(_match_plans(POOL), min_size=0, max_size=7), rated=st.booleans(),
       waiting=st.booleans())
def test_the_recorded_standings_equal_those_computed_from_the_matches(plans, rated, waiting):
    bots = [BotFactory() for _ in range(POOL)]
    entered = bots + ([BotFactory(name=f"waiting-{bots[0].id}")] if waiting else [])
    tournament = (RatedTournamentFactory if rated else TournamentFactory)(bots=entered)
    for seats, places, outcomes, scores, retried in plans:
        record(tournament, [bots[i] for i in seats], places, outcomes, scores, retried=retried)
    assert_stored_equal_computed(tournament)
    # The rebuild from the history writes the same rows.
    before = _rows(tournament)
    records_rebuild(tournament_ids=[tournament.id], now=timezone.now())
    assert _rows(tournament) == before


def _rows(tournament) -> dict:
    def values(model, *fields):
        return sorted(model.objects.filter(tournament=tournament).values_list(*fields))

    return {
        "standings": values(TournamentStanding, "bot_id", "games", "points", "wins", "draws", "losses", "forfeits",
                            "score", "first_match_id", "first_position"),
        "pairs": [(*row[:5], pytest.approx(row[5]), pytest.approx(row[6])) for row in values(
            TournamentHeadToHead, "bot_low_id", "bot_high_id", "wins", "draws", "losses", "weight", "score")],
        "tally": values(TournamentTally, "finished"),
    }


def test_bots_tied_on_every_count_are_listed_as_first_seen_whatever_order_the_results_came_in():
    """Two bots with identical records share a rank, the one first seen in the matches (by id) first:
    here the later match is recorded first."""
    a, b, c, d = (BotFactory(name=name) for name in "abcd")
    tournament = TournamentFactory(bots=[a, b, c, d])
    early = MatchFactory(tournament=tournament, players=2)
    for position, bot in enumerate((d, c)):
        SeatFactory(match=early, position=position, bot=bot)
    record(tournament, [b, a], [1, 2], ["ok", "ok"], [3, 1])
    claim = match_claim(match_id=early.pk, worker="tests")
    assert match_record_result(match_id=early.pk, token=claim.token,
                               result=_result(early, [d, c], [1, 2], ["ok", "ok"], [3, 1]))
    lines = tournament_standings(tournament=tournament)
    assert [(line["bot"], line["rank"]) for line in lines] == [("d", 1), ("b", 1), ("c", 3), ("a", 3)]
    assert_stored_equal_computed(tournament)


def test_the_rebuild_repairs_rows_a_changed_history_left_behind():
    bots = BotFactory.create_batch(3)
    tournament = TournamentFactory(bots=bots)
    match = record(tournament, bots, [1, 2, 3], ["ok"] * 3, [9, 5, 1])
    record(tournament, bots[:2], [2, 1], ["ok", "timeout"], [4, 4])
    # An operator corrects a result by hand: the stored rows no longer agree, until the rebuild.
    match.seats.filter(position=2).update(place=1)
    records_rebuild(tournament_ids=[tournament.id], now=timezone.now())
    assert_stored_equal_computed(tournament)


def _join_plans(plan: dict) -> list[tuple[str, list[str]]]:
    """Every join of an EXPLAIN (FORMAT JSON) plan: its node type and its inputs' node types."""
    joins = []
    children = plan.get("Plans", [])
    if plan["Node Type"] in ("Nested Loop", "Hash Join", "Merge Join"):
        joins.append((plan["Node Type"], [child["Node Type"] for child in children]))
    for child in children:
        joins.extend(_join_plans(child))
    return joins


def test_the_rebuild_never_loops_over_every_seat_for_each_seat_when_the_statistics_are_stale():
    """The statistics say the tournament has no matches (analysed before its history was loaded): the
    rebuild's join of each seat to the others of its match still reads the seats once, not once per seat
    (80 seconds for 20,000 seats)."""
    bots = BotFactory.create_batch(4)
    earlier = TournamentFactory(bots=bots)
    bulk_insert(Match, [FinishedMatchFactory.build(game=earlier.game, tournament=earlier) for _ in range(30)])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Match._meta.db_table}, {Seat._meta.db_table}")
    tournament = TournamentFactory(bots=bots)
    matches = bulk_insert(Match, [FinishedMatchFactory.build(game=tournament.game, tournament=tournament, index=i)
                                  for i in range(600)])
    bulk_insert(Seat, [Seat(match=match, position=position, bot=bots[(i + position) % 4],
                            bot_version=bots[(i + position) % 4].versions.get(), score=position, place=position + 1,
                            outcome="ok")
                       for i, match in enumerate(matches) for position in range(2)])
    plans = []

    def explain_first(execute, sql, params, many, context):
        if sql.lstrip().startswith("WITH seated"):
            raw = context["cursor"].cursor
            raw.execute("EXPLAIN (FORMAT JSON) " + sql, params)
            plans.append(raw.fetchone()[0][0]["Plan"])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(explain_first):
        records_rebuild(tournament_ids=[tournament.id], now=timezone.now())
    joins = [join for plan in plans for join in _join_plans(plan)]
    assert len(plans) == 2 and joins
    assert [join for join in joins if join[0] == "Nested Loop" and "CTE Scan" in join[1]] == []
    assert sum(line["games"] for line in tournament_standings(tournament=tournament)) == 1200
    assert_stored_equal_computed(tournament)


BEFORE = [("ladder", "0012_ladder_entries")]
AFTER = [("ladder", "0013_read_records")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_backfills_every_tournament_from_its_finished_matches():
    old = migrate(BEFORE)
    models = {name: old.get_model("ladder", name) for name in (
        "Game", "Tournament", "Match", "Seat", "Bot", "BotVersion")}
    User = old.get_model("auth", "User")
    game = models["Game"].objects.get(slug="kingdomino")
    owner = User.objects.create(username="migrating")
    bots = []
    for name in ("north", "east", "south", "west"):
        bot = models["Bot"].objects.create(owner=owner, game=game, name=name)
        models["BotVersion"].objects.create(bot=bot, number=1, code=b"x", sha256="0" * 64, size=1,
                                            validation_status="accepted")
        bots.append(bot)
    cup = models["Tournament"].objects.create(game=game, name="cup", players_per_match=2, seed=1)
    ladder = models["Tournament"].objects.create(game=game, name="ladder", kind="ladder", players_per_match=2,
                                                 rated=True)
    history = [  # tournament, seats (bot index, place, outcome, score), status
        (cup, [(0, 1, "ok", 10), (1, 2, "ok", 5)], "finished"),
        (cup, [(0, 1, "ok", 7), (1, 1, "ok", 7)], "finished"),  # a draw
        (cup, [(2, 1, "ok", 3), (3, 2, "timeout", 9)], "finished"),  # a forfeit
        (cup, [(0, 1, "ok", 3), (2, 2, "ok", 2)], "queued"),  # not played: not counted
        (cup, [(1, 1, "ok", 1)], "finished"),  # one seat: not in the table, but finished
        (ladder, [(0, 3, "ok", 1), (1, 1, "ok", 20), (2, 1, "ok", 20), (3, 2, "crash", 0)], "finished"),
        (ladder, [(3, 2, "ok", 4), (1, 1, "ok", 8)], "failed"),
    ]
    for index, (tournament, seats, status) in enumerate(history):
        done = {"finished_at": timezone.now()} if status in ("finished", "failed") else {}
        match = models["Match"].objects.create(tournament=tournament, game=game, index=index, players=len(seats),
                                               seed=index, status=status, **done)
        for position, (bot, place, outcome, score) in enumerate(seats):
            played = status == "finished"
            models["Seat"].objects.create(match=match, position=position, bot=bots[bot],
                                          bot_version_id=models["BotVersion"].objects.get(bot=bots[bot]).id,
                                          place=place if played else None, outcome=outcome if played else "",
                                          score=score if played else None)
    try:
        migrate(AFTER)
        from ladder.models import Tournament

        for tournament in Tournament.objects.all():
            assert_stored_equal_computed(tournament)
        assert dict(TournamentTally.objects.values_list("tournament__name", "finished")) == {"cup": 4, "ladder": 1}
        lines = tournament_standings(tournament=Tournament.objects.get(name="ladder"))
        # Seats 1 and 2 share first: 2.5 points each; the crash is last whatever its place says.
        assert [(line["bot"], line["points"], line["forfeits"]) for line in lines] == [
            ("east", 2.5, 0), ("south", 2.5, 0), ("north", 1.0, 0), ("west", 0.0, 1)]
    finally:
        latest = migrate_to_latest()
        latest.get_model("ladder", "Match").objects.all().delete()
        latest.get_model("ladder", "Tournament").objects.all().delete()
        latest.get_model("ladder", "Bot").objects.all().delete()
        User.objects.filter(username="migrating").delete()
