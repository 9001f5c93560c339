"""Row counts the planner estimates instead of counting: for listings too long to count on every page."""

from __future__ import annotations

from django.db import connection

from ladder.core.database import from_db_json


def estimated_rows(queryset) -> int:
    """The planner's estimate of the rows of ``queryset``: the cost of planning the query, not of running
    it. Only ever low or high by the planner's statistics: a lower bound the caller knows (rows it has
    read) must be applied by the caller."""
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = from_db_json(cursor.fetchone()[0])
    return int(plan[0]["Plan"]["Plan Rows"])
