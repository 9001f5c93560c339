"""Draw a Draftosaurus ``view()`` as a standalone SVG picture (for replays and the site).

Each zoo is drawn as the printed board is laid out (Sections 8 and 9 of the rules): pens in their
places, woodlands pens with red borders and grasslands pens with purple ones, the River running down the
middle, dinosaurs as discs in their species colour with a short label. A header shows the side, the
phase, the round and turn, the die face and who rolled; each zoo's title shows the seat, its score, its
hand (size and contents, as spectators may see them) and whether it has chosen in the current step.

The function is pure: the same view gives the same text. All user-supplied text (seat names) is escaped.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from engines.base import competition_ranking
from engines.draftosaurus.board import GRASSLANDS, PEN_BY_ID, PYRAMID_CELLS
from engines.draftosaurus.scoring import pen_scores
from engines.draftosaurus.zoo import Zoo

SPECIES_STYLE = {
    # species: (fill colour, label)
    "t_rex": ("#e4572e", "T"),
    "triceratops": ("#f3c623", "Tr"),
    "stegosaurus": ("#4caf50", "St"),
    "spinosaurus": ("#2e86de", "Sp"),
    "parasaurolophus": ("#9b59b6", "Pa"),
    "brachiosaurus": ("#ec87c0", "Br"),
}
FACE_LABEL = {
    "woodlands": "Woodlands",
    "grasslands": "Grasslands",
    "restrooms": "Restrooms (right)",
    "food_court": "Food court (left)",
    "empty_pen": "Empty pen",
    "no_t_rex": "No T-Rex",
}
PEN_TITLE = {
    "forest_of_sameness": "Forest of Sameness",
    "meadow_of_differences": "Meadow of Differences",
    "prairie_of_love": "Prairie of Love",
    "woody_trio": "Woody Trio",
    "king_of_the_jungle": "King of the Jungle",
    "solitary_island": "Solitary Island",
    "well_ordered_wood": "Well-Ordered Wood",
    "lovers_bridge_left": "Bridge (left)",
    "lovers_bridge_right": "Bridge (right)",
    "pyramid": "Pyramid",
    "lookout": "Lookout",
    "quarantine_zone": "Quarantine",
}
WOODLANDS_BORDER = "#b03a2e"
GRASSLANDS_BORDER = "#6c3483"

PANEL_W, PANEL_H = 480, 350
HEADER_H = 56
GAP = 10
BOARD_Y = 46  # board area starts below the panel's title lines
LEFT_X, LEFT_W = 10, 200
RIVER_X, RIVER_W = 215, 50
RIGHT_X, RIGHT_W = 270, 200
ROW_H = 96
DISC_R = 13

# Where each pen sits on the board, as (column, row, slots per line): column 0 is left of the River.
SUMMER_LAYOUT = {
    "forest_of_sameness": (0, 0, 6),
    "king_of_the_jungle": (1, 0, 1),
    "woody_trio": (0, 1, 3),
    "meadow_of_differences": (1, 1, 6),
    "prairie_of_love": (0, 2, 6),
    "solitary_island": (1, 2, 1),
}
WINTER_LAYOUT = {
    "well_ordered_wood": (0, 0, 6),
    "lookout": (1, 0, 1),
    "lovers_bridge_left": (0, 1, 6),
    "lovers_bridge_right": (1, 1, 6),
    "quarantine_zone": (0, 2, 1),
    "pyramid": (1, 2, 3),
}


def render(view: dict, *, seat_names: list[str] | None = None) -> str:
    """The SVG text for ``view`` (a ``DraftosaurusState.view()``); ``seat_names`` label the zoos."""
    players = view["players"]
    names = [
        seat_names[seat] if seat_names and seat < len(seat_names) else f"Seat {seat}"
        for seat in range(players)
    ]
    columns = 3 if players == 5 else 2 if players > 1 else 1
    rows = (players + columns - 1) // columns
    width = GAP + columns * (PANEL_W + GAP)
    height = HEADER_H + rows * (PANEL_H + GAP) + GAP
    places = _places(view)
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" preserveAspectRatio="xMidYMid meet" font-family="sans-serif">'),
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fbf8ef"/>',
        _header(view, names, width),
    ]
    for seat in range(players):
        x = GAP + (seat % columns) * (PANEL_W + GAP)
        y = HEADER_H + (seat // columns) * (PANEL_H + GAP)
        parts.append(_panel(view, seat, names[seat], places, x, y))
    parts.append("</svg>")
    return "\n".join(parts)


def _text(x: float, y: float, content: str, *, size: int = 12, anchor: str = "start",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>')


def _disc(x: float, y: float, dino: str, radius: int = DISC_R) -> str:
    colour, label = SPECIES_STYLE[dino]
    return (f'<g><title>{escape(dino)}</title>'
            f'<circle cx="{x:g}" cy="{y:g}" r="{radius}" fill="{colour}" stroke="#333" stroke-width="1"/>'
            f'<text x="{x:g}" y="{y + 4:g}" font-size="{max(8, radius - 2)}" text-anchor="middle" '
            f'fill="#111" font-weight="bold">{label}</text></g>')


def _places(view: dict) -> list[int] | None:
    """Final places from the view alone (score, then fewest T-Rexes), or None before the end."""
    if view["phase"] != "game_over":
        return None
    keys = []
    for seat, zoo in enumerate(view["zoos"]):
        keys.append((view["match_scores"][seat] + zoo["score"],
                     -(view["match_t_rex"][seat] + zoo["t_rex_count"])))
    return competition_ranking(keys)


def _header(view: dict, names: list[str], width: int) -> str:
    side = "Summer" if view["board"] == "summer" else "Winter"
    if view["options"].get("mode") == "summer_winter":
        side += f" (game {view['game_index'] + 1} of 2)"
    status = f"{side} zoo - round {view['round']}/{view['rounds_total']}, turn {view['turn']}/" \
             f"{view['turns_per_round']} - {view['phase'].replace('_', ' ')}"
    parts = [_text(GAP, 24, status, size=18, weight="bold")]
    if view["die"] is not None:
        roller = names[view["roller"]]
        parts.append(f'<rect x="{width - 330}" y="8" width="36" height="36" rx="6" fill="#fff" '
                     f'stroke="#333" stroke-width="2"/>')
        parts.append(_text(width - 312, 31, FACE_LABEL[view["die"]][:2], size=14, anchor="middle",
                           weight="bold"))
        parts.append(_text(width - 286, 24, f"Die: {FACE_LABEL[view['die']]}", size=13))
        parts.append(_text(width - 286, 42, f"rolled by {roller} (exempt)", size=12))
    if view["discards"]:
        last = view["discards"][-2:]
        shown = ", ".join(f"{names[entry['seat']]}: {entry['dino']}" for entry in last)
        parts.append(_text(GAP, 46, f"Last discards - {shown}", size=12, fill="#555"))
    return "\n".join(parts)


def _panel(view: dict, seat: int, name: str, places: list[int] | None, x: int, y: int) -> str:
    zoo_data = view["zoos"][seat]
    side = view["board"]
    zoo = Zoo.from_json(side, zoo_data)
    zoos = [Zoo.from_json(side, other) for other in view["zoos"]]
    points = pen_scores(zoos, seat)
    total = view["match_scores"][seat] + zoo_data["score"]
    parts = [f'<g transform="translate({x},{y})">',
             (f'<rect x="0" y="0" width="{PANEL_W}" height="{PANEL_H}" rx="10" '
             f'fill="{"#eaf5e1" if side == "summer" else "#e8f0f7"}" stroke="#555" stroke-width="2"/>')]
    title = name
    if places is not None:
        title = f"#{places[seat]} {name}"
    if view["roller"] == seat:
        title += " [die]"
    parts.append(_text(10, 20, title, size=15, weight="bold"))
    score_line = f"{total} pts"
    if view["game_index"] == 1:
        score_line += f" ({view['match_scores'][seat]} + {zoo_data['score']})"
    score_line += f" - T-Rex {zoo_data['t_rex_count']} (+{points['t_rex_bonus']} bonus)"
    parts.append(_text(PANEL_W - 10, 20, score_line, size=12, anchor="end"))
    hand = view["hands"][seat]
    chosen = " - chosen" if seat in view["chosen"] else ""
    parts.append(_text(10, 38, f"hand {len(hand)}{chosen}", size=12, fill="#444"))
    for index, dino in enumerate(hand):
        parts.append(_disc(150 + index * 20, 34, dino, radius=8))
    # The River, top to bottom between the two halves of the zoo.
    river_top, river_h = BOARD_Y, PANEL_H - BOARD_Y - 8
    parts.append(f'<rect x="{RIVER_X}" y="{river_top}" width="{RIVER_W}" height="{river_h}" rx="8" '
                 f'fill="#7fc4ea" stroke="#3b83b5"/>')
    parts.append(_text(RIVER_X + RIVER_W / 2, river_top + 14, f"River {points['river']}", size=10,
                       anchor="middle"))
    for index, dino in enumerate(zoo.river):
        column, row = index % 2, index // 2
        parts.append(_disc(RIVER_X + 13 + column * 24, river_top + 32 + row * 26, dino, radius=11))
    if side == "winter":
        # The Lovers' Bridge deck spans the River between its two banks.
        deck_y = BOARD_Y + ROW_H + 2 + ROW_H / 2 - 14
        parts.append(f'<rect x="{LEFT_X + LEFT_W}" y="{deck_y:g}" width="{RIGHT_X - LEFT_X - LEFT_W}" '
                     f'height="12" fill="#a0522d" stroke="#5d3a1a"/>')
    layout = SUMMER_LAYOUT if side == "summer" else WINTER_LAYOUT
    for pen, (column, row, per_line) in layout.items():
        parts.append(_pen(zoo, pen, column, row, per_line, points))
    parts.append(_text(LEFT_X, PANEL_H - 12, "food court <", size=10, fill="#555"))
    parts.append(_text(RIGHT_X + RIGHT_W, PANEL_H - 12, "> restrooms", size=10, anchor="end", fill="#555"))
    parts.append("</g>")
    return "\n".join(parts)


def _pen(zoo: Zoo, pen: str, column: int, row: int, per_line: int, points: dict) -> str:
    px = LEFT_X if column == 0 else RIGHT_X
    py = BOARD_Y + row * (ROW_H + 2)
    border = GRASSLANDS_BORDER if PEN_BY_ID[pen].area == GRASSLANDS else WOODLANDS_BORDER
    shown = points.get(pen, 0)
    if pen == "lovers_bridge_left":
        label = f"{PEN_TITLE[pen]} - pairs {shown}"
    elif pen == "lovers_bridge_right":
        label = PEN_TITLE[pen]
    else:
        label = f"{PEN_TITLE[pen]} - {shown}"
    parts = [(f'<rect x="{px}" y="{py}" width="{LEFT_W}" height="{ROW_H - 8}" rx="8" fill="#fffdf6" '
             f'stroke="{border}" stroke-width="3"/>'),
             _text(px + 6, py + 14, label, size=11, weight="bold", fill=border)]
    if pen == "pyramid":
        parts.append(_pyramid(zoo, px, py))
    else:
        dinos = zoo.pens[pen]
        capacity = PEN_BY_ID[pen].capacity
        slots = max(len(dinos), capacity if capacity <= 6 else 0)
        lines = max(1, (slots + per_line - 1) // per_line)
        step = min(30, (LEFT_W - 16) // max(1, per_line))
        radius = DISC_R if lines <= 2 else 9
        line_h = min(30, (ROW_H - 30) // lines)
        for index in range(slots):
            cx = px + 8 + step / 2 + (index % per_line) * step
            cy = py + 34 + (index // per_line) * line_h
            if index < len(dinos):
                parts.append(_disc(cx, cy, dinos[index], radius=radius))
            else:
                parts.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{radius}" fill="none" stroke="#bbb" '
                             f'stroke-dasharray="3,2"/>')
    return "\n".join(parts)


def _pyramid(zoo: Zoo, px: int, py: int) -> str:
    """The three rows of the Pyramid, top cell above the two middle ones above the three bottom ones."""
    centres = {
        "T": (px + 100, py + 30),
        "M1": (px + 84, py + 53), "M2": (px + 116, py + 53),
        "B1": (px + 68, py + 76), "B2": (px + 100, py + 76), "B3": (px + 132, py + 76),
    }
    parts = []
    for cell in PYRAMID_CELLS:
        cx, cy = centres[cell]
        dino = zoo.pyramid[cell]
        if dino is None:
            parts.append(f'<rect x="{cx - 15}" y="{cy - 11}" width="30" height="22" fill="none" stroke="#bbb" '
                         f'stroke-dasharray="3,2"/>')
            parts.append(_text(cx, cy + 4, cell, size=9, anchor="middle", fill="#aaa"))
        else:
            parts.append(_disc(cx, cy, dino, radius=10))
    return "\n".join(parts)
