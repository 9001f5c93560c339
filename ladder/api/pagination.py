"""Page-number pagination for every list: ``?page=N&page_size=M``, with the page size capped."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination

# Big enough for a script to fetch a tournament's matches in a few calls, small enough that one request
# cannot make the server serialize a whole table.
MAX_PAGE_SIZE = 100


class LadderPagination(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``; ``page_size`` defaults to ``PAGE_SIZE`` and is capped at
    ``MAX_PAGE_SIZE`` (larger values are lowered, not refused)."""

    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    invalid_page_message = "there is no page {page_number} ({message}); pages start at 1"
