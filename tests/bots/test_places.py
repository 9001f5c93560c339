"""Places the referee gives: engine places among clean seats, and the last place for every forfeit."""

import pytest

from bots.referee import _places


@pytest.mark.parametrize(("ranking", "faulted", "expected"), [
    ([1, 2], [False, False], [1, 2]),
    ([1, 2], [True, False], [2, 1]),
    # A forfeit is last even when the engine had it first and nobody else finished cleanly.
    ([1, 2], [True, True], [2, 2]),
    ([1, 1], [True, True], [2, 2]),
    ([2, 1, 3], [False, True, False], [1, 3, 2]),
    ([3, 1, 2, 4], [False, True, True, False], [1, 4, 4, 2]),
    ([1, 1, 3], [False, False, True], [1, 1, 3]),
])
def test_forfeited_seats_share_the_last_place(ranking, faulted, expected):
    assert _places(ranking, faulted) == expected
