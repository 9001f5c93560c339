"""The migration that gives matches ``reserved_s``: the matches still to be played when it runs reserve
their worst case from their stored limits (the settings for what they lack), so that a user's budget of
worker time counts them from the first request after the deploy; played matches need none."""

import pytest

from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0009_storage_seat_logs")]
AFTER = [("ladder", "0010_worker_seconds")]


@pytest.mark.django_db(transaction=True)
def test_unplayed_matches_reserve_their_worst_case_and_played_ones_nothing(settings):
    settings.BOTS_MATCH_MS = 30000
    old = migrate(BEFORE)
    Game = old.get_model("ladder", "Game")
    Tournament = old.get_model("ladder", "Tournament")
    Match = old.get_model("ladder", "Match")
    game = Game.objects.get(slug="kingdomino")
    cup = Tournament.objects.create(game=game, name="cup", kind="round_robin", players_per_match=2, seed=7)
    stored = {"queued": Match.objects.create(tournament=cup, game=game, index=0, players=2, seed=1,
                                             limits={"start_ms": 1000, "match_ms": 4000}),
              "old": Match.objects.create(tournament=cup, game=game, index=1, players=3, seed=1, limits={}),
              "finished": Match.objects.create(tournament=cup, game=game, index=2, players=2, seed=1,
                                               status="finished", finished_at="2026-01-01T00:00:00Z",
                                               duration_s=0.2)}
    try:
        new = migrate(AFTER)
        Match = new.get_model("ladder", "Match")
        reserved = {name: Match.objects.get(pk=match.pk).reserved_s for name, match in stored.items()}
        # 2 x (1 s + 4 s) + 10 s; 3 x (5 s + 30 s from the settings) + 10 s; a played match counts its duration.
        assert reserved == {"queued": 20.0, "old": 115.0, "finished": None}
    finally:
        Match.objects.all().delete()
        migrate_to_latest().get_model("ladder", "Tournament").objects.all().delete()
