"""The SVG renderer: parses for views along games, escapes seat names, shows kingdoms, lines and scores;
ED-12 seat colours."""

import random
import xml.etree.ElementTree as ET

import pytest
from kingdomino_helpers import WORKED_EXAMPLE, build_kingdom, finished, game

from engines.kingdomino.render import SEAT_COLOURS, TERRAIN_FILL, render
from engines.kingdomino.state import COLOURS

SVG = "{http://www.w3.org/2000/svg}"


def views_along(players, options, seed, every=7):
    state = game().new_state(players, seed, options)
    chooser = random.Random(seed)
    views = [state.view()]
    step = 0
    while not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
        step += 1
        if step % every == 0:
            views.append(state.view())
    views.append(state.view())
    return views


@pytest.mark.parametrize(("players", "options"), game().variants()[::2] + [(2, {"mighty_duel": True})])
def test_render_parses_along_a_game(players, options):
    for view in views_along(players, {**game().default_options(), **options}, seed=players):
        svg = render(view)
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg" and root.get("viewBox")
        assert all(element.tag != f"{SVG}script" for element in root.iter())
        assert "href" not in svg and "http://" not in svg.replace("http://www.w3.org/2000/svg", "")


def test_render_escapes_seat_names():
    view = views_along(2, None, seed=1)[3]
    hostile = "<script>alert(1)</script>"
    svg = render(view, seat_names=[hostile, "Bob & 'Alice' \"quoted\""])
    assert "<script>" not in svg
    root = ET.fromstring(svg)
    texts = ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]
    assert any(hostile[:15] in text for text in texts)
    assert any("Bob & 'Alice'" in text for text in texts)


def test_render_shows_each_kingdom_terrain_castle_and_scores():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom([])], middle_kingdom=True, harmony=True)
    svg = render(state.view(), seat_names=["Ann", "Ben"])
    for letter in "WFLGSM":
        assert TERRAIN_FILL[letter] in svg
    texts = ["".join(element.itertext()) for element in ET.fromstring(svg).iter(f"{SVG}text")]
    assert any("65 pts" in text for text in texts), "final score with both bonuses"
    assert any("winner: Ann" in text for text in texts)
    assert any("Next line" in text for text in texts) and any("Current line" in text for text in texts)


def test_ed_12_seat_colours_are_pink_yellow_green_blue():
    assert COLOURS == ("pink", "yellow", "green", "blue")
    view = views_along(4, None, seed=2)[0]
    svg = render(view)
    for colour in SEAT_COLOURS:
        assert colour in svg
