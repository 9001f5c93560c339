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

A rated match never seats two bots of one owner: two bots that answer to one person could trade a game
by a handshake in their moves, and no channel can be closed against a partner that wants to lose. Every
pairing of rated play (the ladder's, a staff round robin's, any later one) asks
:func:`seating_owners_distinct`, and :func:`rated_seatings_check` holds every rated schedule to it as it
is stored. The one owner that is no owner in this sense is the house, the account that owns the shipped
example bots (:data:`HOUSE_BOTS`): nobody can log in to it, and its bots' code is the repository's, public
and fixed, so they may meet each other (the demo's and the benchmark's rated games are between them).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q

from ladder.core.errors import ServiceError
from ladder.core.house import EXAMPLES_OWNER
from ladder.models import Bot, Match, PairFlag, Seat, Tournament

#: Matches that move leaderboard ratings (a filter on Match querysets).
RATED_MATCHES = Q(tournament__rated=True)

#: The house's bots (a filter on Bot querysets): owned by the examples account while nobody can log in to
#: it. An account that registered under that name has a usable password, and its bots are an owner's.
HOUSE_BOTS = Q(owner__username=EXAMPLES_OWNER, owner__password__startswith=UNUSABLE_PASSWORD_PREFIX)

#: The flags under which a pair's games are held out of the ratings (``ladder.services.ratings.collusion``).
HELD_FLAGS = (PairFlag.Status.HELD, PairFlag.Status.CONFIRMED)

RATED_SEED_REFUSED = ("a rated tournament has no chosen seed: the server draws each match's seed in secret and "
                      "shows it once the match finished; leave out seed, or start an unrated tournament")


def held_out() -> Exists:
    """A filter on Match querysets: the matches that seat both bots of a pair flagged for arranged games
    (:data:`HELD_FLAGS`). Rated or not, they move no rating and no pair record while the flag stands."""
    seated = Seat.objects.filter(match_id=OuterRef(OuterRef("pk")))
    return Exists(PairFlag.objects.filter(status__in=HELD_FLAGS, game_id=OuterRef("game_id"))
                  .filter(Exists(seated.filter(bot_id=OuterRef("bot_low_id"))))
                  .filter(Exists(seated.filter(bot_id=OuterRef("bot_high_id")))))


def rating_matches(*, game_id: int):
    """The ids (a ``values("id")`` queryset) of the finished matches of game ``game_id`` that make its
    ratings and pair records: rated, and not held out (:func:`held_out`)."""
    return (Match.objects.filter(RATED_MATCHES, game_id=game_id, status=Match.Status.FINISHED)
            .exclude(held_out()).values("id"))


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


def rated_owner_keys(*, bot_ids: Iterable[int]) -> dict[int, int | None]:
    """bot id -> the owner it answers to in rated play: its owner's user id, or None for a house bot (no
    owner: house bots may meet each other). Bots that do not exist are left out. One query."""
    rows = (Bot.objects.filter(id__in=list(bot_ids))
            .annotate(house=ExpressionWrapper(HOUSE_BOTS, output_field=BooleanField()))
            .values_list("id", "owner_id", "house"))
    return {bot_id: None if house else owner_id for bot_id, owner_id, house in rows}


def seating_owners_distinct(bot_ids: Sequence[int], *, owners: Mapping[int, int | None]) -> bool:
    """Whether one rated match may seat ``bot_ids`` together: no two of them answer to one owner.
    ``owners`` is :func:`rated_owner_keys` (a bot it lacks counts as its own owner). Pure: any pairing can
    ask it about a whole group, or about a group with one more candidate."""
    seen: set[int] = set()
    for bot_id in bot_ids:
        owner = owners.get(bot_id)
        if owner is None:
            continue
        if owner in seen:
            return False
        seen.add(owner)
    return True


def bots_sharing_an_owner(bot_ids: Iterable[int], *, owners: Mapping[int, int | None]) -> list[list[int]]:
    """The bots of ``bot_ids`` that share an owner with another of them, one list per owner (in the order
    given): what a rated schedule of all their combinations could not play."""
    by_owner: dict[int, list[int]] = {}
    for bot_id in bot_ids:
        owner = owners.get(bot_id)
        if owner is not None:
            by_owner.setdefault(owner, []).append(bot_id)
    return [bots for bots in by_owner.values() if len(bots) > 1]


def rated_seatings_check(*, tournament: Tournament, seatings: Sequence[Sequence[int]]) -> None:
    """Refuse (ValueError) to store a rated schedule in which one match seats two bots of one owner. The
    last guard, as matches are created: every rated pairing already avoids such groups, and a staff round
    robin is refused earlier with a message (:func:`round_robin_owners_check`). Nothing for unrated ones."""
    if not match_moves_ratings(tournament):
        return
    owners = rated_owner_keys(bot_ids={bot_id for seating in seatings for bot_id in seating})
    clashing = [tuple(seating) for seating in seatings if not seating_owners_distinct(seating, owners=owners)]
    if clashing:
        raise ValueError(f"a rated match may not seat two bots of one owner: {clashing[:5]}")


def round_robin_owners_check(*, bots: Mapping[int, Bot], players_per_match: int, rated: bool) -> None:
    """Refuse a rated round robin that would seat two bots of one owner in a match (ServiceError 400,
    naming them). A round robin plays every combination of its bots, so with two bots of one owner among
    them (and two seats or more) some match would; playing all but those matches would change what the
    round robin measures behind its creator's back. ``bots`` (id -> Bot) are its entrants. Unrated round robins may seat anybody."""
    if not rated or players_per_match < 2:
        return
    owners = rated_owner_keys(bot_ids=bots)
    shared = bots_sharing_an_owner(bots, owners=owners)
    if not shared:
        return
    names = "; ".join(f"{bots[group[0]].owner.username}'s {', '.join(sorted(bots[b].name for b in group))}"
                      for group in shared)
    raise ServiceError(
        "a rated round robin plays every combination of its bots, and rated play never seats two bots of one "
        f"owner in a match (they could trade games): {names}. Keep one bot per owner, or start it unrated",
        field="bots",
    )
