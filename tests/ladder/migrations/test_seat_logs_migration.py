"""The migration that packs each seat's log and decisions into one compressed column: every stored seat
reads the same log and records after it (and after it is reversed) as before, in batches, and a seat that
printed nothing and took no decision stores nothing."""

import importlib

import pytest

from ladder import seat_logs
from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0008_comparisons")]
AFTER = [("ladder", "0009_storage_seat_logs")]

HOSTILE = "crash \ufffd in <script>\n\u00e9t\u00e9 \U0001f600 \ufffd\ufffd\n"
SEATS = [
    # Whole log, and decisions that are pieces of it.
    ("loading\nplan A\nplan B\n", [{"step": 0, "ms": 12, "log": "plan A\n"}, {"step": 2, "ms": 30, "log": "plan B\n"}]),
    # A bot that prints nothing but decides.
    ("", [{"step": 1, "ms": 5, "log": ""}, {"step": 3, "ms": 7, "log": ""}]),
    # Played before decisions were recorded.
    (HOSTILE, []),
    # Not played yet.
    ("", []),
    # Text the cap cut, with a notice of its own in the record.
    (HOSTILE * 3, [{"step": 0, "ms": 1, "log": HOSTILE + "[... 40 bytes of log dropped ...]\n" + HOSTILE}]),
]


@pytest.mark.django_db(transaction=True)
def test_every_seat_reads_the_same_log_and_decisions_after_the_migration_and_after_its_reversal(monkeypatch):
    # Batches of two, so that five seats take three.
    monkeypatch.setattr(importlib.import_module("ladder.migrations.0009_storage_seat_logs"), "BATCH", 2)
    old = migrate(BEFORE)
    Game, User = old.get_model("ladder", "Game"), old.get_model("auth", "User")
    Bot, BotVersion = old.get_model("ladder", "Bot"), old.get_model("ladder", "BotVersion")
    Tournament, Match, Seat = (old.get_model("ladder", name) for name in ("Tournament", "Match", "Seat"))
    game = Game.objects.get(slug="kingdomino")
    owner = User.objects.create(username="migrated-owner")
    cup = Tournament.objects.create(game=game, name="cup", kind="round_robin", players_per_match=2, seed=7)
    ids = []
    for n, (log, decisions) in enumerate(SEATS):
        bot = Bot.objects.create(owner=owner, game=game, name=f"migrated{n}")
        version = BotVersion.objects.create(bot=bot, number=1, code=b"x", sha256=f"{n:064x}", size=1, kind="py",
                                            validation_status="accepted")
        match = Match.objects.create(tournament=cup, game=game, index=n, players=1, seed=n, status="finished",
                                     finished_at="2026-01-01T00:00:00Z")
        ids.append(Seat.objects.create(match=match, position=0, bot=bot, bot_version=version, log=log,
                                       decisions=decisions).pk)
    try:
        new = migrate(AFTER)
        packed = dict(new.get_model("ladder", "Seat").objects.filter(pk__in=ids).values_list("pk", "logs"))
        assert [seat_logs.unpack(packed[pk]) for pk in ids] == [seat_logs.SeatLogs(*seat) for seat in SEATS]
        assert packed[ids[3]] is None
        assert all(bytes(packed[pk])[0] == seat_logs.FORMAT_VERSION for pk in ids if pk != ids[3])

        old = migrate(BEFORE)
        Seat = old.get_model("ladder", "Seat")
        rows = {pk: (log, decisions) for pk, log, decisions in
                Seat.objects.filter(pk__in=ids).values_list("pk", "log", "decisions")}
        assert [rows[pk] for pk in ids] == SEATS
    finally:
        latest = migrate_to_latest()
        for name in ("Seat", "Match", "Tournament", "BotVersion", "Bot"):
            latest.get_model("ladder", name).objects.all().delete()
        latest.get_model("auth", "User").objects.filter(username="migrated-owner").delete()
