"""Row counts the planner estimates instead of counting: for listings too long to count on every page."""

from __future__ import annotations

import json

from django.db import connection


def estimated_rows(queryset) -> int:
    """The planner's estimate of the rows of ``queryset`` (PostgreSQL; elsewhere 0): the cost of planning
    the query, not of running it. Only ever low or high by the planner's statistics: a lower bound the
    caller knows (rows it has read) must be applied by the caller."""
    if connection.vendor != "postgresql":
        return 0
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])
