"""Version comparisons: "is version B of my bot better than version A?", answered as fishtest answers it
for chess engines, with paired games and a sequential probability ratio test (SPRT).

Pairs
-----
Games are played in pairs, the two games of a pair on one deal (one seed, drawn from the CSPRNG):

* against the baseline (the default), the candidate plays the deal once from each seat;
* against a field of ``opponents``, the pair's opponent (the field in turn) meets the candidate in one
  game and the baseline in the other, from the same seat on the same deal; the seat alternates from one
  round of the field to the next.

A game gives the candidate 1 for a win, 1/2 for a draw (tied places) and 0 for a loss, and a forfeit
loses to a seat that did not forfeit (``ladder.ratings.elo.pairwise_scores``, the rule of every table). In the field
game of the baseline, the candidate's share is what the baseline did not score (1 minus its score), so
a pair is worth 0, 1/2, 1, 3/2 or 2 either way: 2 when the candidate won from both seats, or won where
the baseline lost with the same luck. Pairs, not games, are the samples (``ladder.ratings.sequential``):
the luck the two games share cancels out of the comparison, and fewer games decide.

Decision
--------
After each complete pair the LLR of H1 (the candidate is ``elo1`` Elo better) against H0 (``elo0``)
is computed over the pentanomial counts, and the test stops:

* at the upper bound: H1 accepted, verdict ``better``;
* at the lower bound: H0 accepted, verdict ``worse`` if the 95% Elo interval lies entirely below 0,
  else ``equal`` (no better than ``elo0``, within the test's bounds, but not shown to be worse);
* when ``max_games`` are scheduled and played without a decision: ``inconclusive``.

Matches still queued when the test decides are deleted, never played; those already running finish and
are recorded, but the comparison's counts stay as they were at the decision. The defaults (``elo0`` 0,
``elo1`` 20, alpha = beta = 0.05) suit bots of these games, whose versions usually differ by tens of
Elo: a 5-Elo test needs tens of thousands of games at the luck of dice and tile draws.

Scheduling
----------
At most ``COMPARISON_PAIRS_IN_FLIGHT`` pairs are queued or running at once. Each recorded match of the
comparison (``matches.match_record_result``, in its transaction) and each match given up after its
sandbox faults (``matches._give_back``) calls :func:`comparison_advance`, which counts the pair once
both of its games are finished, decides, and tops the window up. A worker that dies mid-match loses
nothing: the lease reconciler plays the match again, and its recording advances the comparison.
Comparisons never move ratings, and their matches count against the owner's daily quota of unrated
matches (``ladder.core.quotas``) and budget of worker seconds (``ladder.core.worker_time``): a
running comparison holds the rest of its ``max_games``, in matches and at their worst case in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

import engines
from ladder.core.errors import ServiceError
from ladder.core.limits import limits_resolve
from ladder.core.quotas import unrated_matches_reserve, write_rate_check
from ladder.core.rated_play import rated_match_seed
from ladder.core.worker_time import match_reservation_s, matches_reserve
from ladder.messaging.enqueue import matches_enqueue_on_commit
from ladder.models import Bot, BotVersion, Comparison, Match, MatchSetup, Seat
from ladder.ratings.elo import pairwise_scores
from ladder.ratings.sequential import (
    SprtDecision,
    elo_interval,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
)
from ladder.selectors import access
from ladder.services.tournaments.round_robins import current_versions, entrants_check
from ladder.services.webhooks.events import comparison_finished

DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 20.0
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
# Beyond this the logistic scores of the bounds are too close to 0 or 1 to tell pairs apart.
MAX_ABS_ELO = 1000.0
MAX_OPPONENTS = 20
# Comparisons are played two seats at a time: every game of the ladder is played by two.
PLAYERS = 2


def game_points(*, places: Sequence[int], forfeited: Sequence[bool], seat: int) -> float:
    """What the two-player game's ``seat`` scored against the other seat: 1, 1/2 or 0."""
    return pairwise_scores(list(places), list(forfeited))[seat][1 - seat]


def candidate_points(*, seats: Sequence[tuple[int, int | None, bool]], candidate_id: int,
                     baseline_id: int) -> float:
    """The candidate's share of one finished game, from its ``seats`` in seat order as ``(version id,
    place, forfeited)``: what the candidate scored if it played, else 1 minus what the baseline
    scored. ValueError when neither played, or the game is not one of two seats."""
    if len(seats) != PLAYERS:
        raise ValueError(f"a comparison game has {PLAYERS} seats, this one {len(seats)}")
    places = [place if place is not None else PLAYERS for _, place, _ in seats]
    forfeited = [forfeit for *_, forfeit in seats]
    versions = [version for version, *_ in seats]
    if candidate_id in versions:
        return game_points(places=places, forfeited=forfeited, seat=versions.index(candidate_id))
    if baseline_id in versions:
        return 1.0 - game_points(places=places, forfeited=forfeited, seat=versions.index(baseline_id))
    raise ValueError("neither version of the comparison played this game")


def pair_outcome(points: Sequence[float]) -> int:
    """The pentanomial outcome (0..4: a pair worth 0, 1/2, 1, 3/2, 2) of a pair's two games' points."""
    if len(points) != 2:
        raise ValueError(f"a pair has two games, not {len(points)}")
    return round(2 * sum(points))


def comparison_verdict(*, llr: float, bounds: tuple[float, float], elo_high: float) -> str | None:
    """``better`` when the LLR reached the upper bound; at the lower bound ``worse`` if the upper end of
    the Elo interval (``elo_high``) is below 0, else ``equal``; None while the test continues."""
    decision = sprt_decision(llr, bounds)
    if decision == SprtDecision.ACCEPT_H1:
        return Comparison.Verdict.BETTER
    if decision == SprtDecision.ACCEPT_H0:
        return Comparison.Verdict.WORSE if elo_high < 0 else Comparison.Verdict.EQUAL
    return None


def _accepted_version(*, bot: Bot, number, field: str) -> BotVersion:
    if isinstance(number, bool) or not isinstance(number, int):
        raise ServiceError(f"{field} must be a version number of {bot.name} (1, 2, ...)", field=field)
    version = BotVersion.objects.defer("code").filter(bot=bot, number=number).first()
    if version is None:
        raise ServiceError(f"{bot.name} has no version {number}", field=field)
    if version.validation_status != BotVersion.Validation.ACCEPTED:
        raise ServiceError(f"version {number} of {bot.name} is {version.validation_status}, not accepted: only "
                           "accepted versions play", field=field)
    return version


def _opponents_checked(*, bot: Bot, opponent_ids: Sequence[int]) -> list[int]:
    ids = list(opponent_ids)
    if len(ids) > MAX_OPPONENTS:
        raise ServiceError(f"at most {MAX_OPPONENTS} opponents", field="opponents")
    if bot.id in ids:
        raise ServiceError(f"{bot.name} is the bot under comparison: leave out opponents to play the candidate "
                           "against the baseline", field="opponents")
    entrants_check(bot_ids=ids, game=bot.game, field="opponents")
    return ids


def _number(value, *, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ServiceError(f"{field} must be a number", field=field)
    return float(value)


def comparison_create(
    *,
    user,
    bot_id: int,
    baseline: int,
    candidate: int,
    opponents: Sequence[int] | None = None,
    elo0: float | None = None,
    elo1: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    max_games: int | None = None,
) -> Comparison:
    """Start comparing version ``candidate`` of bot ``bot_id`` with its version ``baseline`` (numbers),
    and schedule its first pairs (enqueued after commit).

    ``opponents`` (bot ids; none: the baseline itself) is the field; ``elo0``/``elo1`` the SPRT's
    hypotheses (default 0 and 20), ``alpha``/``beta`` its error rates (default 0.05 each), ``max_games``
    the most games it plays (default ``COMPARISON_DEFAULT_MAX_GAMES``, at most ``COMPARISON_MAX_GAMES``).

    Raises ServiceError 404 unless ``user`` owns the bot; ServiceError 400 (naming the field) for a
    version that does not exist or is not accepted, the same version twice, opponents that are unknown,
    repeated, inactive, of another game, without an accepted version or the bot itself, ``elo0 >=
    elo1`` or bounds beyond +-1000 Elo, error rates outside (0, 1) or summing to 1 or more, ``max_games``
    below 2 or above the cap or a whole day's quota or budget; QuotaExceeded (429) past the owner's rate
    of tournaments and comparisons created (``quotas.write_rate_check``, counted first), or when its daily
    quota of unrated matches, or budget of worker seconds, has too little left for ``max_games``.
    """
    write_rate_check(user=user, kind="comparisons")
    bot = access.bot_for_change(user=user, bot_id=bot_id)
    base = _accepted_version(bot=bot, number=baseline, field="baseline")
    cand = _accepted_version(bot=bot, number=candidate, field="candidate")
    if base.id == cand.id:
        raise ServiceError("baseline and candidate are the same version: compare two different ones",
                           field="candidate")
    opponent_ids = _opponents_checked(bot=bot, opponent_ids=opponents or [])
    elo0 = _number(elo0, field="elo0", default=DEFAULT_ELO0)
    elo1 = _number(elo1, field="elo1", default=DEFAULT_ELO1)
    if not elo0 < elo1:
        raise ServiceError(f"elo0 ({elo0:g}) must be below elo1 ({elo1:g}): H1 is the better hypothesis",
                           field="elo1")
    if max(abs(elo0), abs(elo1)) > MAX_ABS_ELO:
        raise ServiceError(f"elo0 and elo1 must lie within +-{MAX_ABS_ELO:g} Elo", field="elo1")
    alpha = _number(alpha, field="alpha", default=DEFAULT_ALPHA)
    beta = _number(beta, field="beta", default=DEFAULT_BETA)
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ServiceError("alpha and beta must lie between 0 and 1, with alpha + beta below 1", field="alpha")
    cap = settings.COMPARISON_MAX_GAMES
    if max_games is None:
        max_games = min(settings.COMPARISON_DEFAULT_MAX_GAMES, cap)
    if isinstance(max_games, bool) or not isinstance(max_games, int) or not 2 <= max_games <= cap:
        raise ServiceError(f"max_games must be a whole number from 2 to {cap}", field="max_games")
    with transaction.atomic():
        unrated_matches_reserve(user=user, count=max_games, what="this comparison", field="max_games",
                                fix="ask for fewer max_games")
        limits = limits_resolve(game_slug=bot.game.slug, overrides={})
        matches_reserve(user=user, game_slug=bot.game.slug, players=PLAYERS, count=max_games, limits=limits,
                        what="this comparison", field="max_games", fix="ask for fewer max_games")
        comparison = Comparison.objects.create(
            bot=bot, baseline=base, candidate=cand, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
            max_games=max_games, pairs=[0] * 5, llr_history=[], options=dict(bot.game.default_options),
            limits=limits, created_by=user,
        )
        comparison.opponents.set(opponent_ids)
        _top_up(comparison, opponent_ids=opponent_ids)
    return comparison


def _opponent_ids(comparison: Comparison) -> list[int]:
    return sorted(comparison.opponents.values_list("id", flat=True))


def _schedule_pairs(comparison: Comparison, *, count: int, opponent_ids: Sequence[int]) -> list[int]:
    """Create ``count`` more pairs (two queued matches each, one fresh secret seed per pair) and enqueue
    them after commit. Caller holds the comparison's row lock."""
    last = comparison.matches.aggregate(index=Max("index"), deal=Max("deal"))
    next_index = 0 if last["index"] is None else last["index"] + 1
    next_deal = 0 if last["deal"] is None else last["deal"] + 1
    cand, base = comparison.candidate, comparison.baseline
    current = current_versions(opponent_ids)
    rules_version = engines.get(comparison.bot.game.slug).rules_version
    reserved_s = match_reservation_s(game_slug=comparison.bot.game.slug, players=PLAYERS, limits=comparison.limits)
    setup = MatchSetup.objects.for_parts(options=comparison.options, limits=comparison.limits)
    now = timezone.now()
    matches, seatings = [], []
    for offset in range(count):
        deal = next_deal + offset
        seed = rated_match_seed()
        if opponent_ids:
            opponent = opponent_ids[deal % len(opponent_ids)]
            # Each round of the field swaps the seat the versions take, so each opponent meets them from both.
            seat = (deal // len(opponent_ids)) % 2
            other = (opponent, current[opponent])
            pair = [[(cand.bot_id, cand.id), other], [(base.bot_id, base.id), other]]
            if seat:
                pair = [list(reversed(seating)) for seating in pair]
        else:
            versions = [(cand.bot_id, cand.id), (base.bot_id, base.id)]
            pair = [versions, versions[::-1]]
        for seating in pair:
            matches.append(Match(
                game_id=comparison.bot.game_id, comparison=comparison, index=next_index + len(matches),
                players=PLAYERS, deal=deal, seed=seed, rules_version=rules_version,
                setup=setup, reserved_s=reserved_s, priority=Match.Priority.TOURNAMENT, enqueued_at=now,
            ))
            seatings.append(seating)
    Match.objects.bulk_create(matches)
    # Fetched by index, as tournaments do, so as not to rely on the backend returning bulk ids.
    ids_by_index = dict(comparison.matches.filter(index__gte=next_index).values_list("index", "id"))
    match_ids = [ids_by_index[match.index] for match in matches]
    Seat.objects.bulk_create([
        Seat(match_id=match_id, position=position, bot_id=bot_id, bot_version_id=version_id)
        for match_id, seating in zip(match_ids, seatings, strict=True)
        for position, (bot_id, version_id) in enumerate(seating)
    ])
    matches_enqueue_on_commit(match_ids, stamped=True)
    return match_ids


def _top_up(comparison: Comparison, *, opponent_ids: Sequence[int]) -> int:
    """Schedule pairs until ``COMPARISON_PAIRS_IN_FLIGHT`` are queued or running, within ``max_games``;
    returns how many pairs are in flight afterwards. Caller holds the comparison's row lock."""
    in_flight = (comparison.matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
                 .values("deal").distinct().count())
    room = (comparison.max_games - comparison.matches.count()) // 2
    new = max(0, min(settings.COMPARISON_PAIRS_IN_FLIGHT - in_flight, room))
    if new:
        _schedule_pairs(comparison, count=new, opponent_ids=opponent_ids)
    return in_flight + new


def _pair_points(comparison: Comparison, deal: int) -> list[float] | None:
    """The candidate's points in each game of pair ``deal``, or None while either game is unfinished."""
    rows = list(
        Seat.objects.filter(match__comparison=comparison, match__deal=deal)
        .order_by("match_id", "position")
        .values_list("match_id", "match__status", "bot_version_id", "place", "outcome")
    )
    games: dict[int, list[tuple]] = {}
    for match_id, status, version_id, place, outcome in rows:
        if status != Match.Status.FINISHED:
            return None
        games.setdefault(match_id, []).append((version_id, place, Seat.outcome_forfeits(outcome)))
    if len(games) != 2:
        return None
    return [candidate_points(seats=seats, candidate_id=comparison.candidate_id,
                             baseline_id=comparison.baseline_id) for seats in games.values()]


def _finish(comparison: Comparison, verdict: str) -> None:
    """Record the verdict and drop the matches not yet claimed: they would only cost the workers; the
    owner's webhooks hear of it once the transaction commits (``comparison.finished``)."""
    # Locked first: a worker's claim of one of them then waits for this commit and finds it gone, and one
    # claimed a moment before is no longer queued here, so it is played and recorded, not deleted.
    queued = list(Match.objects.select_for_update().filter(comparison=comparison, status=Match.Status.QUEUED)
                  .values_list("id", flat=True))
    Match.objects.filter(id__in=queued).delete()
    comparison.status = Comparison.Status.DONE
    comparison.verdict = verdict
    comparison.finished_at = timezone.now()
    comparison.save(update_fields=["status", "verdict", "finished_at", "pairs", "llr_history", "updated_at"])
    comparison_finished(comparison=comparison, elo=tuple(elo_interval(list(comparison.pairs or [0] * 5))))


def comparison_decided(*, comparison_id: int) -> bool:
    """Whether the comparison is done, so that a match of it no longer counts for anything."""
    return Comparison.objects.filter(pk=comparison_id, status=Comparison.Status.DONE).exists()


def comparison_advance(*, comparison_id: int, match_id: int | None = None) -> str | None:
    """Bring a running comparison up to date after its match ``match_id`` was recorded (or, with None,
    after one of its matches was given up): count the match's pair once both games are finished, decide,
    else top the window of pairs up; done with ``inconclusive`` once ``max_games`` are played undecided.
    Returns the verdict once done, None while running (or when the comparison is gone or already done).

    Caller holds a transaction in which the match's result is written. The comparison's row is locked
    here, so of two matches of a pair recorded at once the second one sees the first finished and counts
    the pair, exactly once.
    """
    comparison = (Comparison.objects.select_for_update().select_related("bot__game", "candidate", "baseline")
                  .filter(id=comparison_id, status=Comparison.Status.RUNNING).first())
    if comparison is None:
        return None
    if match_id is not None:
        deal = Match.objects.filter(id=match_id, comparison=comparison).values_list("deal", flat=True).first()
        points = None if deal is None else _pair_points(comparison, deal)
        if points is not None:
            counts = list(comparison.pairs or [0] * 5)
            counts[pair_outcome(points)] += 1
            llr = sprt_llr(counts, comparison.elo0, comparison.elo1)
            comparison.pairs = counts
            comparison.llr_history = [*comparison.llr_history, llr]
            verdict = comparison_verdict(llr=llr, bounds=sprt_bounds(comparison.alpha, comparison.beta),
                                         elo_high=elo_interval(counts).high)
            if verdict is not None:
                _finish(comparison, verdict)
                return verdict
            comparison.save(update_fields=["pairs", "llr_history", "updated_at"])
    if _top_up(comparison, opponent_ids=_opponent_ids(comparison)) == 0:
        _finish(comparison, Comparison.Verdict.INCONCLUSIVE)
        return Comparison.Verdict.INCONCLUSIVE
    return None
