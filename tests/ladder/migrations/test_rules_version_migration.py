"""The migration that gives matches a ``rules_version``: every match stored before it was played under the
only rules there were, so each gets its installed game's current version; a game no longer installed
keeps NULL."""

import pytest

import engines
from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0004_botversion_validation_log")]
AFTER = [("ladder", "0005_match_rules_version")]


@pytest.mark.django_db(transaction=True)
def test_stored_matches_get_their_games_current_rules_version():
    old = migrate(BEFORE)
    Game = old.get_model("ladder", "Game")
    Tournament = old.get_model("ladder", "Tournament")
    Match = old.get_model("ladder", "Match")
    games = {slug: Game.objects.get(slug=slug) for slug in ("kingdomino", "dice_king")}
    retired = Game.objects.create(slug="retired_game", title="Retired", min_players=2, max_players=2,
                                  available=False)
    matches = {}
    for slug, game in [*games.items(), ("retired_game", retired)]:
        cup = Tournament.objects.create(game=game, name=f"cup {slug}", kind="round_robin", players_per_match=2,
                                        seed=7)
        matches[slug] = Match.objects.create(tournament=cup, game=game, index=0, players=2, seed=1,
                                             status="finished", finished_at="2026-01-01T00:00:00Z")
    try:
        new = migrate(AFTER)
        Match = new.get_model("ladder", "Match")
        versions = {slug: Match.objects.get(pk=match.pk).rules_version for slug, match in matches.items()}
        assert versions == {"kingdomino": engines.get("kingdomino").rules_version,
                            "dice_king": engines.get("dice_king").rules_version, "retired_game": None}
    finally:
        Match.objects.all().delete()
        new_or_old = migrate_to_latest()
        new_or_old.get_model("ladder", "Tournament").objects.all().delete()
        new_or_old.get_model("ladder", "Game").objects.filter(slug="retired_game").delete()
