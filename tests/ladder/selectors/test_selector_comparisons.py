"""Reading version comparisons (``ladder.selectors.comparisons``): one comparison's state (its parameters,
pentanomial counts, LLR with its bounds, Elo interval with null for unbounded ends, history and progress by
status) and a bot's comparisons, newest first, within their documented queries."""

from __future__ import annotations

import math

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.models import Comparison
from ladder.ratings.sequential import elo_interval, sprt_bounds
from ladder.selectors.comparisons import comparison_progress, comparison_state, comparisons_of_bot
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import BotFactory, BotVersionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot():
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    BotVersionFactory(bot=bot)
    return bot


def fetched(comparison: Comparison) -> Comparison:
    return Comparison.objects.select_related("bot__game", "baseline", "candidate").get(pk=comparison.pk)


def test_a_new_comparison_reads_its_parameters_and_no_estimate(bot):
    opponent = BotFactory()
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, opponents=[opponent.id],
                                   alpha=0.1, beta=0.2, elo1=30)
    state = comparison_state(comparison=fetched(comparison))
    lower, upper = sprt_bounds(0.1, 0.2)
    assert state | {"created_at": None} == {
        "id": comparison.id, "bot_id": bot.id, "bot": bot.name, "game": "kingdomino", "baseline": 1,
        "candidate": 2, "opponents": [opponent.id], "elo0": 0.0, "elo1": 30.0, "alpha": 0.1, "beta": 0.2,
        "max_games": comparison.max_games, "status": "running", "verdict": None, "games": 0, "pairs": [0] * 5,
        "llr": {"value": 0.0, "lower": lower, "upper": upper},
        "elo": {"estimate": None, "low": None, "high": None}, "llr_history": [], "created_at": None,
        "finished_at": None, "progress": state["progress"],
    }
    scheduled = comparison.matches.count()
    assert scheduled > 0
    assert state["progress"]["scheduled"] == scheduled
    assert sum(state["progress"][status] for status in ("queued", "running", "finished", "failed")) == scheduled


def test_the_state_reads_pairs_history_and_a_finite_interval(bot):
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=3, max_games=10)
    Comparison.objects.filter(pk=comparison.pk).update(pairs=[1, 2, 5, 4, 3], llr_history=[0.1, -0.2, 0.4])
    state = comparison_state(comparison=fetched(comparison), with_progress=False)
    assert "progress" not in state
    assert state["candidate"] == 3 and state["opponents"] == []
    assert state["games"] == 30 and state["pairs"] == [1, 2, 5, 4, 3]
    assert state["llr"]["value"] == 0.4 and state["llr_history"] == [0.1, -0.2, 0.4]
    estimate, low, high = elo_interval([1, 2, 5, 4, 3])
    assert state["elo"] == {"estimate": estimate, "low": low, "high": high}
    assert low < estimate < high and all(math.isfinite(v) for v in (estimate, low, high))


def test_unbounded_ends_of_the_interval_read_as_null(bot):
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    Comparison.objects.filter(pk=comparison.pk).update(pairs=[0, 0, 0, 0, 4])
    estimate, low, high = elo_interval([0, 0, 0, 0, 4])
    elo = comparison_state(comparison=fetched(comparison), with_progress=False)["elo"]
    assert elo == {key: value if math.isfinite(value) else None
                   for key, value in zip(("estimate", "low", "high"), (estimate, low, high), strict=True)}
    assert elo["low"] is not None and elo["low"] > 0


def test_progress_counts_matches_by_status(bot):
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    matches = list(comparison.matches.order_by("id"))
    comparison.matches.filter(pk=matches[0].pk).update(status="failed", finished_at=timezone.now())
    progress = comparison_progress(comparison=comparison)
    assert progress["failed"] == 1 and progress["scheduled"] == len(matches)
    assert set(progress) == {"scheduled", "queued", "running", "finished", "failed"}


def test_a_bots_comparisons_newest_first_in_two_queries(bot):
    first = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    second = comparison_create(user=bot.owner, bot_id=bot.id, baseline=2, candidate=3, max_games=10)
    other = BotFactory()
    BotVersionFactory(bot=other)
    comparison_create(user=other.owner, bot_id=other.id, baseline=1, candidate=2, max_games=10)
    with CaptureQueriesContext(connection) as queries:
        listed = list(comparisons_of_bot(bot=bot))
        states = [comparison_state(comparison=c, with_progress=False) for c in listed]
    assert [c.id for c in listed] == [second.id, first.id]
    assert [(s["baseline"], s["candidate"]) for s in states] == [(2, 3), (1, 2)]
    assert len(queries) == 2
    with CaptureQueriesContext(connection) as queries:
        assert [c.id for c in comparisons_of_bot(bot=bot, with_opponents=False)] == [second.id, first.id]
    assert len(queries) == 1
    assert "code" in listed[0].baseline.get_deferred_fields()
