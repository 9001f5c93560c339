"""Reading bots: the list with each bot's Elo and current version, a bot's detail and page, its rating
history, its head-to-head results, and an owner's own bots."""

from __future__ import annotations

from django.db.models import Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Lower

from ladder.core.errors import ServiceError
from ladder.models import Bot, BotVersion, Game, Match, PairFlag, Rating, RatingChange, Seat
from ladder.ratings.tables import HeadToHead, crosstable
from ladder.selectors import access
from ladder.selectors.ladder import bot_ladder_games, bot_ladder_status
from ladder.selectors.matches import RECENT_MATCHES, finished_matches_with_seats, seat_results

# Matches of a bot that its page's head-to-head table is computed over (the newest ones).
HEAD_TO_HEAD_MATCHES = 1000
# Opponents listed in a bot's head-to-head table, the most frequent first.
HEAD_TO_HEAD_OPPONENTS = 10


def current_version_number() -> Subquery:
    """The number of a bot's current version (its newest accepted one: the one that plays), as a
    subquery on ``Bot`` rows; None while no version is accepted."""
    return Subquery(
        BotVersion.objects.filter(bot=OuterRef("pk"), validation_status=BotVersion.Validation.ACCEPTED)
        .order_by("-number")
        .values("number")[:1]
    )


def bot_get(*, bot_id: int) -> Bot:
    """A bot with its game and owner (bots are public), or ServiceError 404."""
    bot = Bot.objects.select_related("game", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise ServiceError(f"no bot with id {bot_id}", status=404)
    return bot


def bots_listed() -> QuerySet[Bot]:
    """Every bot with its game and owner, annotated with ``elo`` (its rating in its game, None before its
    rating row exists) and ``current_version`` (:func:`current_version_number`): one query per page."""
    rating = Rating.objects.filter(bot=OuterRef("pk"), game=OuterRef("game")).values("elo")[:1]
    return Bot.objects.select_related("game", "owner").annotate(elo=Subquery(rating),
                                                                 current_version=current_version_number())


def bots_enterable(*, game: Game) -> QuerySet[Bot]:
    """The bots a tournament of ``game`` may enter: active, of that game, with an accepted version,
    anybody's. With their owner, annotated with ``elo`` (None before their rating row exists), the
    strongest first. One query."""
    accepted = BotVersion.objects.filter(bot=OuterRef("pk"), validation_status=BotVersion.Validation.ACCEPTED)
    rating = Rating.objects.filter(bot=OuterRef("pk"), game=OuterRef("game")).values("elo")[:1]
    return (
        Bot.objects.filter(game=game, active=True)
        .filter(Exists(accepted))
        .select_related("owner")
        .annotate(elo=Subquery(rating))
        .order_by(F("elo").desc(nulls_last=True), Lower("name"), "id")
    )


def bot_detail_get(*, bot_id: int) -> Bot:
    """A bot with its versions (code left out) and ratings prefetched, or ServiceError 404. Six queries
    at most.

    ``current_version`` is the prefetched version that :func:`current_version_number` names (None while
    no version is accepted); ``ladder_status`` whether the ladder pairs it, and if not why
    (``ladder.bot_ladder_status``: two queries, none for an inactive bot); ``ladder_games`` its ladder games
    of the last hour and day (``ladder.bot_ladder_games``: one query)."""
    bot = (
        Bot.objects.select_related("game", "owner")
        .annotate(current_version_number=current_version_number())
        .prefetch_related(
            Prefetch("versions", queryset=BotVersion.objects.defer("code").order_by("number")),
            Prefetch("ratings", queryset=Rating.objects.select_related("game").order_by("game_id")),
        )
        .filter(pk=bot_id)
        .first()
    )
    if bot is None:
        raise ServiceError(f"no bot with id {bot_id}", status=404)
    bot.current_version = next((v for v in bot.versions.all() if v.number == bot.current_version_number), None)
    bot.ladder_status = bot_ladder_status(bot=bot)
    bot.ladder_games = bot_ladder_games(bot=bot)
    return bot


def bot_rating_history(*, bot: Bot) -> QuerySet[RatingChange]:
    """One row per rated match of ``bot``, oldest first (the order the changes were applied), with the
    match's finish time and the version that played annotated as ``finished_at`` and ``version``."""
    return (
        RatingChange.objects.filter(bot=bot)
        .annotate(finished_at=F("match__finished_at"), version=F("seat__bot_version__number"))
        .order_by("id")
    )


def bot_head_to_head(*, bot: Bot, opponent: Bot) -> dict:
    """Pairwise results of ``bot`` against ``opponent`` over every finished public match where both sat
    (``access.PUBLIC_MATCHES``: a version comparison's games are no part of a bot's record).

    A multiplayer match counts as one result between the two (their places decide; a forfeit loses),
    as in ``crosstable``. Returns ``{"wins", "draws", "losses", "games", "score", "match_ids"}``
    with the match ids newest first. ServiceError 400 when the two bots are the same or play different
    games.
    """
    if bot.pk == opponent.pk:
        raise ServiceError("pick two different bots", field="opponent_id")
    if bot.game_id != opponent.game_id:
        raise ServiceError(f"{bot.name} and {opponent.name} play different games; they never meet",
                           field="opponent_id")
    shared = (
        Match.objects.filter(access.PUBLIC_MATCHES, status=Match.Status.FINISHED, seats__bot=bot)
        .filter(seats__bot=opponent)
        .values("id")
    )
    matches = seat_results(Q(match_id__in=shared))
    record = crosstable(matches.values()).get(bot.pk, {}).get(opponent.pk, HeadToHead())
    return {
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "games": record.games,
        "score": record.score,
        "match_ids": sorted(matches, reverse=True),
    }


def bot_frequent_opponents(*, bot: Bot) -> list[dict]:
    """Pairwise results against the most frequent opponents over the bot's newest finished public matches
    (as :func:`bot_head_to_head`): ``[{"opponent": Bot, "record": HeadToHead}]``, the most
    frequent first."""
    newest = list(
        Seat.objects.filter(bot=bot, match__status=Match.Status.FINISHED, match__comparison__isnull=True)
        .order_by("-match_id").values_list("match_id", flat=True)[:HEAD_TO_HEAD_MATCHES]
    )
    matches = [seats for seats in seat_results(Q(match_id__in=newest)).values() if len(seats) >= 2]
    row = crosstable(matches).get(bot.id, {})
    frequent = sorted(row.items(), key=lambda item: (-item[1].games, item[0]))[:HEAD_TO_HEAD_OPPONENTS]
    names = {b.id: b for b in Bot.objects.filter(id__in=[opponent for opponent, _ in frequent])}
    return [{"opponent": names[opponent], "record": record} for opponent, record in frequent if opponent in names]


def bot_page_data(*, bot_id: int, viewer) -> dict:
    """Everything on a bot's page; ServiceError 404 if there is no such bot. Its recent matches are those
    the viewer may see (``access.matches_readable_by``: its comparisons' for the owner and staff only),
    its seats' logs only where ``access`` lets the viewer read them (the owner, staff)."""
    bot = bot_get(bot_id=bot_id)
    owner_view = access.bot_private_readable(user=viewer, bot=bot)
    versions = list(BotVersion.objects.filter(bot=bot).defer("code").order_by("-number"))
    rating = Rating.objects.filter(bot=bot, game=bot.game_id).first()
    history = list(RatingChange.objects.filter(bot=bot).order_by("id").values_list("before", "after"))
    ratings_over_time = ([history[0][0]] + [after for _, after in history]) if history else []
    # The page shows the seats' logs (not their decisions), to the owner only.
    own_seats = Seat.objects.filter(access.matches_readable_by(viewer, via="match__"), bot=bot,
                                    match__status=Match.Status.FINISHED).order_by("-match_id")
    if not owner_view:
        own_seats = own_seats.defer("logs")
    own_seats = list(own_seats.select_related("bot_version")[:RECENT_MATCHES])
    matches = {m.id: m for m in finished_matches_with_seats().filter(id__in=[s.match_id for s in own_seats])}
    # A seat's log waits as long as its match's (access.match_logs_withheld): a rated deal's, until its
    # tournament finished.
    recent = [{"seat": seat, "match": matches[seat.match_id],
               "log_withheld": access.match_logs_withheld(matches[seat.match_id]) if owner_view else None}
              for seat in own_seats if seat.match_id in matches]
    return {
        "bot": bot,
        "owner_view": owner_view,
        "versions": versions,
        "rating": rating,
        "ratings_over_time": ratings_over_time,
        "recent": recent,
        "head_to_head": bot_frequent_opponents(bot=bot),
        "ladder_status": bot_ladder_status(bot=bot),
        "ladder_games": bot_ladder_games(bot=bot),
    }


def bots_of_owner(*, user) -> list[dict]:
    """The bots ``user`` owns (``access``), with their game, rating and newest upload (whatever its
    validation status, so the owner sees a pending or rejected one): ``[{"bot", "rating", "newest_upload"}]``."""
    bots = list(access.bots_changeable_by(user).select_related("game").order_by("game_id", "name"))
    ratings_by_bot = {r.bot_id: r for r in Rating.objects.filter(bot__in=[b.id for b in bots])}
    newest: dict[int, BotVersion] = {}
    for version in BotVersion.objects.filter(bot__in=[b.id for b in bots]).defer("code").order_by("bot_id", "number"):
        newest[version.bot_id] = version
    return [{"bot": b, "rating": ratings_by_bot.get(b.id), "newest_upload": newest.get(b.id)} for b in bots]


def bot_pair_flags(*, bot_id: int) -> list:
    """Every pair flagged for arranged games (``PairFlag``) that names bot ``bot_id``, newest first, with
    both bots and their owners: what staff see on its page. One query."""
    return list(PairFlag.objects.filter(Q(bot_low_id=bot_id) | Q(bot_high_id=bot_id))
                .select_related("bot_low__owner", "bot_high__owner", "reviewed_by").order_by("-flagged_at"))
