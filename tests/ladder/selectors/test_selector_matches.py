"""Reading matches (``ladder.selectors.matches``): seat results as the tables read them, lists and one match
kept to what the reader may see, recent matches, private logs by position, replays (timeline, positions,
views) and each reason one is unavailable, and the bundle with code for the seats the reader may read."""

from __future__ import annotations

import base64
import hashlib

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from ladder.core.errors import ServiceError
from ladder.models import Game, Match
from ladder.ratings.tables import PlacedSeat
from ladder.selectors import matches as reads
from ladder.selectors.matches import REPLAY_STATUS, ReplayUnavailable
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    StaffFactory,
    TournamentFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db

ANONYMOUS = AnonymousUser()


@pytest.fixture
def played():
    a, b = BotFactory(name="a"), BotFactory(name="b")
    match = finished_match(bots=[a, b], tournament=TournamentFactory(bots=[a, b]),
                           decisions=[[{"step": 0, "ms": 2, "log": "hm"}], []])
    return {"a": a, "b": b, "match": match}


def test_seat_rows_become_placed_seats_a_missing_place_last_and_bad_outcomes_forfeits():
    rows = [(7, 1, 1, 10, "ok"), (7, 2, None, None, "timeout"), (7, 3, 2, 4, ""), (9, 1, 2, 0, "crash"),
            (9, 2, 1, 5, "ok")]
    assert reads.seat_results_by_match(rows) == {
        7: [PlacedSeat(1, 1, 10, False), PlacedSeat(2, 3, 0, True), PlacedSeat(3, 2, 4, False)],
        9: [PlacedSeat(1, 2, 0, True), PlacedSeat(2, 1, 5, False)],
    }
    assert reads.seat_results_by_match([]) == {}


def test_finished_seat_results_leave_out_unfinished_matches(played):
    MatchFactory(tournament=played["match"].tournament)
    results = reads.finished_seat_results(Q(bot=played["a"]) | Q(bot=played["b"]))
    assert list(results) == [played["match"].id]
    assert [seat.bot_id for seat in results[played["match"].id]] == [played["a"].id, played["b"].id]


def test_lists_and_lookups_keep_comparison_matches_to_their_owner(played):
    a = played["a"]
    BotVersionFactory(bot=a)
    private = comparison_create(user=a.owner, bot_id=a.id, baseline=1, candidate=2, max_games=10).matches.first()
    assert private.id in set(reads.matches_listed(user=a.owner).values_list("id", flat=True))
    assert private.id in set(reads.matches_listed(user=StaffFactory()).values_list("id", flat=True))
    assert private.id not in set(reads.matches_listed(user=played["b"].owner).values_list("id", flat=True))
    assert reads.match_get(match_id=private.id, user=a.owner) == private
    for user, match_id in ((ANONYMOUS, private.id), (played["b"].owner, private.id), (a.owner, 10**12)):
        with pytest.raises(ServiceError, match="no match with id") as refusal:
            reads.match_get(match_id=match_id, user=user)
        assert refusal.value.status == 404


def test_a_listed_match_has_its_seats_without_logs_or_actions(played, django_assert_num_queries):
    with django_assert_num_queries(2):
        [match] = list(reads.matches_listed(user=ANONYMOUS).filter(pk=played["match"].pk))
        seats = list(match.seats.all())
    assert [seat.bot.name for seat in seats] == ["a", "b"]
    assert "logs" in seats[0].get_deferred_fields() and "actions_packed" in match.get_deferred_fields()


def test_recent_matches_newest_first_by_game_tournament_and_limit(played):
    a, b = played["a"], played["b"]
    newer = finished_match(bots=[b, a], tournament=played["match"].tournament)
    dice_king = Game.objects.get(slug="dice_king")
    c, d = BotFactory(game=dice_king), BotFactory(game=dice_king)
    other = finished_match(bots=[c, d], tournament=TournamentFactory(game=dice_king, bots=[c, d]))
    assert [m.id for m in reads.recent_matches()] == [other.id, newer.id, played["match"].id]
    assert [m.id for m in reads.recent_matches(game=dice_king)] == [other.id]
    assert [m.id for m in reads.recent_matches(tournament=played["match"].tournament, limit=1)] == [newer.id]


def test_private_logs_by_position_for_the_owner_and_staff(played):
    match = Match.objects.select_related("tournament").get(pk=played["match"].pk)
    assert reads.match_private_by_position(match=match, user=played["a"].owner) == {
        0: ("log of a\n", [{"step": 0, "ms": 2, "log": "hm"}])}
    assert set(reads.match_private_by_position(match=match, user=StaffFactory())) == {0, 1}
    assert reads.match_private_by_position(match=match, user=ANONYMOUS) == {}


def test_a_rated_matchs_private_logs_wait_for_it():
    a, b = BotFactory(), BotFactory()
    waiting = MatchFactory(tournament=RatedTournamentFactory(bots=[a, b]))
    assert reads.match_private_by_position(match=waiting, user=StaffFactory()) == {}


def test_actions_read_as_compact_sorted_json():
    assert reads.action_text({"b": [1, 2], "a": "x"}) == '{"a": "x", "b": [1, 2]}'
    assert reads.action_text(3) == "3"


def test_the_timeline_has_a_step_per_position_and_positions_are_clamped(played):
    match = Match.objects.select_related("game", "tournament").get(pk=played["match"].pk)
    timeline = reads.match_timeline(match=match)
    assert len(timeline) == len(match.actions) + 1
    assert timeline[0].step == 0 and timeline[0].actor is None and timeline[0].action is None
    assert timeline[1].action == reads.action_text(match.actions[0]) and timeline[1].actor in (0, 1)
    assert timeline[-1].to_move is None or isinstance(timeline[-1].to_move, int)
    assert timeline[1].to_json()["step"] == 1
    assert reads.match_position(match=match, step=10**6).step == timeline[-1]
    assert reads.match_position(match=match, step=-5).step == timeline[0]
    arguments = {"game": "kingdomino", "players": 2, "seed": match.seed, "options": match.options,
                 "actions": match.actions}
    assert reads.replay_views(**arguments)[2] == reads.replay_position(**arguments, step=2).view
    assert len(reads.replay_views(**arguments)) == len(timeline)


def test_replays_refuse_what_the_installed_rules_cannot_play(played):
    match = played["match"]
    arguments = {"players": 2, "seed": match.seed, "options": match.options}
    with pytest.raises(ReplayUnavailable) as missing:
        reads.replay_timeline(game="chess", actions=[], **arguments)
    assert missing.value.reason == "game_missing" and missing.value.status == 410
    with pytest.raises(ReplayUnavailable, match="action 2") as bad:
        reads.replay_timeline(game="kingdomino", actions=[match.actions[0], {"nonsense": True}], **arguments)
    assert bad.value.reason == "does_not_fit" and bad.value.status == 409
    with pytest.raises(ReplayUnavailable, match="options do not fit") as options:
        reads.replay_timeline(game="kingdomino", players=2, seed=1, options={"no_such_option": 1}, actions=[])
    assert options.value.reason == "does_not_fit"


def test_each_reason_a_match_cannot_be_replayed(played):
    queued = MatchFactory(tournament=played["match"].tournament)
    assert reads.replay_unavailable_reason(match=queued).reason == "unfinished"
    match = Match.objects.select_related("game", "tournament").get(pk=played["match"].pk)
    assert reads.replay_unavailable_reason(match=match) is None
    match.rules_version = (match.rules_version or 0) + 1000
    refusal = reads.replay_unavailable_reason(match=match)
    assert refusal.reason == "rules_changed" and refusal.status == REPLAY_STATUS["rules_changed"] == 410
    with pytest.raises(ReplayUnavailable, match="the rules changed since"):
        reads.match_timeline(match=match)
    match.rules_version = None
    assert reads.replay_unavailable_reason(match=match) is None


def test_a_rated_deals_rotation_keeps_its_replay_and_bundle_until_the_tournament_finished():
    a, b = BotFactory(), BotFactory()
    tournament = RatedTournamentFactory(bots=[a, b])
    MatchFactory(tournament=tournament)
    rotation = finished_match(bots=[a, b], tournament=tournament, deal=0, seed=3)
    assert reads.replay_unavailable_reason(match=rotation).reason == "seed_secret"
    with pytest.raises(ReplayUnavailable) as refusal:
        reads.match_bundle(match_id=rotation.id, user=a.owner)
    assert refusal.value.reason == "seed_secret" and refusal.value.status == 409


def test_the_replay_has_a_frame_per_position(played):
    replay = reads.match_replay(match_id=played["match"].id, user=ANONYMOUS)
    assert replay["actions"] == played["match"].actions
    assert len(replay["frames"]) == len(replay["actions"]) + 1
    with pytest.raises(ServiceError) as missing:
        reads.match_replay(match_id=10**12, user=ANONYMOUS)
    assert missing.value.status == 404


def test_the_bundle_carries_code_only_for_the_seats_the_reader_may_read(played):
    match = played["match"]
    bundle = reads.match_bundle(match_id=match.id, user=played["a"].owner)
    assert (bundle["match"], bundle["game"], bundle["players"], bundle["seed"]) == (match.id, "kingdomino", 2,
                                                                                    match.seed)
    assert bundle["actions"] == match.actions and bundle["limits"]["move_ms"] > 0
    own, other = bundle["seats"]
    code = bytes(played["a"].versions.get().code)
    assert own["code"] == {"kind": "py", "sha256": hashlib.sha256(code).hexdigest(),
                           "base64": base64.b64encode(code).decode()}
    assert other["code"] is None and other["bot"] == "b" and other["version"] == 1
    staff_bundle = reads.match_bundle(match_id=match.id, user=StaffFactory())
    assert all(seat["code"] for seat in staff_bundle["seats"])
    assert all(seat["code"] is None for seat in reads.match_bundle(match_id=match.id, user=ANONYMOUS)["seats"])
    queued = MatchFactory(tournament=match.tournament)
    with pytest.raises(ReplayUnavailable) as waiting:
        reads.match_bundle(match_id=queued.id, user=ANONYMOUS)
    assert waiting.value.reason == "unfinished"
