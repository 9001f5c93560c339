"""The replay helpers and the server-drawn charts, without the database."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

import engines
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
    steps = replay.timeline(game=game, players=2, seed=11, options=None, actions=actions)
    assert len(steps) == len(actions) + 1
    assert (steps[0].actor, steps[0].action) == (None, None)
    assert steps[1].actor == first_player == steps[0].to_move
    assert steps[1].action == replay.action_text(actions[0])
    assert all(len(step.scores) == 2 for step in steps)


@pytest.mark.parametrize("game", GAMES)
def test_every_renderer_escapes_hostile_seat_names(game):
    actions = _random_actions(game, 2, 5, 10)
    frame = replay.frame(game=game, players=2, seed=5, options=None, actions=actions, step=10,
                         seat_names=[HOSTILE, "b&b"])
    tree = ET.fromstring(frame.svg)  # well-formed XML: nothing the name contains broke the markup
    assert not [el for el in tree.iter() if el.tag.rsplit("}", 1)[-1].lower() == "script"]
    assert HOSTILE not in frame.svg and "&lt;script&gt;" in frame.svg


def test_a_game_without_renderer_shows_its_json_view():
    actions = _random_actions("kingdomino", 2, 3, 4)
    frame = replay.frame(game="kingdomino", players=2, seed=3, options=None, actions=actions, step=4,
                         seat_names=["a", "b"], renderer_for=lambda game: None)
    assert frame.svg is None
    state = engines.get("kingdomino").new_state(2, 3)
    for action in actions:
        state.apply(action)
    assert json.loads(frame.view_json) == state.view()


def test_frame_steps_are_clamped_and_bad_actions_explained():
    actions = _random_actions("draftosaurus", 2, 1, 6)
    assert replay.frame(game="draftosaurus", players=2, seed=1, options=None, actions=actions, step=99,
                        seat_names=[]).step.step == 6
    with pytest.raises(replay.ReplayUnavailable, match="action 2"):
        replay.timeline(game="draftosaurus", players=2, seed=1, options=None, actions=[actions[0], {"no": 1}])
    with pytest.raises(replay.ReplayUnavailable, match="no game"):
        replay.timeline(game="chess", players=2, seed=1, options=None, actions=[])


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
