"""The migration that gives the ladder its entries: each bot's ladder games so far, per seat, with its newest
seated version and that version's games, counted from the ladder's matches (round robins count nothing)."""

import hashlib

import pytest

from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0011_pair_records")]
AFTER = [("ladder", "0012_ladder_entries")]


@pytest.mark.django_db(transaction=True)
def test_entries_count_each_bots_ladder_seats_and_its_newest_version():
    old = migrate(BEFORE)
    User = old.get_model("auth", "User")
    Game, Tournament = old.get_model("ladder", "Game"), old.get_model("ladder", "Tournament")
    Bot, BotVersion = old.get_model("ladder", "Bot"), old.get_model("ladder", "BotVersion")
    Match, Seat = old.get_model("ladder", "Match"), old.get_model("ladder", "Seat")
    game = Game.objects.get(slug="kingdomino")
    owner = User.objects.create(username="ada")
    bots, versions = [], {}
    for name in ("a", "b"):
        bot = Bot.objects.create(owner=owner, game=game, name=name)
        bots.append(bot)
        for number in (1, 2):
            code = f"# {name} {number}".encode()
            versions[name, number] = BotVersion.objects.create(
                bot=bot, number=number, code=code, sha256=hashlib.sha256(code).hexdigest(), size=len(code),
                kind="py", validation_status="accepted")
    ladder = Tournament.objects.create(game=game, name="ladder", kind="ladder", players_per_match=2, rated=True)
    cup = Tournament.objects.create(game=game, name="cup", kind="round_robin", players_per_match=2, seed=7)
    # Ladder: a plays seat 0 twice with v1 then once with v2 in seat 1; b the other seats, always v1.
    tables = [(ladder, ("a", 1), ("b", 1)), (ladder, ("a", 1), ("b", 1)), (ladder, ("b", 1), ("a", 2)),
              (cup, ("a", 2), ("b", 1))]
    for index, (tournament, *seats) in enumerate(tables):
        match = Match.objects.create(tournament=tournament, game=game, index=index, players=2, seed=index)
        for position, (name, number) in enumerate(seats):
            Seat.objects.create(match=match, position=position, bot=bots["ab".index(name)],
                                bot_version=versions[name, number])
    try:
        new = migrate(AFTER)
        LadderEntry = new.get_model("ladder", "LadderEntry")
        entries = {e.bot_id: e for e in LadderEntry.objects.all()}
        assert set(entries) == {bots[0].id, bots[1].id}
        a, b = entries[bots[0].id], entries[bots[1].id]
        assert (a.tournament_id, a.scheduled, a.seat_counts) == (ladder.id, 3, [2, 1])
        assert (a.version_id, a.version_games) == (versions["a", 2].id, 1)
        assert (b.scheduled, b.seat_counts, b.version_id, b.version_games) == (3, [1, 2], versions["b", 1].id, 3)
        assert a.last_scheduled_at is not None and a.recent == {}
    finally:
        migrate_to_latest()
        from ladder.models import Bot as LiveBot
        from ladder.models import Match as LiveMatch
        from ladder.models import Tournament as LiveTournament

        LiveMatch.objects.all().delete()
        LiveTournament.objects.all().delete()
        LiveBot.objects.all().delete()
