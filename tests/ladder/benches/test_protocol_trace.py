"""The wire protocol's trace counts statements and round trips as the server sees them."""

import pytest
from django.db import connection, transaction

from ladder.benches.protocol_trace import protocol_traced
from ladder.core import database

pytestmark = pytest.mark.django_db(transaction=True)  # transactions of the test's own, begun and ended here


def test_a_statement_alone_is_one_round_trip_and_a_batch_of_three_is_one_too():
    with protocol_traced() as alone:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    with protocol_traced() as batch:
        with database.statement_cursor() as a, database.statement_cursor() as b, \
                database.statement_cursor() as c, database.statements_batched():
            for cursor in (a, b, c):
                cursor.execute("SELECT 2")
    assert (alone.round_trips, alone.statements) == (1, 1)
    assert (batch.round_trips, batch.statements) == (1, 3)
    assert alone.parsed("SELECT 1") and not alone.parsed("BEGIN")


def test_a_transaction_begun_by_a_batch_sends_its_begin_with_it_not_in_a_round_trip_of_its_own():
    """psycopg begins a transaction with a BEGIN it waits for before the first statement; a batch that is
    a transaction's first sends the BEGIN with its statements: one round trip fewer, the same rows."""
    with protocol_traced() as by_itself:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT txid_current()")
            cursor.execute("SELECT txid_current()")
    with protocol_traced() as batched:
        with transaction.atomic(), database.statement_cursor() as cursor:
            with database.statements_batched():
                cursor.execute("SELECT txid_current()")
            [(inside,)] = cursor.fetchall()
            with connection.cursor() as again:
                again.execute("SELECT txid_current()")
                assert again.fetchone() == (inside,), "one transaction"
    assert by_itself.parsed("BEGIN") and batched.parsed("BEGIN")
    # The same two statements: the BEGIN alone, each statement, the COMMIT; or the BEGIN with the first
    # (and the transaction's settings, where it has any: database.transaction_settings).
    assert (by_itself.round_trips, by_itself.statements) == (4, 4)
    settings = 1 if database.transaction_settings_text() else 0
    assert (batched.round_trips, batched.statements) == (3, 4 + settings)
    with connection.cursor() as cursor:
        cursor.execute("SELECT txid_current_if_assigned()")
        assert cursor.fetchone() == (None,), "committed: no transaction left open"
