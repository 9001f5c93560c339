"""The SVG renderer: parses as XML along a whole game, escapes seat names, shows the issue's parts."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from dice_king_helpers import fresh

from engines.dice_king.render import render

SVG = "{http://www.w3.org/2000/svg}"


def test_render_parses_along_a_game_and_has_a_viewbox():
    state = fresh(4, seed=3)
    chooser = random.Random(3)
    step = 0
    while True:
        if step % 15 == 0 or state.is_terminal():
            root = ET.fromstring(render(state.view()))
            assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 1220 800"
            assert not list(root.iter(f"{SVG}script")) and "href" not in render(state.view())
        if state.is_terminal():
            break
        state.apply(chooser.choice(state.legal_actions()))
        step += 1
    assert "Game over" in render(state.view())


def test_render_escapes_seat_names():
    names = ["<script>alert(1)</script>", 'Bob "the" & co', "c", "d"]
    svg = render(fresh(4).view(), seat_names=names)
    assert "<script>" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert names[0] in texts and names[1] in texts


def test_render_shows_map_display_conditions_in_words_dice_and_seats():
    state = fresh(2, seed=5)
    svg = render(state.view())
    texts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert "volcano" in texts and "T12" in texts and "Seat 1" in texts
    assert any(text and text.startswith("tiers:") for text in texts)  # the dwarf's condition in words
    assert len(list(ET.fromstring(svg).iter(f"{SVG}path"))) == 2  # the two start dragon fires
