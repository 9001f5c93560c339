"""Arranged games: the screen that flags pairs of bots whose results against each other depart from the
fit of every other result, the hold that keeps a flagged pair's games out of the ratings, and staff's
review of a flag.

:func:`collusion_screen` (the ``ladder.collusion_screen`` task, every ``COLLUSION_SCREEN_INTERVAL_S``)
reads a game's pair records, asks ``ladder.ratings.collusion.pair_departures`` which pairs depart (one at a
time, the most departing first, each left out of the fit of the next, so that one arranged pair's games
cannot make its honest neighbours look arranged), and writes a held :class:`~ladder.models.PairFlag` for
each new one. A held pair's rated matches are held out (``rated_play.held_out``): its queued ladder matches
are deleted, the ladder pairs it no more, and the game's ratings are rebuilt without its games, so that
what the arranged games gave one bot and took from the other is undone. A result of the pair that was
being played while it was flagged is rated by the online applier and undone by the next screen, which
rebuilds again wherever a held-out match still carries a rating.

Staff review a flag (:func:`pair_flag_review`): ``cleared`` puts the pair's games back (the ratings are
rebuilt with them) and the screen does not flag it again; ``confirmed`` keeps them out.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.core.rated_play import HELD_FLAGS, HOUSE_BOTS, held_out
from ladder.models import Game, Match, PairFlag, PairRecord, RatingChange, Tournament
from ladder.ratings.collusion import PairTotal, pair_departures
from ladder.services.ratings.rating_rebuild import ratings_rebuild

logger = logging.getLogger(__name__)


def held_pairs(*, game_id: int) -> set[frozenset[int]]:
    """The pairs of bots of game ``game_id`` whose games are held out: the ladder never seats them together."""
    return {frozenset(pair) for pair in PairFlag.objects.filter(game_id=game_id, status__in=HELD_FLAGS)
            .values_list("bot_low_id", "bot_high_id")}


def _departures(game: Game, flags: dict[tuple[int, int], str]) -> list:
    """The pairs of ``game`` that depart from the fit of the rest and carry no flag yet, one at a time."""
    records = PairRecord.objects.filter(game=game).values_list("bot_low_id", "bot_high_id", "weight", "score")
    totals = [PairTotal(a=low, b=high, weight=weight, score=score) for low, high, weight, score in records
              if flags.get((low, high)) not in HELD_FLAGS]
    house = set(game.bots.filter(HOUSE_BOTS).values_list("id", flat=True))
    found = []
    while True:
        departing = [d for d in pair_departures(totals, min_weight=settings.COLLUSION_SCREEN_MIN_GAMES,
                                                p_threshold=settings.COLLUSION_SCREEN_P)
                     if (d.a, d.b) not in flags and not {d.a, d.b} <= house]
        if not departing:
            return found
        worst = departing[0]
        found.append(worst)
        totals = [t for t in totals if (t.a, t.b) != (worst.a, worst.b)]


def _holdout_outstanding(game: Game) -> bool:
    """Whether a match held out of ``game``'s ratings still carries a rating (rated while its pair was
    being flagged)."""
    return RatingChange.objects.filter(game=game, match__in=Match.objects.filter(held_out(), game=game)).exists()


def collusion_screen(*, game: Game, now=None) -> list[PairFlag]:
    """Screen ``game``'s rated results for arranged pairs; returns the flags written (module docstring)."""
    now = now or timezone.now()
    flags = {(low, high): status for low, high, status in
             PairFlag.objects.filter(game=game).values_list("bot_low_id", "bot_high_id", "status")}
    written = []
    for departure in _departures(game, flags):
        with transaction.atomic():
            flag, created = PairFlag.objects.get_or_create(
                game=game, bot_low_id=departure.a, bot_high_id=departure.b,
                defaults={"weight": departure.weight, "score": departure.score, "expected": departure.expected,
                          "p_value": departure.p_value, "flagged_at": now})
            if created:
                _queued_delete(game=game, pair=(departure.a, departure.b))
                written.append(flag)
        if created:
            logger.warning("pair %s vs %s of %s flagged: scored %.1f of %.1f where %.2f was expected (p=%.2g); "
                           "its games are held out until staff review it", departure.a, departure.b, game.slug,
                           departure.score, departure.weight, departure.expected, departure.p_value)
    if written or _holdout_outstanding(game):
        ratings_rebuild(game_slug=game.slug)
    return written


def _queued_delete(*, game: Game, pair: tuple[int, int]) -> int:
    """Delete the queued ladder matches of ``game`` that seat both bots of ``pair``: never played."""
    low, high = pair
    queued = Match.objects.filter(game=game, status=Match.Status.QUEUED, tournament__kind=Tournament.Kind.LADDER,
                                  seats__bot_id=low).filter(seats__bot_id=high)
    deleted, _ = Match.objects.filter(id__in=list(queued.values_list("id", flat=True)),
                                      status=Match.Status.QUEUED).delete()
    return deleted


def collusion_screen_all(*, now=None) -> dict[str, int]:
    """:func:`collusion_screen` of every available game; the flags written per game slug."""
    return {game.slug: len(flags) for game in Game.objects.filter(available=True)
            if (flags := collusion_screen(game=game, now=now))}


def pair_flag_review(*, flag_id: int, reviewer, verdict: str, note: str = "") -> PairFlag:
    """Staff's verdict on flag ``flag_id``: ``cleared`` (the pair's games count again) or ``confirmed``
    (they stay out). The ratings are rebuilt where the verdict changes what counts. ServiceError 403 for
    anyone but staff, 404 for no such flag, 400 for another verdict."""
    if not getattr(reviewer, "is_staff", False):
        raise ServiceError("only staff review flagged pairs", status=403)
    if verdict not in (PairFlag.Status.CLEARED, PairFlag.Status.CONFIRMED):
        raise ServiceError("the verdict is cleared or confirmed", field="verdict")
    with transaction.atomic():
        flag = PairFlag.objects.select_for_update().select_related("game").filter(pk=flag_id).first()
        if flag is None:
            raise ServiceError(f"no flagged pair with id {flag_id}", status=404)
        was_held = flag.status in HELD_FLAGS
        flag.status, flag.reviewed_by, flag.reviewed_at, flag.note = verdict, reviewer, timezone.now(), note[:500]
        flag.save(update_fields=["status", "reviewed_by", "reviewed_at", "note"])
    if was_held != (flag.status in HELD_FLAGS):
        ratings_rebuild(game_slug=flag.game.slug)
    return flag
