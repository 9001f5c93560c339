"""A match's options and limits are stored once per setup (``MatchSetup``) and shared by the matches
scheduled under them: a tournament's matches, a game's ladder matches, a comparison's games. The match
row keeps the setup's key, so its size does not grow with the options and the dozen limits."""

import random
import threading

import pytest
from django.db import connection

from ladder.models import Match, MatchSetup, Tournament
from ladder.selectors.exports import exported_matches
from ladder.services.play.matches import match_claim_many
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.tournaments.ladder import ladder_tick
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import BotFactory, BotVersionFactory, MatchFactory


def round_robin(bots, **kwargs):
    return tournament_create(created_by=None, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                             players_per_match=2, seed=7, **kwargs)


@pytest.mark.django_db
def test_a_tournaments_matches_share_one_stored_copy_of_their_options_and_limits():
    cup = round_robin(BotFactory.create_batch(5), games_per_pairing=2, limits={"move_ms": 300},
                      options={"harmony": True})
    matches = list(cup.matches.all())
    assert len(matches) == 20
    assert {match.setup_id for match in matches} == {matches[0].setup_id}
    assert MatchSetup.objects.count() == 1
    assert matches[0].limits["move_ms"] == 300 and matches[0].options == cup.options
    assert matches[0].options["harmony"] is True
    assert all((match.options, match.limits) == (matches[0].options, matches[0].limits) for match in matches)


@pytest.mark.django_db
def test_the_same_setup_is_one_row_whoever_schedules_it_and_other_options_or_limits_another():
    bots = BotFactory.create_batch(3)
    first, again = round_robin(bots, limits={"move_ms": 300}), round_robin(bots, limits={"move_ms": 300})
    tighter = round_robin(bots, limits={"move_ms": 200})
    harmony = round_robin(bots, limits={"move_ms": 300}, options={"harmony": True})
    setups = {name: set(tournament.matches.values_list("setup_id", flat=True))
              for name, tournament in (("first", first), ("again", again), ("tighter", tighter),
                                       ("harmony", harmony))}
    assert setups["first"] == setups["again"] and len(setups["first"]) == 1
    assert len(set.union(*setups.values())) == 3
    assert MatchSetup.objects.count() == 3


@pytest.mark.django_db
def test_ladder_matches_of_one_tick_and_the_next_share_their_games_setup(settings):
    settings.LADDER_MAX_BACKLOG = 100
    BotFactory.create_batch(4)
    ladder_tick(matches_per_game=2, rng=random.Random(3))
    ladder_tick(matches_per_game=2, rng=random.Random(4))
    ladder = Tournament.objects.get(kind="ladder", game__slug="kingdomino")
    assert ladder.matches.count() == 4
    assert ladder.matches.values("setup_id").distinct().count() == 1
    assert ladder.matches.first().options == ladder.options


@pytest.mark.django_db
def test_a_comparisons_games_share_its_setup():
    bot = BotFactory()
    baseline, candidate = bot.versions.get(), BotVersionFactory(bot=bot, number=2)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=baseline.number,
                                   candidate=candidate.number, max_games=10)
    games = list(comparison.matches.all())
    assert games and {game.setup_id for game in games} == {games[0].setup_id}
    assert games[0].options == comparison.options and games[0].limits["move_ms"] > 0


@pytest.mark.django_db
def test_a_claim_reads_the_options_and_limits_of_the_matches_setup():
    cup = round_robin(BotFactory.create_batch(3), limits={"move_ms": 250, "bank_ms": 0}, options={"dynasty": True})
    claims = match_claim_many(match_ids=list(cup.matches.values_list("id", flat=True)), worker="w")
    assert len(claims) == 3
    for claim in claims:
        match = Match.objects.get(pk=claim.match_id)
        assert (claim.options, claim.limits) == (match.options, match.limits)
    assert {(claim.limits["move_ms"], claim.limits["bank_ms"], claim.options["dynasty"]) for claim in claims} \
        == {(250, 0, True)}


@pytest.mark.django_db
def test_the_export_carries_each_matchs_options():
    cup = round_robin(BotFactory.create_batch(2), options={"harmony": True})
    match = cup.matches.get()
    Match.objects.filter(pk=match.pk).update(status="finished", finished_at=match.created_at, actions=[])
    exported = list(exported_matches(game=cup.game))
    assert [each["options"] for each in exported if each["id"] == match.id] == [cup.options]


@pytest.mark.django_db
def test_options_and_limits_set_on_a_match_are_saved_and_updated_as_its_setup():
    match = MatchFactory(options={"dynasty": True})
    assert match.options == {"dynasty": True} and match.limits == {}
    match.limits = {"move_ms": 200, "bank_ms": 1000}
    match.save(update_fields=["limits"])
    stored = Match.objects.get(pk=match.pk)
    assert (stored.options, stored.limits) == ({"dynasty": True}, {"move_ms": 200, "bank_ms": 1000})
    Match.objects.filter(pk=match.pk).update(limits={"move_ms": 100})
    assert (Match.objects.get(pk=match.pk).options, Match.objects.get(pk=match.pk).limits) == \
        ({"dynasty": True}, {"move_ms": 100})
    Match.objects.filter(pk=match.pk).update(options={}, limits={})
    assert Match.objects.get(pk=match.pk).setup_id is None


@pytest.mark.django_db
def test_an_update_of_one_part_keeps_each_matchs_other_part():
    first, second = MatchFactory(options={"dynasty": True}), MatchFactory(options={"harmony": True})
    assert Match.objects.filter(pk__in=[first.pk, second.pk]).update(limits={"move_ms": 100}) == 2
    assert Match.objects.get(pk=first.pk).options == {"dynasty": True}
    assert Match.objects.get(pk=second.pk).options == {"harmony": True}
    assert {Match.objects.get(pk=pk).limits["move_ms"] for pk in (first.pk, second.pk)} == {100}


def test_a_setups_digest_is_the_same_for_equal_parts_in_any_key_order_and_tells_the_parts_apart():
    assert MatchSetup.digest_of(options={"a": 1}, limits={"move_ms": 1, "bank_ms": 2}) \
        == MatchSetup.digest_of(options={"a": 1}, limits={"bank_ms": 2, "move_ms": 1})
    assert MatchSetup.digest_of(options={}, limits={"move_ms": 1}) \
        != MatchSetup.digest_of(options={"move_ms": 1}, limits={})


@pytest.mark.django_db(transaction=True)
def test_two_schedulers_writing_the_same_new_setup_at_once_share_the_one_row():
    limits = {"move_ms": 321, "bank_ms": 4321}
    barrier, found, errors = threading.Barrier(4), [], []

    def schedule() -> None:
        try:
            barrier.wait(timeout=10)
            found.append(MatchSetup.objects.for_parts(options={}, limits=limits).id)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=schedule) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert len(found) == 4 and len(set(found)) == 1
    assert MatchSetup.objects.filter(digest=MatchSetup.digest_of(options={}, limits=limits)).count() == 1


@pytest.mark.django_db
def test_a_scheduled_match_row_carries_neither_its_options_nor_its_limits():
    cup = round_robin(BotFactory.create_batch(2), limits={"move_ms": 300})
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_size(m.*) FROM ladder_match m WHERE m.tournament_id = %s", [cup.id])
        (row_bytes,) = cursor.fetchone()
        cursor.execute("SELECT pg_column_size(options) + pg_column_size(limits) FROM ladder_matchsetup")
        (setup_bytes,) = cursor.fetchone()
    # The setup's own values alone are larger than a scheduled match's whole row without them.
    assert setup_bytes > 400 and row_bytes < 250
