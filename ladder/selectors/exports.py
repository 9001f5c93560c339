"""Bulk export of a game's public history: every finished public match, in id order, as plain dicts ready
to be written one per line (JSON Lines), with what a researcher needs to replay it with the engines.

What is public here is what it is for every reader, staff included: the matches of tournaments and of
the ladder (``access.PUBLIC_MATCHES``; never a version comparison's, which seat an owner's unreleased
versions), finished, and whose seed may be shown (``rated_play.match_seed_visible``: a rotation of a
rated duplicate deal waits for its tournament to finish). Nothing private travels: no code, no logs, no
forfeit reasons (a reason may quote what a bot printed).

Memory stays bounded however long the history: matches are read in keyset chunks of
:data:`EXPORT_CHUNK` by id (each chunk one query for the matches and one for their seats, as plain
rows, no model instances), and the caller writes each match out before the next chunk is read.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Q

from ladder.core.errors import ServiceError
from ladder.models import Game, Match, Seat, Tournament
from ladder.selectors.access import PUBLIC_MATCHES

#: Matches read per query: small enough that a chunk's actions fit in memory many times over.
EXPORT_CHUNK = 200

#: The largest ``after`` accepted: a match id is a 64-bit integer.
AFTER_MAX = (1 << 63) - 1

#: Finished public matches whose seed anyone may see (the SQL form of ``rated_play.match_seed_visible``
#: for a finished match: unrated, or not a duplicate deal's rotation, or its tournament finished).
EXPORTABLE = (PUBLIC_MATCHES & Q(tournament__isnull=False, status=Match.Status.FINISHED)
              & (Q(tournament__rated=False) | Q(deal__isnull=True)
                 | Q(tournament__status=Tournament.Status.FINISHED)))


def export_game_get(*, slug: str) -> Game:
    """The game whose history is exported, installed now or not (its history stays); ServiceError 404."""
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise ServiceError(f"no game {slug!r}: GET /api/games/ lists them", status=404)
    return game


def exported_matches(*, game: Game, after: int = 0, limit: int | None = None,
                     chunk: int = EXPORT_CHUNK) -> Iterator[dict]:
    """Each exportable match of ``game`` with an id above ``after``, in id order, ``limit`` at most (None:
    to the end):

    ``{"id", "game", "rules_version", "tournament_id", "rated", "deal", "players", "seed", "options",
    "finished_at", "seats": [{"position", "bot", "bot_id", "version", "owner", "score", "place", "outcome"}], "actions"}``

    A match finished after the export began is included if its id comes later than the chunk being read;
    a client resumes with ``after`` set to the last id it stored.
    """
    columns = ("id", "rules_version", "tournament_id", "tournament__rated", "deal", "players", "seed", "setup__options",
               "finished_at", "actions_json", "actions_packed")
    left = limit
    while left is None or left > 0:
        size = chunk if left is None else min(chunk, left)
        rows = list(Match.objects.filter(EXPORTABLE, game=game, id__gt=after).order_by("id")
                    .values_list(*columns)[:size])
        if not rows:
            return
        if left is not None:
            left -= len(rows)
        seats: dict[int, list[dict]] = {}
        for match_id, *seat in (Seat.objects.filter(match_id__in=[row[0] for row in rows])
                                .order_by("match_id", "position")
                                .values_list("match_id", "position", "bot__name", "bot_id", "bot_version__number",
                                             "bot__owner__username", "score", "place", "outcome")):
            seats.setdefault(match_id, []).append(dict(zip(
                ("position", "bot", "bot_id", "version", "owner", "score", "place", "outcome"), seat)))
        for (match_id, rules_version, tournament_id, rated, deal, players, seed, options, finished_at, actions_json,
             actions_packed) in rows:
            actions = Match.actions_from(actions_json=actions_json, actions_packed=actions_packed)
            yield {"id": match_id, "game": game.slug, "rules_version": rules_version,
                   "tournament_id": tournament_id, "rated": rated, "deal": deal, "players": players, "seed": seed,
                   "options": options or {}, "finished_at": finished_at, "seats": seats.get(match_id, []),
                   "actions": actions}
        after = rows[-1][0]
