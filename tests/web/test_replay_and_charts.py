"""The replay helpers and the server-drawn charts, without the database."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

import engines
from ladder.selectors import matches as replays
from ladder.web import charts, replay

HOSTILE = "<script>alert(1)</script>"
GAMES = ["kingdomino", "draftosaurus", "carcassonne_dice", "dice_king"]


def _random_actions(game: str, players: int, seed: int, count: int) -> list:
    state = engines.get(game).new_state(players, seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal() and len(actions) < count:
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("game", GAMES)
def test_timeline_has_one_step_per_position_with_actor_and_scores(game):
    actions = _random_actions(game, 2, 11, 30)
    first_player = engines.get(game).new_state(2, 11).current_player()
    steps = replays.replay_timeline(game=game, players=2, seed=11, options=None, actions=actions)
    assert len(steps) == len(actions) + 1
    assert (steps[0].actor, steps[0].action) == (None, None)
    assert steps[1].actor == first_player == steps[0].to_move
    assert steps[1].action == replays.action_text(actions[0])
    assert all(len(step.scores) == 2 for step in steps)


@pytest.mark.parametrize("game", GAMES)
def test_every_renderer_escapes_hostile_seat_names(game):
    actions = _random_actions(game, 2, 5, 10)
    position = replays.replay_position(game=game, players=2, seed=5, options=None, actions=actions, step=10)
    frame = replay.frame(position, game=game, seat_names=[HOSTILE, "b&b"])
    tree = ET.fromstring(frame.svg)  # well-formed XML: nothing the name contains broke the markup
    assert not [el for el in tree.iter() if el.tag.rsplit("}", 1)[-1].lower() == "script"]
    assert HOSTILE not in frame.svg and "&lt;script&gt;" in frame.svg


def test_a_game_without_renderer_shows_its_json_view():
    actions = _random_actions("kingdomino", 2, 3, 4)
    position = replays.replay_position(game="kingdomino", players=2, seed=3, options=None, actions=actions, step=4)
    frame = replay.frame(position, game="kingdomino", seat_names=["a", "b"], renderer_for=lambda game: None)
    assert frame.svg is None
    state = engines.get("kingdomino").new_state(2, 3)
    for action in actions:
        state.apply(action)
    assert json.loads(frame.view_json) == state.view()


def test_frame_steps_are_clamped_and_bad_actions_explained():
    actions = _random_actions("draftosaurus", 2, 1, 6)
    assert replays.replay_position(game="draftosaurus", players=2, seed=1, options=None, actions=actions,
                                   step=99).step.step == 6
    with pytest.raises(replays.ReplayUnavailable, match="action 2"):
        replays.replay_timeline(game="draftosaurus", players=2, seed=1, options=None, actions=[actions[0], {"no": 1}])
    with pytest.raises(replays.ReplayUnavailable, match="no game"):
        replays.replay_timeline(game="chess", players=2, seed=1, options=None, actions=[])


def test_rating_chart_escapes_its_title_and_is_well_formed():
    svg = charts.rating_history_svg([1500, 1516, 1490, 1530], title=f"history of {HOSTILE}")
    tree = ET.fromstring(svg)
    assert tree.find("{http://www.w3.org/2000/svg}polyline") is not None
    assert HOSTILE not in svg


def test_rating_chart_downsamples_long_histories_and_keeps_the_last_point():
    values = [1500 + (i % 7) for i in range(10_000)]
    points = charts.downsample(values)
    assert len(points) == charts.MAX_POINTS
    assert points[0] == (0, values[0]) and points[-1] == (9_999, values[-1])
    polyline = ET.fromstring(charts.rating_history_svg(values)).find("{http://www.w3.org/2000/svg}polyline")
    assert len(polyline.get("points").split()) == charts.MAX_POINTS


def test_empty_history_says_so():
    assert "No rated games yet" in charts.rating_history_svg([1500.0])


def test_sparkline_colour_follows_the_trend():
    assert "#1a7f37" in charts.sparkline_svg([1500, 1490, 1520])
    assert "#c62828" in charts.sparkline_svg([1500, 1510, 1480])
    assert charts.sparkline_svg([1500]) == ""


# --- A seat's decisions: the time bank, the decision shown at a step, its label ---------------------------


def test_seat_decisions_draw_the_bank_down_by_the_time_over_the_move_clock():
    records = [{"step": 0, "ms": 84, "log": "opening\n"}, {"step": 2, "ms": 1500, "log": ""},
               {"step": 4, "ms": 1000, "log": "x"}, {"step": 6, "ms": 30_000, "log": "lost in thought"}]
    decisions = replay.seat_decisions(records, move_ms=1000, bank_ms=2000)
    assert [(d.step, d.ms, d.bank_ms) for d in decisions] == [(0, 84, 2000), (2, 1500, 1500), (4, 1000, 1500),
                                                              (6, 30_000, 0)]
    assert decisions[0].log == "opening\n"


def test_seat_decisions_skip_records_that_are_not_decisions_and_keep_step_order():
    records = [{"step": 3, "ms": 5, "log": "late"}, "junk", {"step": "1", "ms": 5}, {"ms": 4, "log": ""},
               {"step": 1, "ms": -7, "log": None}, {"step": True, "ms": 1, "log": ""}]
    decisions = replay.seat_decisions(records, move_ms=100, bank_ms=0)
    assert [(d.step, d.ms, d.log) for d in decisions] == [(1, 0, ""), (3, 5, "late")]
    assert replay.seat_decisions(None, move_ms=100, bank_ms=0) == []


# Seat 0 decided actions 0, 2 and 4 of a 6-action match; its answer after action 5 was never played.
DECIDED = replay.seat_decisions([{"step": s, "ms": 10 * s + 1, "log": f"log {s}"} for s in (0, 2, 4, 6)],
                                move_ms=1000, bank_ms=5000)


@pytest.mark.parametrize(("step", "shown"), [(0, None), (1, 0), (2, 0), (3, 2), (4, 2), (5, 4), (6, 6)])
def test_the_decision_shown_at_a_step_is_the_latest_whose_action_led_there(step, shown):
    index = replay.decision_shown(DECIDED, step=step, last=6)
    assert (None if index is None else DECIDED[index].step) == shown


def test_decision_labels_say_which_step_it_decided_and_how_long_it_took():
    label = replay.decision_label
    assert label(DECIDED, None, step=0, last=6, seat="seat 0 (north)") == \
        "seat 0 (north) has decided nothing before step 0"
    assert label(DECIDED, 1, step=3, last=6, seat="seat 0 (north)") == "seat 0 (north) decided step 3 in 21 ms"
    assert label(DECIDED, 1, step=4, last=6, seat="seat 0 (north)") == \
        "seat 0 (north) decided step 3 in 21 ms (its latest decision before step 4)"
    assert label(DECIDED, 3, step=6, last=6, seat="seat 0 (north)") == \
        "seat 0 (north) decided after step 6 in 61 ms; that answer was never played"


# --- The replay's charts ----------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def test_score_chart_draws_a_line_per_seat_a_cursor_and_escapes_names():
    scores = [[0, 0], [0, 3], [0, 3], [0, 3], [5, 3], [5, 3], [5, 9]]
    svg = charts.score_chart_svg(scores, seat_names=[HOSTILE, "b&b"], step=4)
    tree = ET.fromstring(svg)
    assert HOSTILE not in svg and "&lt;script&gt;" in svg
    assert tree.get("role") == "img" and tree.find(f"{SVG}title").text == "Scores after every step"
    lines = tree.findall(f".//{SVG}polyline")
    assert [line.get("data-seat") for line in lines] == ["0", "1"]
    cursor = tree.find(f".//{SVG}line[@class='cursor']")
    x0, x1 = float(tree.get("data-x0")), float(tree.get("data-x1"))
    assert tree.get("data-domain") == "6" and float(cursor.get("x1")) == pytest.approx(x0 + (x1 - x0) * 4 / 6, abs=0.1)
    assert len(tree.findall(f".//{SVG}circle[@class='cursor-dot']")) == 2


def test_score_chart_keeps_every_change_of_a_long_match_and_drops_only_flat_points():
    scores = [[i // 100, 0] for i in range(1501)]  # seat 0 scores a point every 100 steps; seat 1 never
    tree = ET.fromstring(charts.score_chart_svg(scores, seat_names=["a", "b"], step=0))
    first, second = (line.get("points").split() for line in tree.findall(f".//{SVG}polyline"))
    assert len(first) == 1 + 2 * 15 and len(second) == 2  # step 0, then both ends of each change
    assert len(charts.score_chart_svg(scores, seat_names=["a", "b"], step=0)) < 4000


def test_think_time_chart_has_a_bar_per_decision_the_move_clock_and_the_bank():
    svg = charts.think_time_svg(DECIDED, move_ms=1000, bank_ms=5000, last_step=6, step=3,
                                title=f"Think time of {HOSTILE}")
    tree = ET.fromstring(svg)
    assert HOSTILE not in svg
    bars = tree.find(f".//{SVG}path[@class='bars']")
    assert bars.get("d").count("M") == 4
    assert tree.find(f".//{SVG}line[@class='move-clock']") is not None
    assert len(tree.find(f".//{SVG}polyline[@class='bank']").get("points").split()) >= 2
    assert "4 decisions" in tree.find(f"{SVG}desc").text
    assert tree.get("data-domain") == "7"  # the answer never played sits one past the last step


def test_think_time_chart_marks_decisions_over_the_move_clock_and_says_so_when_there_are_none():
    slow = replay.seat_decisions([{"step": 0, "ms": 50, "log": ""}, {"step": 2, "ms": 1800, "log": ""}],
                                 move_ms=1000, bank_ms=5000)
    tree = ET.fromstring(charts.think_time_svg(slow, move_ms=1000, bank_ms=5000, last_step=4, step=0, title="t"))
    assert tree.find(f".//{SVG}path[@class='bars over']").get("d").count("M") == 1
    assert "1 over the move clock" in tree.find(f"{SVG}desc").text
    empty = charts.think_time_svg([], move_ms=1000, bank_ms=5000, last_step=4, step=0, title="t")
    assert "No decisions recorded" in empty
