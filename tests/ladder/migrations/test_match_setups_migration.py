"""The migration that stores a match's options and limits once per setup: every distinct pair of the
matches becomes one ``MatchSetup`` row their matches point at, a match with neither points at none, and
going back copies each setup into its matches again."""

import pytest

from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0019_seat_fillfactor")]
AFTER = [("ladder", "0020_match_setups")]

TIGHT = {"move_ms": 250, "bank_ms": 0, "match_ms": 20000}
LOOSE = {"move_ms": 900, "bank_ms": 9000, "match_ms": 30000}
HARMONY = {"harmony": True}


@pytest.mark.django_db(transaction=True)
def test_each_distinct_pair_becomes_one_row_its_matches_point_at_and_back():
    old = migrate(BEFORE)
    Game, Tournament, Match = (old.get_model("ladder", name) for name in ("Game", "Tournament", "Match"))
    game = Game.objects.get(slug="kingdomino")
    cup = Tournament.objects.create(game=game, name="cup", kind="round_robin", players_per_match=2, seed=7)
    pairs = [(HARMONY, TIGHT), (HARMONY, TIGHT), (HARMONY, LOOSE), ({}, TIGHT), ({}, {})]
    stored = {index: Match.objects.create(tournament=cup, game=game, index=index, players=2, seed=index,
                                          options=options, limits=limits).pk
              for index, (options, limits) in enumerate(pairs)}
    try:
        new = migrate(AFTER)
        Match, MatchSetup = new.get_model("ladder", "Match"), new.get_model("ladder", "MatchSetup")
        setups = {index: Match.objects.get(pk=pk).setup_id for index, pk in stored.items()}
        assert setups[0] == setups[1] and setups[4] is None
        assert len({setups[0], setups[2], setups[3]}) == 3
        assert [(MatchSetup.objects.get(pk=setups[index]).options, MatchSetup.objects.get(pk=setups[index]).limits)
                for index in range(4)] == pairs[:4]
        # Found again by the model's own digest: scheduling under the same reuses the migrated setup.
        from ladder.models import MatchSetup as CurrentMatchSetup

        assert CurrentMatchSetup.objects.for_parts(options=dict(HARMONY), limits=dict(TIGHT)).pk == setups[0]

        back = migrate(BEFORE)
        Match = back.get_model("ladder", "Match")
        assert [(Match.objects.get(pk=stored[index]).options, Match.objects.get(pk=stored[index]).limits)
                for index in range(5)] == pairs
    finally:
        Match.objects.all().delete()
        latest = migrate_to_latest()
        latest.get_model("ladder", "Tournament").objects.all().delete()
        latest.get_model("ladder", "MatchSetup").objects.all().delete()
