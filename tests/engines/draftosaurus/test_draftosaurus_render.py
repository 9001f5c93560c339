"""The SVG rendering of views: well-formed, self-contained, escaped, and showing what the issue asks."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from draftosaurus_helpers import GAME, SUMMER, SUMMER_WINTER, WINTER, new, position, random_playout, zoo

from engines.draftosaurus.render import render

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script>"


def views_along_a_game(players, options, seed):
    state = GAME.new_state(players, seed, options)
    views = [state.view()]
    while not state.is_terminal():
        random_playout(state, seed=seed, upto=players * 3)
        views.append(state.view())
    return views


@pytest.mark.parametrize(("players", "options"), [(2, WINTER), (4, SUMMER), (5, SUMMER_WINTER), (3, WINTER)])
def test_render_parses_for_views_along_a_game(players, options):
    for view in views_along_a_game(players, options, seed=players):
        svg = render(view, seat_names=[HOSTILE, "Ann & Bob", "\"quoted\"", "o'neil", "x"][:players])
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg" and root.get("viewBox")
        assert not list(root.iter(f"{SVG}script"))
        assert "<script>" not in svg and "href" not in svg and "url(" not in svg


def test_seat_names_are_escaped():
    svg = render(new(2).view(), seat_names=[HOSTILE, "Ann & Bob"])
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "Ann &amp; Bob" in svg
    texts = "".join(ET.fromstring(svg).itertext())
    assert HOSTILE in texts  # shown as text, never as markup


def test_render_shows_die_roller_scores_hands_and_dinosaurs():
    state = position(3, WINTER, zoos=[zoo("winter", pyramid={"B1": "t_rex"}, river=["stegosaurus"],
                                          lovers_bridge_left=["triceratops"]), zoo("winter"), zoo("winter")],
                     die="no_t_rex", roller=1)
    svg = render(state.view(), seat_names=["Ann", "Bea", "Cy"])
    texts = " ".join(ET.fromstring(svg).itertext())
    assert "No T-Rex" in texts and "rolled by Bea" in texts
    assert "Pyramid - 2" in texts and "River 1" in texts and "hand 6" in texts
    assert f"{state.scores()[0]} pts" in texts
    titles = [t.text for t in ET.fromstring(svg).iter(f"{SVG}title")]
    assert {"t_rex", "stegosaurus", "triceratops"} <= set(titles)


def test_render_marks_the_final_places():
    state = new(3, SUMMER, seed=1)
    random_playout(state, seed=1)
    texts = " ".join(ET.fromstring(render(state.view())).itertext())
    for seat, place in enumerate(state.ranking()):
        assert f"#{place} Seat {seat}" in texts


def test_render_is_pure():
    view = new(4, SUMMER, seed=3).view()
    assert render(view) == render(view)
