"""The bulk export's read (``ladder.selectors.exports``): the game looked up whether installed or not, and
each exportable match (finished, public, its seed showable) in id order as a plain dict with its seats and
actions, resumed after an id, cut at a limit, the same whatever the chunk size."""

from __future__ import annotations

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Game, Match
from ladder.selectors.exports import export_game_get, exported_matches
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    TournamentFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def history():
    """Two public unrated matches, one rated match, a rated deal's rotation whose tournament still runs, a
    queued match, a version comparison's finished match, and a finished match of another game."""
    a, b = BotFactory(), BotFactory()
    BotVersionFactory(bot=a)
    cup = TournamentFactory(bots=[a, b])
    first = finished_match(bots=[a, b], tournament=cup)
    second = finished_match(bots=[b, a], tournament=cup)
    rated = finished_match(bots=[a, b])
    league = RatedTournamentFactory(bots=[a, b])
    MatchFactory(tournament=league)
    finished_match(bots=[a, b], tournament=league, deal=0, seed=5)
    MatchFactory(tournament=cup)
    comparison = comparison_create(user=a.owner, bot_id=a.id, baseline=1, candidate=2, max_games=10)
    now = timezone.now()
    comparison.matches.filter(pk=comparison.matches.first().pk).update(status="finished", started_at=now,
                                                                         finished_at=now)
    dice_king = Game.objects.get(slug="dice_king")
    c, d = BotFactory(game=dice_king), BotFactory(game=dice_king)
    finished_match(bots=[c, d], tournament=TournamentFactory(game=dice_king, bots=[c, d]))
    return {"bots": (a, b), "exported": [first.id, second.id, rated.id], "first": first}


def ids(**kwargs) -> list[int]:
    return [match["id"] for match in exported_matches(game=Game.objects.get(slug="kingdomino"), **kwargs)]


def test_only_finished_public_matches_with_showable_seeds_are_exported_in_id_order(history):
    assert ids() == history["exported"]


def test_an_exported_match_carries_what_a_replay_needs_and_nothing_private(history):
    first = history["first"]
    a, b = history["bots"]
    [match] = [m for m in exported_matches(game=first.game) if m["id"] == first.id]
    assert set(match) == {"id", "game", "rules_version", "tournament_id", "rated", "deal", "players", "seed",
                          "options", "finished_at", "seats", "actions"}
    assert (match["game"], match["tournament_id"], match["rated"], match["players"], match["seed"]) == (
        "kingdomino", first.tournament_id, False, 2, first.seed)
    assert match["rules_version"] == first.rules_version and match["options"] == first.options
    assert match["actions"] == Match.objects.get(pk=first.id).actions and match["actions"]
    seats = match["seats"]
    assert [(s["position"], s["bot_id"], s["bot"], s["owner"], s["version"]) for s in seats] == [
        (0, a.id, a.name, a.owner.username, 2), (1, b.id, b.name, b.owner.username, 1)]
    assert sorted(s["place"] for s in seats) in ([1, 2], [1, 1]) and all(s["outcome"] == "ok" for s in seats)
    assert not {"log", "reason", "code"} & set(seats[0])


def test_the_export_resumes_after_an_id_and_stops_at_a_limit(history):
    exported = history["exported"]
    assert ids(after=exported[0]) == exported[1:]
    assert ids(after=exported[-1]) == []
    assert ids(limit=2) == exported[:2]
    assert ids(after=exported[0], limit=1) == exported[1:2]
    assert ids(limit=0) == []


@pytest.mark.parametrize("chunk", [1, 2, 500])
def test_the_chunk_size_changes_nothing_read(history, chunk):
    assert ids(chunk=chunk) == history["exported"]
    assert ids(chunk=chunk, limit=2) == history["exported"][:2]


def test_a_rated_deals_rotations_are_exported_once_its_tournament_finished(history):
    rotation = Match.objects.get(deal=0, tournament__rated=True)
    league = rotation.tournament
    league.matches.filter(status="queued").update(status="finished", started_at=timezone.now(),
                                                  finished_at=timezone.now())
    league.status, league.finished_at = "finished", timezone.now()
    league.save(update_fields=["status", "finished_at"])
    assert rotation.id in ids()


def test_the_game_is_found_installed_or_not():
    assert export_game_get(slug="kingdomino").slug == "kingdomino"
    Game.objects.filter(slug="dice_king").update(available=False)
    assert export_game_get(slug="dice_king").slug == "dice_king"
    with pytest.raises(ServiceError, match="no game 'chess'") as refusal:
        export_game_get(slug="chess")
    assert refusal.value.status == 404


def test_a_game_without_history_exports_nothing():
    assert list(exported_matches(game=Game.objects.get(slug="draftosaurus"))) == []
