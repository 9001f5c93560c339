"""Who may read or change what: the one place where ownership is decided.

Bots, tournaments, ratings and tournaments' matches are public. Four things are private to a bot's owner
(staff may read them too): the code of its versions, the logs of its seats, its version comparisons, and
the comparisons' matches (they seat the owner's unreleased versions): a comparison's match is listed,
shown, replayed and bundled for the comparison's owner and staff only, and the owner of an opponent bot
it seated does not see it either (nor its seat's log there). The public record of a bot (head-to-head
tables, match counts) is made of public matches alone, for every reader. Changing a bot (new version,
deactivate, reactivate) is for its owner alone.

The logs and decisions of a rated match are withheld, from its owners and from staff alike, for as long
as its seed is (``rated_play.match_seed_visible``, the one rule for the seed, the replay, the bundle and
the logs): what a bot printed in one rotation of a rated duplicate deal shows the deal its other rotations
still play. Staff wait too: staff may enter bots, and no reader needs a rated match's logs before its
results are all in.

Every lookup here is scoped to the requesting user before it touches an id, so a private thing that is
not yours answers exactly like one that does not exist (404): ids reveal nothing. Views never filter by
owner themselves; they call these functions.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet

from ladder.core.errors import ServiceError
from ladder.core.rated_play import match_seed_visible
from ladder.models import Bot, BotVersion, Comparison, Match, Seat


def _can_read_private(user) -> bool:
    return bool(user and user.is_authenticated)


#: Matches anyone may see, as a filter on Match rows: every tournament's (a comparison's are private).
PUBLIC_MATCHES = Q(comparison__isnull=True)


def matches_readable_by(user, *, via: str = "") -> Q:
    """The matches ``user`` may see, as a filter on Match rows (``via`` prefixes its lookups, e.g.
    ``"match__"`` to filter Seat rows): the public ones, and the matches of their own bots' comparisons;
    every match for staff. Filter with it before touching an id, so that a hidden match answers like a
    missing one."""
    if _can_read_private(user) and user.is_staff:
        return Q()
    public = Q(**{f"{via}comparison__isnull": True})
    if not _can_read_private(user):
        return public
    return public | Q(**{f"{via}comparison__bot__owner": user})


def bots_changeable_by(user) -> QuerySet[Bot]:
    """The bots ``user`` may change: only their own (staff may read private things, not edit them)."""
    if not _can_read_private(user):
        return Bot.objects.none()
    return Bot.objects.filter(owner=user)


def bot_versions_readable_by(user) -> QuerySet[BotVersion]:
    """Versions whose code ``user`` may download: their own bots', or every one for staff."""
    if not _can_read_private(user):
        return BotVersion.objects.none()
    if user.is_staff:
        return BotVersion.objects.all()
    return BotVersion.objects.filter(bot__owner=user)


def bot_private_readable(*, user, bot: Bot) -> bool:
    """Whether ``user`` may read what is private to ``bot``'s owner (its code, its logs, the log of a
    rejected upload's smoke match): the owner, and staff."""
    return _can_read_private(user) and (user.is_staff or bot.owner_id == user.id)


def seats_with_logs_readable_by(user) -> QuerySet[Seat]:
    """Seats whose bot log ``user`` may read: their own bots' seats, or every seat for staff."""
    if not _can_read_private(user):
        return Seat.objects.none()
    if user.is_staff:
        return Seat.objects.all()
    return Seat.objects.filter(bot__owner=user)


def bot_for_change(*, user, bot_id: int) -> Bot:
    """The bot ``bot_id`` if ``user`` owns it; otherwise ServiceError 404, as if it did not exist."""
    bot = bots_changeable_by(user or AnonymousUser()).select_related("game", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise ServiceError(f"you have no bot with id {bot_id}: only a bot's owner may change it", status=404)
    return bot


def bot_version_for_download(*, user, bot_id: int, number: int) -> BotVersion:
    """Version ``number`` of bot ``bot_id`` with its code, if ``user`` may read it; otherwise 404."""
    version = bot_versions_readable_by(user).filter(bot_id=bot_id, number=number).first()
    if version is None:
        raise ServiceError(
            f"no readable version {number} of bot {bot_id}: code is readable by its owner only", status=404
        )
    return version


def match_logs_withheld(match: Match) -> str | None:
    """Why nobody may read the logs and decisions of ``match`` yet, saying when they may; None once they
    may be read by whom ``seats_with_logs_readable_by`` lets (always for an unrated match). Reads
    ``match.tournament`` (select it with the match)."""
    if match_seed_visible(match):
        return None
    if match.deal is not None:
        return (f"the logs of match {match.id} stay hidden until tournament {match.tournament_id} finished: it is "
                "one rotation of a rated duplicate deal, and what a bot printed there shows the deal its other "
                f"rotations play; read them once GET /api/tournaments/{match.tournament_id}/ says finished")
    return (f"the logs of match {match.id} stay hidden while it is {match.status}: a rated match's logs are "
            f"readable once it finished (GET /api/matches/{match.id}/ says when)")


def seat_reason_public(match: Match, reason: str) -> str:
    """A seat's forfeit ``reason`` as anyone may read it: a rated deal's rotation keeps it to itself while
    its logs are withheld, since a reason may quote what the bot sent (and so the deal)."""
    if reason and match.deal is not None and match_logs_withheld(match):
        return f"(withheld until tournament {match.tournament_id} finished)"
    return reason


def match_seats_with_logs(*, user, match_id: int) -> list[Seat]:
    """The seats of match ``match_id`` whose logs ``user`` may read, by position. One query.

    404 when the match does not exist, is hidden from ``user`` or none of its seats is readable: whether
    another user's bots played it is not revealed by this route (the public match detail says who
    played, not their logs). 409 while the logs are withheld (:func:`match_logs_withheld`).
    """
    seats = list(
        seats_with_logs_readable_by(user)
        .filter(matches_readable_by(user, via="match__"), match_id=match_id)
        .select_related("bot", "bot_version", "match__tournament")
        .defer("bot_version__code", "match__actions_json", "match__actions_packed")
        .order_by("position")
    )
    if not seats:
        raise ServiceError(f"no logs of yours in match {match_id}: logs are readable by the bot's owner only",
                           status=404)
    withheld = match_logs_withheld(seats[0].match)
    if withheld is not None:
        raise ServiceError(withheld, status=409)
    return seats


def comparisons_readable_by(user) -> QuerySet[Comparison]:
    """Version comparisons ``user`` may read: those of their own bots, or every one for staff."""
    if not _can_read_private(user):
        return Comparison.objects.none()
    if user.is_staff:
        return Comparison.objects.all()
    return Comparison.objects.filter(bot__owner=user)


def comparison_for_read(*, user, comparison_id: int) -> Comparison:
    """Comparison ``comparison_id`` with its bot, game and versions if ``user`` may read it; otherwise
    ServiceError 404, as if it did not exist."""
    comparison = (comparisons_readable_by(user or AnonymousUser())
                  .select_related("bot__game", "bot__owner", "baseline", "candidate")
                  .defer("baseline__code", "candidate__code").filter(pk=comparison_id).first())
    if comparison is None:
        raise ServiceError(f"no comparison of yours with id {comparison_id}: a comparison is readable by its "
                           "bot's owner only", status=404)
    return comparison


def bot_for_private_read(*, user, bot_id: int) -> Bot:
    """The bot ``bot_id`` if ``user`` may read what is private to it (its owner, staff); otherwise
    ServiceError 404."""
    bot = Bot.objects.select_related("game", "owner").filter(pk=bot_id).first()
    if bot is None or not bot_private_readable(user=user, bot=bot):
        raise ServiceError(f"no bot of yours with id {bot_id}: its comparisons are readable by its owner only",
                           status=404)
    return bot
