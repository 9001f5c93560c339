"""Rated and unrated play: which matches move the leaderboard, and when a match's chance may be seen.

The rule, in one place: leaderboard ratings (the Rating rows, their history, a seat's ``rating_before``
and ``rating_after``) move only on matches the server chose, that is the matches of a *rated*
tournament. The continuous ladder is always rated (a database constraint holds it); a round robin is
rated only when staff mark it so. Everything a user arranges is unrated: their round robin, with the
bots and the seed they chose, keeps its own standings, crosstable and Bradley-Terry ratings and leaves
the leaderboard alone. Otherwise a leaderboard place could be arranged: two bots of one owner trading
wins, or a bot written for a seed known in advance, which tells it every draw and every die.

A rated match's seed comes from the operating system's CSPRNG when the match is scheduled, is stored on
the match, and is shown (with everything derived from it: the replay, the opening position) only once
the match finished. A rated duplicate round robin draws one secret seed per deal, shared by the deal's
seat rotations, and shows it once the tournament finished (a finished rotation would otherwise give
away the seed of one still queued). A chosen seed exists only in unrated tournaments (and ``manage.py play``).
"""

from __future__ import annotations

import secrets

from django.db.models import Q

from ladder.models import Match, Tournament
from ladder.services.errors import ServiceError

#: Matches that move leaderboard ratings (a filter on Match querysets).
RATED_MATCHES = Q(tournament__rated=True)

RATED_SEED_REFUSED = ("a rated tournament has no chosen seed: the server draws each match's seed in secret and "
                      "shows it once the match finished; leave out seed, or start an unrated tournament")


def match_moves_ratings(tournament: Tournament) -> bool:
    """Whether the matches of ``tournament`` move leaderboard ratings."""
    return tournament.rated


def rated_match_seed() -> int:
    """A fresh secret seed for one rated match: 62 bits from the CSPRNG (within the API's seed range)."""
    return secrets.randbits(62)


def match_seed_visible(match: Match) -> bool:
    """Whether the seed of ``match`` (and what derives from it) may be shown: always for an unrated
    match (a comparison's too), for a rated one once it finished, and for a rated duplicate deal's rotation once its
    tournament finished, since the deal's other rotations share the seed and may still be queued. Reads
    ``match.tournament`` (select it with the match)."""
    if match.tournament is None or not match.tournament.rated:
        return True  # a version comparison's match is unrated, like a user's round robin
    if match.deal is not None:
        return match.status == Match.Status.FINISHED and match.tournament.status == Tournament.Status.FINISHED
    return match.status == Match.Status.FINISHED


def match_public_seed(match: Match) -> int | None:
    """The seed of ``match`` as anyone may see it: None while it is a secret."""
    return match.seed if match_seed_visible(match) else None


def tournament_rated_check(*, created_by, rated: bool, seed: int | None) -> None:
    """Refuse a tournament's ``rated``/``seed`` choice that is not the creator's to make.

    Only staff (or the server itself, ``created_by`` None) start rated tournaments (ServiceError 403), and
    a rated tournament takes no chosen seed (ServiceError 400).
    """
    if not rated:
        return
    if created_by is not None and not getattr(created_by, "is_staff", False):
        raise ServiceError("only staff may start a rated tournament: leaderboard ratings move only on games the "
                           "server chose; leave out rated (or send false) for an unrated round robin with its own "
                           "standings", field="rated", status=403)
    if seed is not None:
        raise ServiceError(RATED_SEED_REFUSED, field="seed")
