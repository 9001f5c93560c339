"""``ladder.api.pagination``: keyset cursors read back exactly what they were made of, and anything else a
client sends as a cursor is a 400 that says to follow the links, never a 500."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.exceptions import ValidationError

from ladder.api.pagination import _cursor_read, keyset_cursor


@pytest.mark.parametrize("value", [None, 17, 2.5, datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=UTC)])
@pytest.mark.parametrize("reverse", [False, True])
def test_a_cursor_reads_back_as_it_was_made(value, reverse):
    cursor = keyset_cursor(ordering="-finished_at", value=value, id=42, reverse=reverse)
    assert "=" not in cursor  # padding left out: the cursor sits in a URL
    assert _cursor_read(cursor) == {"ordering": "-finished_at", "value": value, "id": 42, "reverse": reverse}


@pytest.mark.parametrize("text", [
    "", "not base64 at all!", "e30",  # {} : nothing in it
    keyset_cursor(ordering="-id", value=1, id=1)[:-3],  # cut short
    "eyJvIjoiLWlkIiwidiI6IngiLCJpIjoxLCJyIjpmYWxzZX0",  # a string value: no list orders by one
    "eyJvIjoiLWlkIiwidiI6MSwiaSI6IjEiLCJyIjpmYWxzZX0",  # an id that is not an integer
    "eyJvIjoxLCJ2IjoxLCJpIjoxLCJyIjpmYWxzZX0",  # an ordering that is not text
])
def test_anything_else_is_refused_with_what_to_do(text):
    with pytest.raises(ValidationError) as refused:
        _cursor_read(text)
    assert "follow the next and previous links" in str(refused.value.detail["cursor"][0])
