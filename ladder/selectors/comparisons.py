"""Reading version comparisons: one comparison's state (counts, LLR with its bounds, Elo interval, the
LLR after each pair) and a bot's comparisons. Who may read them is decided in ``ladder.selectors.access``."""

from __future__ import annotations

import math

from django.db.models import Count, Q, QuerySet

from ladder.models import Bot, Comparison, Match
from ladder.ratings.sequential import elo_interval, sprt_bounds


def _finite(value: float) -> float | None:
    """JSON has no infinities: an unbounded end (or no estimate yet) is null."""
    return value if math.isfinite(value) else None


def comparison_progress(*, comparison: Comparison) -> dict:
    """Its matches by status: ``{"scheduled", "queued", "running", "finished", "failed"}``. One query."""
    counts = comparison.matches.aggregate(
        scheduled=Count("id"),
        **{status: Count("id", filter=Q(status=status)) for status in Match.Status.values},
    )
    return counts


def comparison_state(*, comparison: Comparison, with_progress: bool = True) -> dict:
    """Everything a reader of ``comparison`` sees (the API's body, the page's figures): its parameters,
    ``status`` and ``verdict``, ``games`` (the games of complete pairs), ``pairs`` (the pentanomial
    counts), ``llr`` ``{value, lower, upper}``, ``elo`` ``{estimate, low, high}`` (95%; null where
    unbounded or before the first pair), ``llr_history`` and, ``with_progress``, ``progress``. Reads the
    comparison's bot and versions (select them with it), its opponents (prefetch them for a list) and
    its matches: two queries, none with prefetched opponents and without progress."""
    counts = list(comparison.pairs or [0] * 5)
    lower, upper = sprt_bounds(comparison.alpha, comparison.beta)
    estimate, low, high = elo_interval(counts)
    history = list(comparison.llr_history or [])
    return {
        "id": comparison.id,
        "bot_id": comparison.bot_id,
        "bot": comparison.bot.name,
        "game": comparison.bot.game.slug,
        "baseline": comparison.baseline.number,
        "candidate": comparison.candidate.number,
        "opponents": sorted(opponent.id for opponent in comparison.opponents.all()),
        "elo0": comparison.elo0,
        "elo1": comparison.elo1,
        "alpha": comparison.alpha,
        "beta": comparison.beta,
        "max_games": comparison.max_games,
        "status": comparison.status,
        "verdict": comparison.verdict,
        "games": 2 * sum(counts),
        "pairs": counts,
        "llr": {"value": history[-1] if history else 0.0, "lower": lower, "upper": upper},
        "elo": {"estimate": _finite(estimate), "low": _finite(low), "high": _finite(high)},
        "llr_history": history,
        "created_at": comparison.created_at,
        "finished_at": comparison.finished_at,
        **({"progress": comparison_progress(comparison=comparison)} if with_progress else {}),
    }


def comparisons_of_bot(*, bot: Bot, with_opponents: bool = True) -> QuerySet[Comparison]:
    """The comparisons of ``bot``, newest first, with their versions (code left out) and, unless
    ``with_opponents`` is False, their opponents: one query, and one more for the opponents."""
    comparisons = (Comparison.objects.filter(bot=bot).select_related("bot__game", "baseline", "candidate")
                   .defer("baseline__code", "candidate__code").order_by("-id"))
    return comparisons.prefetch_related("opponents") if with_opponents else comparisons
