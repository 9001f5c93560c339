"""``ladder.selectors.estimates``: the planner's row estimate of a queryset, without running it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.models import Game
from ladder.selectors.estimates import estimated_rows

pytestmark = pytest.mark.django_db


def test_the_estimate_comes_from_one_explain_and_follows_the_tables_statistics():
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Game._meta.db_table)}")
    with CaptureQueriesContext(connection) as queries:
        estimate = estimated_rows(Game.objects.all())
    assert [query["sql"].split()[0] for query in queries.captured_queries] == ["EXPLAIN"]
    assert estimate == Game.objects.count() == 4  # the four games, freshly analysed
    assert estimated_rows(Game.objects.filter(slug="no-such-game")) <= 1

