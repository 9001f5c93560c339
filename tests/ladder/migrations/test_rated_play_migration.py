"""The migration to rated play: an existing ladder becomes rated and loses its public seed, and its matches
still waiting get secret seeds (theirs derived from that public seed); played matches keep theirs, and
round robins stay unrated with their seeds."""

import pytest

from ladder.services.tournaments.scheduling import derive_seed
from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0002_match_tournament_limits")]
AFTER = [("ladder", "0003_rated_play")]


@pytest.mark.django_db(transaction=True)
def test_an_existing_ladder_becomes_rated_and_its_waiting_matches_get_secret_seeds():
    old = migrate(BEFORE)
    Game = old.get_model("ladder", "Game")
    Tournament = old.get_model("ladder", "Tournament")
    Match = old.get_model("ladder", "Match")
    game = Game.objects.get(slug="kingdomino")
    ladder = Tournament.objects.create(game=game, name="ladder", kind="ladder", players_per_match=2, seed=99)
    cup = Tournament.objects.create(game=game, name="cup", kind="round_robin", players_per_match=2, seed=7)
    common = {"game": game, "players": 2}
    queued = Match.objects.create(tournament=ladder, index=0, seed=derive_seed(99, 0), status="queued", **common)
    played = Match.objects.create(tournament=ladder, index=1, seed=derive_seed(99, 1), status="finished",
                                  finished_at="2026-01-01T00:00:00Z", **common)
    benchmark = Match.objects.create(tournament=cup, index=0, seed=derive_seed(7, 0), status="queued", **common)
    try:
        new = migrate(AFTER)
        Tournament = new.get_model("ladder", "Tournament")
        Match = new.get_model("ladder", "Match")
        assert Tournament.objects.filter(pk=ladder.pk).values_list("rated", "seed").get() == (True, None)
        assert Tournament.objects.filter(pk=cup.pk).values_list("rated", "seed").get() == (False, 7)
        assert Match.objects.get(pk=queued.pk).seed not in (derive_seed(99, 0), None)
        assert Match.objects.get(pk=played.pk).seed == derive_seed(99, 1)
        assert Match.objects.get(pk=benchmark.pk).seed == derive_seed(7, 0)
    finally:
        Match.objects.all().delete()
        Tournament.objects.all().delete()
        migrate_to_latest()
