"""``ladder.core.database``, the plumbing of plain SQL run on PostgreSQL: batched statements commit with the
last one only in the outermost transaction and their errors surface as Django's; rows travel as one array
per column in a text the same for any number of rows, and rows inserted that way hold what ``bulk_create``
writes; data-modifying statements combine into one, run in their order; a statement's text is built once
per way of binding; JSON parameters and columns round-trip."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.core import database
from ladder.models import Match, MatchSetup, Seat
from tests.factories import BotFactory, MatchFactory, SeatFactory

pytestmark = pytest.mark.django_db


def execute(sql: str, params: list) -> tuple[int, list[tuple]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount, (cursor.fetchall() if cursor.description else [])


def set_worker(match: Match, worker: str) -> None:
    """A statement of the batch: sets the match's worker (counts are unknown until the batch is read)."""
    with database.statement_cursor() as cursor:
        cursor.execute(f"UPDATE {database.table_name(Match)} SET worker = %s WHERE id = %s", [worker, match.pk])


def test_table_and_column_names_are_quoted():
    assert database.table_name(Match) == '"ladder_match"'
    assert database.column_name("index") == '"index"'


def test_no_commit_with_the_batch_inside_an_enclosing_transaction():
    match = MatchFactory()
    with transaction.atomic(), database.statements_batched(), connection.cursor() as cursor:
        set_worker(match, "w1")
        assert database.commit_batched(cursor) is False  # the test's own transaction encloses this one
    match.refresh_from_db()
    assert match.worker == "w1"


@pytest.mark.django_db(transaction=True)
def test_the_outermost_transaction_commits_with_its_batch_and_errors_surface_as_djangos():
    match = MatchFactory()
    with transaction.atomic(), connection.cursor() as cursor:
        with database.statements_batched():
            set_worker(match, "w1")
            committed = database.commit_batched(cursor)
    assert committed == database.pipelines_supported()
    match.refresh_from_db()
    assert match.worker == "w1"
    seat = SeatFactory(match=match, position=0)
    seats = database.table_name(Seat)
    with pytest.raises(IntegrityError), transaction.atomic():
        with database.statements_batched():
            with database.statement_cursor() as batched:
                batched.execute(f"UPDATE {seats} SET score = %s WHERE id = %s", [1, seat.id])
            execute(f"UPDATE {seats} SET match_id = NULL WHERE id = %s", [seat.id])
    seat.refresh_from_db()
    assert seat.score is None  # the batch rolled back as a whole
    # The transaction the batch began (its BEGIN sent with it) is over, and the connection is as Django
    # leaves it after any atomic block: in autocommit, ready for the next transaction.
    assert connection.get_autocommit() and not connection.in_atomic_block
    with transaction.atomic():
        seat.score = 2
        seat.save(update_fields=["score"])
    seat.refresh_from_db()
    assert seat.score == 2


@pytest.mark.django_db(transaction=True)
def test_statements_sent_together_outside_a_transaction_are_one_transaction_of_their_own():
    assert not connection.in_atomic_block and database.implicit_transactions() == database.pipelines_supported()
    with database.statement_cursor() as first, database.statement_cursor() as second:
        with database.statements_batched():
            first.execute("SELECT txid_current()", [])
            second.execute("SELECT txid_current()", [])
        assert (first.fetchall() == second.fetchall()) == database.pipelines_supported()
    with transaction.atomic():
        assert database.implicit_transactions() is False


def test_rows_travel_as_one_array_per_column_in_one_text_for_any_number_of_rows():
    one, one_params = database.rows_source(Seat, ("id", "score"), [(7, 1.5)])
    three, three_params = database.rows_source(Seat, ("id", "score"), [(7, 1.5), (8, None), (9, 0.0)])
    assert one == three and "unnest(" in one
    assert three_params == [[7, 8, 9], [1.5, None, 0.0]]  # in the rows' order
    none, none_params = database.rows_source(Seat, ("id", "score"), [], name="w")
    assert none.startswith("w (id, score) AS ") and none_params == [[], []]
    assert database.array_placeholder() == ("%b" if database.prepares_statements() else "%s")


def test_data_modifying_statements_run_combined_as_one():
    match = MatchFactory()
    first, second = SeatFactory(match=match, position=0), SeatFactory(match=match, position=1)
    seats = database.table_name(Seat)
    source, params = database.rows_source(Seat, ("id", "score"), [(first.id, 3.0)])
    with CaptureQueriesContext(connection) as queries:
        database.execute_combined([
            (f"WITH {source} UPDATE {seats} SET score = v.score FROM v WHERE {seats}.id = v.id", params),
            (f"UPDATE {seats} SET place = %s WHERE id = %s", [1, second.id]),
        ])
    assert len(queries.captured_queries) == 1
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.score, first.place, second.score, second.place) == (3.0, None, None, 1)
    with CaptureQueriesContext(connection) as queries:
        database.execute_combined([])  # nothing to run
    assert queries.captured_queries == []


def test_a_statements_text_is_built_once_per_way_of_binding(monkeypatch):
    built = []

    @database.statement_text
    def text() -> str:
        built.append(database.array_placeholder())
        return f"SELECT {database.array_placeholder()}::int[]"

    options = connection.settings_dict["OPTIONS"]
    monkeypatch.setitem(options, "prepare_threshold", 2)  # bound on the server
    assert text() == text() == "SELECT %b::int[]"
    monkeypatch.setitem(options, "prepare_threshold", None)  # bound on the client (a pooler in between)
    assert text() == text() == "SELECT %s::int[]"
    monkeypatch.setitem(options, "prepare_threshold", 2)
    assert text() == "SELECT %b::int[]"
    assert built == ["%b", "%s"]


def test_json_parameters_and_columns_round_trip():
    assert database.from_db_json('{"a": [1, 2]}') == {"a": [1, 2]}
    assert database.from_db_json(b"[3]") == [3]
    assert database.from_db_json({"already": "decoded"}) == {"already": "decoded"}
    # Values as stored, whatever their size (orjson, for one, reads integers past 64 bits as floats).
    assert database.from_db_json('{"big": 123456789012345678901234567890}') == {"big": 123456789012345678901234567890}
    assert database.from_db_json('{"x": 1.5, "s": "\\u00e9"}') == {"x": 1.5, "s": "\u00e9"}
    match = MatchFactory()
    execute(f"UPDATE {database.table_name(MatchSetup)} SET options = %s WHERE id = %s",
            [database.db_json(MatchSetup, "options", {"x": 1}), match.setup_id])
    match = Match.objects.select_related("setup").get(pk=match.pk)
    assert match.options == {"x": 1}
    _, [(read,)] = execute(f"SELECT options FROM {database.table_name(MatchSetup)} WHERE id = %s", [match.setup_id])
    assert database.from_db_json(read) == {"x": 1}


def test_rows_inserted_as_arrays_hold_what_bulk_create_writes():
    template = MatchFactory()
    now = timezone.now()

    def unsaved(index: int) -> Match:
        return Match(game_id=template.game_id, tournament=template.tournament, index=index, players=2, deal=7,
                     seed=2**40 + index, options={"variant": "x", "n": [1, 2]}, rules_version=3,
                     limits={"move_ms": 250}, reserved_s=1.5, priority=4, enqueued_at=now)

    inserted = dict(database.insert_rows(Match, [unsaved(100), unsaved(101)], returning=("index", "id")))
    (created,) = Match.objects.bulk_create([unsaved(102)])
    bot = BotFactory(game=template.game)
    version = bot.versions.get()
    database.insert_rows(Seat, [Seat(match_id=inserted[100], position=0, bot=bot, bot_version=version)])
    Seat.objects.bulk_create([Seat(match_id=created.id, position=0, bot=bot, bot_version=version)])
    skip = {"id", "index", "seed", "created_at", "updated_at"}
    fields = [field.attname for field in Match._meta.concrete_fields if field.attname not in skip]
    rows = {match.index: match for match in Match.objects.filter(id__in=[*inserted.values(), created.id])}
    assert set(rows) == {100, 101, 102} and rows[101].seed == 2**40 + 101
    for index in (100, 101):
        assert {name: getattr(rows[index], name) for name in fields} == {name: getattr(rows[102], name) for name in fields}
        assert rows[index].created_at >= now and rows[index].updated_at >= now
    seat_fields = [field.attname for field in Seat._meta.concrete_fields if field.attname not in {"id", "match_id"}]
    ours, theirs = Seat.objects.get(match_id=inserted[100]), Seat.objects.get(match_id=created.id)
    assert {name: getattr(ours, name) for name in seat_fields} == {name: getattr(theirs, name) for name in seat_fields}
    assert database.insert_rows(Seat, []) == []
