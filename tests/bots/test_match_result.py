"""``bots.match_result``: the plain data of a match: a recording to follow (:class:`ReplayScript`), a seat's
result kept storable whatever a bot wrote (:class:`SeatResult`), and the ``play --json`` object
(:meth:`MatchResult.to_json`)."""

from __future__ import annotations

import pytest

from bots.match_result import NO_ANSWER, OUTCOMES, BotSpec, MatchResult, ReplayScript, SeatResult
from bots.untrusted import REASON_CHARS

LEGAL = [{"pick": 0}, {"pick": 1}, {"pick": 2}]


def test_outcomes_and_bot_specs():
    assert OUTCOMES[0] == "ok" and "timeout" in OUTCOMES and len(set(OUTCOMES)) == len(OUTCOMES)
    spec = BotSpec("greedy", None)
    with pytest.raises(AttributeError):
        spec.name = "other"


def test_before_follow_until_the_recorded_action_is_applied_and_differing_answers_noted():
    recording = ReplayScript(actions=[{"pick": 1}, {"pick": 2}], follow_until=2)
    assert recording.choose(seat=0, step=0, legal=LEGAL, answer={"pick": 1}, coded=True) is LEGAL[1]
    assert recording.choose(seat=1, step=1, legal=LEGAL, answer={"pick": 0}, coded=True) is LEGAL[2]
    assert recording.choose(seat=0, step=1, legal=LEGAL, answer=NO_ANSWER, coded=True) is LEGAL[2]
    assert recording.discarded == [{"step": 1, "seat": 1, "answer": {"pick": 0}, "recorded": LEGAL[2]}]


def test_a_recorded_action_that_is_not_legal_where_it_must_be_followed_is_a_value_error():
    recording = ReplayScript(actions=[{"pick": 9}], follow_until=1)
    with pytest.raises(ValueError, match="step 0 is not legal"):
        recording.choose(seat=0, step=0, legal=LEGAL, answer=NO_ANSWER, coded=True)
    with pytest.raises(ValueError, match="step 1"):
        ReplayScript(actions=[{"pick": 0}], follow_until=2).choose(seat=0, step=1, legal=LEGAL, answer=NO_ANSWER,
                                                                 coded=True)


def test_from_follow_until_on_the_bots_answer_is_applied():
    recording = ReplayScript(actions=[{"pick": 1}, {"pick": 1}], follow_until=1)
    assert recording.choose(seat=0, step=1, legal=LEGAL, answer={"pick": 2}, coded=True) == {"pick": 2}
    assert recording.choose(seat=0, step=1, legal=LEGAL, answer=NO_ANSWER, coded=True) is LEGAL[0]


def test_a_seat_without_code_plays_the_record_until_it_stops_fitting_then_the_first_legal_action():
    recording = ReplayScript(actions=[{"pick": 2}, {"pick": 9}, {"pick": 1}])
    assert recording.choose(seat=1, step=0, legal=LEGAL, answer=NO_ANSWER, coded=False) is LEGAL[2]
    assert recording.choose(seat=1, step=1, legal=LEGAL, answer=NO_ANSWER, coded=False) is LEGAL[0]
    assert recording.fallback_from == {1: 1}
    # Once fallen back, the seat stays on the first legal action even where the record would fit again.
    assert recording.choose(seat=1, step=2, legal=LEGAL, answer=NO_ANSWER, coded=False) is LEGAL[0]
    assert recording.choose(seat=0, step=2, legal=LEGAL, answer=NO_ANSWER, coded=False) is LEGAL[1]
    assert recording.choose(seat=0, step=5, legal=LEGAL, answer=NO_ANSWER, coded=False) is LEGAL[0]
    assert recording.fallback_from == {1: 1, 0: 5}


def seat(**changes) -> SeatResult:
    fields = {"bot": "b", "score": 3, "place": 1, "outcome": "ok", "reason": "", "time_used_ms": 5, "log": ""}
    return SeatResult(**{**fields, **changes})


def test_seat_results_make_every_text_storable():
    result = seat(bot="a\x00b", reason="r" * 5000, log=b"bad \xff\x00",
                  decisions=[{"step": "2", "ms": 3.7, "log": b"\xfe"}])
    assert result.bot == "a\ufffdb"
    assert len(result.reason) <= REASON_CHARS and result.reason.startswith("rrr") and result.reason.endswith("characters cut]")
    assert result.log == "bad \ufffd\ufffd"
    assert result.decisions == [{"step": 2, "ms": 3, "log": "\ufffd"}]


def test_match_to_json_is_the_play_json_object():
    match = MatchResult(game="kingdomino", players=2, seed=4, options={"dynasty": False}, actions=[{"pick": 0}],
                        seats=[seat(decisions=[{"step": 0, "ms": 1, "log": "x"}]), seat(bot="c", place=2)],
                        duration_s=1.5)
    data = match.to_json()
    assert data == {"game": "kingdomino", "players": 2, "seed": 4, "options": {"dynasty": False},
                    "seats": [{"bot": "b", "score": 3, "place": 1, "outcome": "ok", "reason": ""},
                              {"bot": "c", "score": 3, "place": 2, "outcome": "ok", "reason": ""}],
                    "actions": [{"pick": 0}], "duration_s": 1.5}
    with_decisions = match.to_json(decisions=True)
    assert with_decisions["seats"][0]["decisions"] == [{"step": 0, "ms": 1, "log": "x"}]
    assert with_decisions["seats"][1]["decisions"] == [] and match.unsafe is False
