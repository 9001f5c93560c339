"""What a played seat costs in the database: its log once, compressed with its decisions, whatever the bot
printed; and what is read back is exactly what the referee recorded."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.referee import SeatResult
from ladder.models import Seat
from ladder.selectors.matches import match_private_by_position
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import UserFactory, finished_match
from workers.execution import match_execute

pytestmark = pytest.mark.django_db

LOG_BYTES = 65536
GREEDY = (Path(__file__).resolve().parents[2] / "bots/examples/kingdomino/greedy_bot.py").read_bytes()
# Prints the whole cap in every decision, as hex lines: text zlib halves and no more, so that a second copy
# of it shows in the bytes stored.
CHATTY = b"""\
import random

rng = random.Random(7)
print("loading the chatty bot")


def act(observation, legal_actions):
    for _ in range(%d):
        print("%%063x" %% rng.getrandbits(252))
    return legal_actions[0]
""" % (LOG_BYTES // 64 + 1)


def stored_bytes(seat_id: int) -> int:
    """The bytes a seat's row holds in its columns as the database stores them (after TOAST's own
    compression), whatever the columns are."""
    table = Seat._meta.db_table
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        columns = [column.name for column in connection.introspection.get_table_description(cursor, table)]
        total = " + ".join(f"COALESCE(pg_column_size({quote(column)}), 0)" for column in columns)
        cursor.execute(f"SELECT {total} FROM {quote(table)} WHERE id = %s", [seat_id])
        return cursor.fetchone()[0]


def test_a_bot_printing_its_cap_in_every_decision_costs_its_log_once_compressed(bot_factory):
    greedy, chatty = bot_factory(code=GREEDY), bot_factory(code=CHATTY)
    tournament = tournament_create(created_by=UserFactory(), game_slug="kingdomino", name="chatter",
                                   bot_ids=[chatty.id, greedy.id], players_per_match=2, seed=3,
                                   limits={"log_bytes": LOG_BYTES})
    match = tournament.matches.get()
    assert match_execute(match_id=match.id) == "recorded"
    loud, quiet = match.seats.get(bot=chatty), match.seats.get(bot=greedy)
    assert (loud.outcome, quiet.outcome) == ("ok", "ok")
    assert "bytes of log dropped" in loud.log and len(loud.decisions) > 20
    # The records keep the first decision's text and the last one's, and a notice of what was dropped.
    assert all("bytes of log dropped" in d["log"] for d in loud.decisions)
    assert len(loud.decisions[0]["log"]) > LOG_BYTES / 2 and len(loud.decisions[-1]["log"]) > LOG_BYTES / 2
    log_alone = len(zlib.compress(loud.log.encode()))
    assert log_alone < 0.6 * LOG_BYTES
    # Not the log twice, nor uncompressed: the log once, compressed, and a few bytes per decision.
    assert stored_bytes(loud.id) < 1.1 * log_alone + 16 * len(loud.decisions) + 200
    assert stored_bytes(quiet.id) < 80 + 8 * len(quiet.decisions) + 200


# Any text, and what a bot's text turns into on the way: U+FFFD for invalid UTF-8, NUL and lone surrogates.
characters = st.one_of(st.characters(exclude_categories=()), st.sampled_from("\ufffd\ufffd\x00\n\n\né😀"))
texts = st.text(characters, max_size=200)
records = st.lists(st.fixed_dictionaries({"step": st.integers(0, 10_000), "ms": st.integers(0, 10**6),
                                          "log": texts}), max_size=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(logs=st.tuples(texts, texts), decisions=st.tuples(records, records), cut=st.integers(0, 200))
def test_what_the_referee_recorded_is_read_back_exactly(bot_factory, logs, decisions, cut):
    # The first seat's decisions are pieces of its log, as the referee's usually are.
    decisions = ([dict(d, log=logs[0][:cut] if n == 0 else d["log"]) for n, d in enumerate(decisions[0])],
                 decisions[1])
    bots = [bot_factory(), bot_factory()]
    match = finished_match(bots=bots, logs=list(logs), decisions=list(decisions))
    expected = [SeatResult(bot="b", score=0, place=1, outcome="ok", reason="", time_used_ms=0, log=log,
                           decisions=records) for log, records in zip(logs, decisions, strict=True)]
    seats = list(Seat.objects.filter(match=match).order_by("position"))
    assert [(seat.log, seat.decisions) for seat in seats] == [(e.log, e.decisions) for e in expected]
    staff = UserFactory(is_staff=True)
    assert match_private_by_position(match=match, user=staff) == {
        position: (e.log, e.decisions) for position, e in enumerate(expected)}


def test_staff_read_a_seats_log_and_decisions_in_the_admin(client, bot_factory):
    match = finished_match(bots=[bot_factory(), bot_factory()], logs=["loading\nplan <A>\n", ""],
                           decisions=[[{"step": 0, "ms": 12, "log": "plan <A>\n"}], []])
    seat = match.seats.get(position=0)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(f"/admin/ladder/seat/{seat.id}/change/")
    assert page.status_code == 200
    assert "loading<br>plan &lt;A&gt;<br>" in page.content.decode()
    assert "&#x27;ms&#x27;: 12" in page.content.decode()
