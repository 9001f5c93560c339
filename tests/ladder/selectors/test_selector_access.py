"""Who may read or change what (``ladder.selectors.access``): public and private matches per reader, the
bots one may change, the code and logs one may read, the logs of a rated match withheld from everyone until
its seed may be shown, forfeit reasons kept back with them, and the lookups that answer a private thing of
someone else's exactly like a missing one (404)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Bot, BotVersion, Match, Seat, Tournament
from ladder.selectors import access
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    StaffFactory,
    TournamentFactory,
    UserFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db

ANONYMOUS = AnonymousUser()


@pytest.fixture
def world():
    """A bot with two versions and a comparison of them (its matches private to the owner), and a public
    unrated match between the owner's bot and another user's."""
    owner, other, staff = UserFactory(), UserFactory(), StaffFactory()
    bot = BotFactory(owner=owner)
    BotVersionFactory(bot=bot)
    rival = BotFactory(owner=other)
    comparison = comparison_create(user=owner, bot_id=bot.id, baseline=1, candidate=2)
    public = finished_match(bots=[bot, rival], tournament=TournamentFactory(bots=[bot, rival]))
    return {"owner": owner, "other": other, "staff": staff, "bot": bot, "rival": rival, "comparison": comparison,
            "public": public, "private": set(comparison.matches.values_list("id", flat=True))}


def visible_matches(user, world) -> set[int]:
    ids = world["private"] | {world["public"].id}
    return set(Match.objects.filter(access.matches_readable_by(user), id__in=ids).values_list("id", flat=True))


def test_comparison_matches_are_the_owners_and_staffs_alone(world):
    assert world["private"]
    assert visible_matches(ANONYMOUS, world) == {world["public"].id}
    assert visible_matches(world["other"], world) == {world["public"].id}
    assert visible_matches(world["owner"], world) == world["private"] | {world["public"].id}
    assert visible_matches(world["staff"], world) == world["private"] | {world["public"].id}


def test_the_match_filter_applies_to_seats_through_via(world):
    seats = Seat.objects.filter(access.matches_readable_by(world["other"], via="match__"),
                                match_id__in=world["private"] | {world["public"].id})
    assert set(seats.values_list("match_id", flat=True)) == {world["public"].id}


def test_only_the_owner_may_change_a_bot_not_staff(world):
    assert set(access.bots_changeable_by(world["owner"])) == {world["bot"]}
    assert not access.bots_changeable_by(world["staff"]).filter(pk=world["bot"].pk).exists()
    assert not access.bots_changeable_by(ANONYMOUS).exists()
    assert access.bot_for_change(user=world["owner"], bot_id=world["bot"].id) == world["bot"]
    for user in (world["other"], world["staff"], ANONYMOUS, None):
        with pytest.raises(ServiceError, match="only a bot's owner may change it") as refusal:
            access.bot_for_change(user=user, bot_id=world["bot"].id)
        assert refusal.value.status == 404
    with pytest.raises(ServiceError) as missing:
        access.bot_for_change(user=world["owner"], bot_id=10**12)
    assert missing.value.status == 404


def test_code_is_readable_by_the_owner_and_staff(world):
    bot = world["bot"]
    assert set(access.bot_versions_readable_by(world["owner"]).filter(bot=bot).values_list("number", flat=True)) \
        == {1, 2}
    assert access.bot_versions_readable_by(world["staff"]).count() == BotVersion.objects.count()
    assert not access.bot_versions_readable_by(world["other"]).filter(bot=bot).exists()
    assert not access.bot_versions_readable_by(ANONYMOUS).exists()
    version = access.bot_version_for_download(user=world["staff"], bot_id=bot.id, number=2)
    assert version.number == 2 and version.code
    for user, number in ((world["other"], 1), (world["owner"], 3)):
        with pytest.raises(ServiceError, match="code is readable by its owner only") as refusal:
            access.bot_version_for_download(user=user, bot_id=bot.id, number=number)
        assert refusal.value.status == 404


def test_private_reads_of_a_bot(world):
    bot = world["bot"]
    assert access.bot_private_readable(user=world["owner"], bot=bot)
    assert access.bot_private_readable(user=world["staff"], bot=bot)
    assert not access.bot_private_readable(user=world["other"], bot=bot)
    assert not access.bot_private_readable(user=ANONYMOUS, bot=bot)
    assert access.bot_for_private_read(user=world["owner"], bot_id=bot.id) == bot
    for user, bot_id in ((world["other"], bot.id), (world["owner"], 10**12)):
        with pytest.raises(ServiceError) as refusal:
            access.bot_for_private_read(user=user, bot_id=bot_id)
        assert refusal.value.status == 404


def test_seat_logs_are_the_owners_and_staffs(world):
    match = world["public"]
    seats = access.match_seats_with_logs(user=world["owner"], match_id=match.id)
    assert [seat.bot_id for seat in seats] == [world["bot"].id]
    assert seats[0].log.startswith("log of ")
    assert [seat.bot_id for seat in access.match_seats_with_logs(user=world["staff"], match_id=match.id)] == [
        world["bot"].id, world["rival"].id]
    assert not access.seats_with_logs_readable_by(ANONYMOUS).exists()
    assert set(access.seats_with_logs_readable_by(world["other"]).values_list("bot_id", flat=True)) == {
        world["rival"].id}


def test_logs_of_a_match_one_may_not_read_answer_404(world):
    private_match = min(world["private"])
    for user, match_id in ((ANONYMOUS, world["public"].id), (world["other"], private_match),
                           (world["owner"], 10**12)):
        with pytest.raises(ServiceError, match="logs are readable by the bot's owner only") as refusal:
            access.match_seats_with_logs(user=user, match_id=match_id)
        assert refusal.value.status == 404


def test_a_rated_matchs_logs_wait_until_it_finished(world):
    bot, rival = world["bot"], world["rival"]
    tournament = RatedTournamentFactory(bots=[bot, rival])
    waiting = MatchFactory(tournament=tournament)
    SeatFactory(match=waiting, position=0, bot=bot)
    SeatFactory(match=waiting, position=1, bot=rival)
    reason = access.match_logs_withheld(Match.objects.select_related("tournament").get(pk=waiting.pk))
    assert f"the logs of match {waiting.id} stay hidden while it is {waiting.status}" in reason
    with pytest.raises(ServiceError) as refusal:
        access.match_seats_with_logs(user=world["owner"], match_id=waiting.id)
    assert refusal.value.status == 409
    done = finished_match(bots=[bot, rival], tournament=tournament)
    assert access.match_logs_withheld(done) is None
    assert access.match_seats_with_logs(user=world["owner"], match_id=done.id)
    assert access.match_logs_withheld(world["public"]) is None


def test_a_rated_deals_logs_and_reasons_wait_for_its_tournament(world):
    bot, rival = world["bot"], world["rival"]
    tournament = RatedTournamentFactory(bots=[bot, rival])
    MatchFactory(tournament=tournament)  # a match still to play: the tournament runs on
    rotation = finished_match(bots=[bot, rival], tournament=tournament, deal=0, seed=77,
                              outcomes=["timeout", "ok"])
    reason = access.match_logs_withheld(rotation)
    assert f"until tournament {tournament.id} finished" in reason
    assert access.seat_reason_public(rotation, "timeout on move 1") == (
        f"(withheld until tournament {tournament.id} finished)")
    assert access.seat_reason_public(rotation, "") == ""
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED, finished_at=timezone.now())
    rotation = Match.objects.select_related("tournament").get(pk=rotation.pk)
    assert access.match_logs_withheld(rotation) is None
    assert access.seat_reason_public(rotation, "timeout on move 1") == "timeout on move 1"


def test_a_rated_non_deal_match_keeps_its_reasons_public(world):
    tournament = RatedTournamentFactory(bots=[world["bot"], world["rival"]])
    waiting = MatchFactory(tournament=tournament)
    assert access.match_logs_withheld(waiting) is not None
    assert access.seat_reason_public(waiting, "crashed") == "crashed"


def test_comparisons_are_readable_by_the_owner_and_staff(world):
    comparison = world["comparison"]
    assert list(access.comparisons_readable_by(world["owner"])) == [comparison]
    assert access.comparisons_readable_by(world["staff"]).filter(pk=comparison.pk).exists()
    assert not access.comparisons_readable_by(world["other"]).exists()
    assert not access.comparisons_readable_by(ANONYMOUS).exists()
    read = access.comparison_for_read(user=world["staff"], comparison_id=comparison.id)
    assert read == comparison and read.bot.game.slug == "kingdomino"
    for user in (world["other"], ANONYMOUS, None):
        with pytest.raises(ServiceError, match="readable by its bot's owner only") as refusal:
            access.comparison_for_read(user=user, comparison_id=comparison.id)
        assert refusal.value.status == 404


def test_the_public_matches_filter_leaves_out_comparisons(world):
    public = set(Match.objects.filter(access.PUBLIC_MATCHES).values_list("id", flat=True))
    assert world["public"].id in public and not public & world["private"]
    assert Bot.objects.filter(pk=world["bot"].pk).exists()
