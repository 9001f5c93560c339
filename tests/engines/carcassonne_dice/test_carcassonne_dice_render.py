"""render(view) -> SVG: it parses, is self-contained, escapes seat names, and shows what the issue asks."""

import xml.etree.ElementTree as ET

from carcassonne_dice_helpers import plane_of, random_game, turn_with, with_planes

from engines.carcassonne_dice.render import render

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script>"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") == "100%"
    assert not root.findall(f".//{SVG}script") and "href" not in svg and "url(" not in svg
    return root


def texts(root: ET.Element) -> str:
    return " ".join(element.text or "" for element in root.iter(f"{SVG}text"))


def test_render_parses_for_views_along_whole_games():
    for players in (2, 5):
        views = []
        state, _ = random_game(players, 3, on_step=lambda s, views=views: views.append(s.view()))
        views.append(state.view())
        for view in views[:: max(1, len(views) // 40)] + views[-1:]:
            parse(render(view, seat_names=["a", "b", "c", "d", "e"][:players]))


def test_render_escapes_seat_names():
    svg = render(turn_with(["CAP"] * 9).view(), seat_names=[HOSTILE, 'Bob & "Eve"'])
    assert HOSTILE not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    root = parse(svg)
    assert HOSTILE in texts(root) and 'Bob & "Eve"' in texts(root)


def test_render_shows_scores_reserved_knights_catapults_and_the_score_now():
    state = turn_with(["CATAPULT", "KNIGHT"] + ["CAP"] * 7, players=3, reserved={1: 8}, totals=[12, 30, 7])
    state.apply({"collect": "KNIGHT"})
    with_planes(state, plane_of(("CAP", 0, 0, 0), ("BAND", 0, 1, 0), ("CAP", 0, 2, 2)), plane_of(("TRIPLE", 0, 0, 0)))
    root = parse(render(state.view(), seat_names=["Ann", "Ben", "Cy"]))
    words = texts(root)
    assert "12 pts" in words and "30 pts" in words and "7 pts" in words
    assert "knight" in words  # Ben's reserved knight
    assert "catapults handed on 1" in words and "stop now: 1 pts" in words
    assert "plane 0" in words and "plane 1" in words
    # The closed city's three dice are framed green; the TRIPLE's three open edges are marked red.
    assert sum(1 for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#1a9a2a") == 3
    assert sum(1 for line in root.iter(f"{SVG}line") if line.get("stroke") == "#d22") == 3


def test_render_names_the_winner_at_the_end():
    state = turn_with(["CATAPULT"] * 9, players=2)
    words = texts(parse(render(state.view(), seat_names=["Ann", "Ben"])))
    assert "Game over" in words and "Ann won (nine catapults)" in words
