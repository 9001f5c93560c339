"""Pagination of the lists: by page number (``?page=N&page_size=M``, the page size capped), and by keyset
(:class:`KeysetPagination`, ``?cursor=...``) for the lists that grow without bound, the matches."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from django.db.models import F, Q
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import remove_query_param, replace_query_param

from ladder.selectors.estimates import estimated_rows

# Big enough for a script to fetch a tournament's matches in a few calls, small enough that one request
# cannot make the server serialize a whole table.
MAX_PAGE_SIZE = 100


class LadderPagination(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``; ``page_size`` defaults to ``PAGE_SIZE`` and is capped at
    ``MAX_PAGE_SIZE`` (larger values are lowered, not refused)."""

    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    invalid_page_message = "there is no page {page_number} ({message}); pages start at 1"


# --- Keyset pages ---------------------------------------------------------------------------------------

#: Up to this many rows a keyset list counts exactly; past it, ``count`` is the database's estimate.
COUNT_EXACT_UP_TO = 10_000


def keyset_cursor(*, ordering: str, value, id: int, reverse: bool = False) -> str:
    """The ``cursor`` of the page after the row (``value`` of the ordering field, ``id``) in ``ordering``
    (e.g. ``"-id"``, ``"finished_at"``), or the page before it with ``reverse``: opaque to clients, which
    follow ``next`` and ``previous``."""
    if isinstance(value, datetime):
        value = {"t": value.isoformat()}
    payload = json.dumps({"o": ordering, "v": value, "i": id, "r": reverse}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def _cursor_read(text: str) -> dict:
    try:
        payload = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        value = payload["v"]
        if isinstance(value, dict):
            value = datetime.fromisoformat(value["t"])
        elif value is not None and not isinstance(value, int | float):
            raise ValueError(value)
        if not isinstance(payload["i"], int) or not isinstance(payload["o"], str):
            raise ValueError(payload)
        return {"ordering": payload["o"], "value": value, "id": payload["i"], "reverse": bool(payload["r"])}
    except (ValueError, KeyError, TypeError, binascii.Error) as error:
        raise ValidationError({"cursor": ["not a cursor of this list: follow the next and previous links"]}) \
            from error


class KeysetPagination(BasePagination):
    """Pages that cost the same at any depth: each one starts after the last row of the page before (its
    ordering field's value and id, in the ``cursor`` of the ``next`` link), not after skipping the rows
    before it, which would read every row above a deep page of a long list.

    ``{"count", "count_exact", "next", "previous", "results"}``: ``count`` is exact up to
    :data:`COUNT_EXACT_UP_TO` rows (``count_exact`` true) and the database's estimate past it, since an exact
    count reads the whole list. The list is ordered by its view's ordering (``?ordering=``; only its first
    field counts), then by id in the same direction; rows without a value of a nullable field come last
    either way. ``page_size`` as in :class:`LadderPagination`; ``page`` is refused past 1.
    """

    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    cursor_query_param = "cursor"

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        page = request.query_params.get("page")
        if page not in (None, "", "1"):
            raise ValidationError({"page": ["this list pages by cursor: follow the next link of the page before "
                                            "(deep page numbers made the server read every row above them)"]})
        self.page_size = self._page_size(request)
        field, descending = self._ordering(request, queryset, view)
        self.ordering = ("-" if descending else "") + field
        cursor_text = request.query_params.get(self.cursor_query_param)
        cursor = _cursor_read(cursor_text) if cursor_text else None
        if cursor is not None and cursor["ordering"] != self.ordering:
            raise ValidationError({"cursor": ["this cursor belongs to another ordering of the list"]})
        self.count, self.count_exact = self._count(queryset)
        reverse = bool(cursor and cursor["reverse"])
        rows = queryset.order_by(*self._order(field, descending ^ reverse, nulls_last=not reverse))
        if cursor is not None:
            rows = rows.filter(self._beyond(field, descending ^ reverse, cursor["value"], cursor["id"],
                                            nulls_last=not reverse))
        rows = list(rows[: self.page_size + 1])
        more = len(rows) > self.page_size
        rows = rows[: self.page_size]
        if reverse:
            rows.reverse()
            self.has_next, self.has_previous = True, more
        else:
            self.has_next, self.has_previous = more, cursor is not None
        self.field, self.rows = field, rows
        return rows

    def get_paginated_response(self, data):
        return Response({"count": self.count, "count_exact": self.count_exact, "next": self._link(forward=True),
                         "previous": self._link(forward=False), "results": data})

    def get_paginated_response_schema(self, schema):
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["count", "count_exact", "next", "previous", "results"],
            "properties": {
                "count": {"type": "integer", "example": 123,
                          "description": f"Rows in the list: exact up to {COUNT_EXACT_UP_TO}, the database's "
                                         "estimate past that (count_exact false)."},
                "count_exact": {"type": "boolean", "description": "Whether count is exact."},
                "next": {**link, "description": "The page after this one (a cursor); null on the last."},
                "previous": {**link, "description": "The page before this one (a cursor); null on the first."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {"name": self.cursor_query_param, "required": False, "in": "query", "schema": {"type": "string"},
             "description": "Where the page starts: the cursor of a next or previous link (opaque)."},
            {"name": self.page_size_query_param, "required": False, "in": "query", "schema": {"type": "integer"},
             "description": f"Rows per page (at most {MAX_PAGE_SIZE})."},
        ]

    def _page_size(self, request) -> int:
        default = api_settings.PAGE_SIZE or MAX_PAGE_SIZE
        try:
            size = int(request.query_params.get(self.page_size_query_param, default))
        except (TypeError, ValueError):
            return default
        return default if size <= 0 else min(size, self.max_page_size)

    @staticmethod
    def _ordering(request, queryset, view) -> tuple[str, bool]:
        terms = OrderingFilter().get_ordering(request, queryset, view) or ["-id"]
        first = terms[0]
        field = first.lstrip("-")
        return ("id" if field == "pk" else field), first.startswith("-")

    @staticmethod
    def _order(field: str, descending: bool, *, nulls_last: bool) -> list:
        if field == "id":
            return ["-id" if descending else "id"]
        nulls = {"nulls_last": True} if nulls_last else {"nulls_first": True}
        return [F(field).desc(**nulls) if descending else F(field).asc(**nulls), "-id" if descending else "id"]

    @staticmethod
    def _beyond(field: str, descending: bool, value, row_id: int, *, nulls_last: bool) -> Q:
        """The rows after (``value``, ``row_id``) in the order :meth:`_order` gives."""
        further = "lt" if descending else "gt"
        if field == "id":
            return Q(**{f"id__{further}": row_id})
        if nulls_last:
            if value is None:
                return Q(**{f"{field}__isnull": True, f"id__{further}": row_id})
            return (Q(**{f"{field}__{further}": value}) | Q(**{field: value, f"id__{further}": row_id})
                    | Q(**{f"{field}__isnull": True}))
        if value is None:
            return Q(**{f"{field}__isnull": False}) | Q(**{f"{field}__isnull": True, f"id__{further}": row_id})
        return Q(**{f"{field}__{further}": value}) | Q(**{field: value, f"id__{further}": row_id})

    def _count(self, queryset) -> tuple[int, bool]:
        bounded = queryset.order_by().values("pk")[: COUNT_EXACT_UP_TO + 1].count()
        if bounded <= COUNT_EXACT_UP_TO:
            return bounded, True
        return max(bounded, estimated_rows(queryset)), False

    def _link(self, *, forward: bool) -> str | None:
        if not self.rows or not (self.has_next if forward else self.has_previous):
            return None
        row = self.rows[-1] if forward else self.rows[0]
        value = row.pk if self.field == "id" else getattr(row, self.field)
        cursor = keyset_cursor(ordering=self.ordering, value=value, id=row.pk, reverse=not forward)
        url = remove_query_param(self.request.build_absolute_uri(), "page")
        return replace_query_param(url, self.cursor_query_param, cursor)

