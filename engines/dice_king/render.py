"""SVG picture of a Dice King ``view()`` for replays: the map, the display, the dice and every seat.

:func:`render` is a pure function of the view. The picture is standalone (no script, no external
resources), scales to its container through its ``viewBox``, and escapes every text it prints, seat
names included.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from engines.dice_king.cards import CITIZENS
from engines.dice_king.conditions import describe, parse

WIDTH, HEIGHT = 1220, 800
CELL = 96
MAP_X, MAP_Y = 20, 70
PANEL_X = MAP_X + 6 * CELL + 30

SEAT_COLOURS = ("#d62728", "#1f77b4", "#e0b000", "#2ca02c")
DICE_FILL = {"R": "#e04040", "G": "#3aa845", "B": "#3b6fd8"}
GEM_FILL = {"gold": "#f5c518", "white": "#ffffff"}
LANDSCAPE_FILL = {
    "meadow": "#b9e29b", "wheat": "#f3dd8a", "forest": "#5f9e5a", "mountain": "#a8a29a", "lake": "#8cc3ec",
    "river": "#a9d8f0", "swamp": "#8a9a6b", "hills": "#c9d98c", "heath": "#c9a3c9", "vineyard": "#b784a7",
    "orchard": "#9ccf7a", "quarry": "#c8b8a0", "canyon": "#d9946a", "glacier": "#e6f4fa", "volcano": "#9c5a4a",
}


def _text(x: float, y: float, content: str, *, size: int = 12, anchor: str = "start", weight: str = "normal",
          fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor={quoteattr(anchor)} '
            f'font-weight={quoteattr(weight)} fill={quoteattr(fill)}>{escape(str(content))}</text>')


def _rect(x: float, y: float, w: float, h: float, fill: str, *, stroke: str = "#444", extra: str = "") -> str:
    return (f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" fill={quoteattr(fill)} '
            f'stroke={quoteattr(stroke)} {extra}/>')


def _seat_label(seat: int, names: list[str] | None) -> str:
    if names and seat < len(names) and names[seat]:
        return str(names[seat])
    return f"Seat {seat}"


def _field(entry: dict) -> list[str]:
    field = entry["field"]
    row, col = divmod(field, 6)
    x, y = MAP_X + col * CELL, MAP_Y + row * CELL
    parts = [_rect(x, y, CELL - 4, CELL - 4, LANDSCAPE_FILL.get(entry["landscape"], "#ddd"), extra='rx="6"'),
             _text(x + 5, y + 14, str(field), size=11, weight="bold"),
             _text(x + CELL - 9, y + 14, entry["landscape"], size=10, anchor="end")]
    if entry["tile"]:
        parts.append(_rect(x + 8, y + 22, CELL - 20, CELL - 38, "#f4efe6", stroke="#777", extra='rx="3"'))
        parts.append(_text(x + CELL / 2 - 2, y + CELL - 20, entry["tile"], size=10, anchor="middle"))
    if entry["owner"] is not None:
        colour = SEAT_COLOURS[entry["owner"] % len(SEAT_COLOURS)]
        parts.append(f'<circle cx="{x + CELL / 2 - 2:.0f}" cy="{y + 45:.0f}" r="13" fill={quoteattr(colour)} '
                     'stroke="#222" stroke-width="2"/>')
    if entry["fire"]:
        cx, cy = x + CELL / 2 - 2, y + 52
        parts.append(f'<path d="M{cx:.0f},{cy - 24:.0f} C{cx + 16:.0f},{cy - 8:.0f} {cx + 12:.0f},{cy + 8:.0f} '
                     f'{cx:.0f},{cy + 8:.0f} C{cx - 12:.0f},{cy + 8:.0f} {cx - 16:.0f},{cy - 8:.0f} '
                     f'{cx:.0f},{cy - 24:.0f} Z" fill="#ff6a00" stroke="#a33" stroke-width="1.5"/>')
    if entry["gem"]:
        gx, gy = x + 16, y + CELL - 16
        parts.append(f'<polygon points="{gx},{gy - 9} {gx + 8},{gy} {gx},{gy + 9} {gx - 8},{gy}" '
                     f'fill={quoteattr(GEM_FILL.get(entry["gem"], "#ccc"))} stroke="#555"/>')
    return parts


def _die(x: float, y: float, colour: str, value: int, *, virtual: bool = False) -> list[str]:
    dash = 'stroke-dasharray="4 3"' if virtual else ""
    return [_rect(x, y, 38, 38, DICE_FILL.get(colour, "#999"), stroke="#222", extra=f'rx="7" {dash}'),
            _text(x + 19, y + 26, str(value), size=18, anchor="middle", weight="bold", fill="#fff")]


def _card(x: float, y: float, entry: dict) -> list[str]:
    w, h = 112, 150
    parts = [_rect(x, y, w, h, "#fffaf0" if entry.get("card") else "#eee", extra='rx="8"'),
             _text(x + 6, y + 15, f"Stack {entry['stack']}", size=11, weight="bold")]
    if not entry.get("card"):
        parts.append(_text(x + w / 2, y + h / 2, "empty", size=12, anchor="middle", fill="#888"))
        return parts
    parts.append(_text(x + w - 6, y + 15, entry["card"], size=10, anchor="end"))
    parts.append(_text(x + 6, y + 31, CITIZENS.get(entry["stack"], ""), size=10))
    parts.append(_text(x + 6, y + 45, entry.get("effect", ""), size=10, weight="bold"))
    colour, value = entry.get("joker") or ["", 0]
    parts.append(_rect(x + w - 30, y + 24, 24, 24, DICE_FILL.get(colour, "#999"), extra='rx="4"'))
    parts.append(_text(x + w - 18, y + 41, str(value), size=13, anchor="middle", weight="bold", fill="#fff"))
    try:
        words = describe(parse(entry.get("condition", "")))
    except ValueError:
        words = entry.get("condition", "")
    lines = []
    for chunk in words.replace(" / ", "\n").replace(" and ", "\nand ").split("\n"):
        while len(chunk) > 18:
            cut = chunk.rfind(" ", 0, 18)
            cut = cut if cut > 0 else 18
            lines.append(chunk[:cut])
            chunk = chunk[cut:].lstrip()
        lines.append(chunk)
    for index, line in enumerate(lines[:7]):
        parts.append(_text(x + 6, y + 66 + 13 * index, line, size=11))
    return parts


def render(view: dict, *, seat_names: list[str] | None = None) -> str:
    """The view as a standalone SVG document (a string)."""
    opening = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
               'preserveAspectRatio="xMidYMid meet" font-family="sans-serif">')
    parts = [opening, _rect(0, 0, WIDTH, HEIGHT, "#fbfbf7", stroke="none")]
    turn = view.get("turn", {})
    active = turn.get("active")
    if view.get("winner") is not None:
        names = ", ".join(_seat_label(seat, seat_names) for seat in view["winner"])
        headline = f"Game over. Winner: {names}"
    else:
        headline = f"{_seat_label(active, seat_names)} to act: {view.get('phase', '')}"
    parts.append(_text(MAP_X, 34, "King of the Dice", size=22, weight="bold"))
    parts.append(_text(MAP_X + 210, 34, headline, size=16))
    tiles = view.get("tiles", {})
    supply = view.get("general_supply", {})
    parts.append(_text(MAP_X, 58, f"Tiles in supply: {tiles.get('supply_count', '?')}   General supply: "
                       f"{supply.get('gold', 0)} gold, {supply.get('white', 0)} white, "
                       f"{supply.get('fires', 0)} dragon fires", size=12))
    for entry in view.get("map", []):
        parts.extend(_field(entry))

    parts.append(_text(PANEL_X, 86, "Display", size=15, weight="bold"))
    for index, entry in enumerate(view.get("display", [])):
        parts.extend(_card(PANEL_X + index * 118, 94, entry))

    dice_y = 270
    parts.append(_text(PANEL_X, dice_y, f"Dice (roll {turn.get('rolls_made', 0)} of 3)", size=15, weight="bold"))
    x = PANEL_X
    for die in turn.get("dice", []):
        parts.extend(_die(x, dice_y + 10, die["colour"], die["value"]))
        x += 46
    for die in turn.get("virtual_dice", []):
        parts.extend(_die(x + 10, dice_y + 10, die["colour"], die["value"], virtual=True))
        x += 46
    claimable = turn.get("claimable_now") or []
    parts.append(_text(PANEL_X, dice_y + 68, "Claimable stacks: " + (", ".join(map(str, claimable)) or "none"),
                       size=12))
    pending = turn.get("pending")
    if pending:
        drawn = ", ".join(pending.get("drawn", [])) or "-"
        parts.append(_text(PANEL_X + 260, dice_y + 68,
                           f"{pending.get('effect', '')}: drawn {drawn}, to place {pending.get('to_place', 0)}",
                           size=12))

    seats_y = dice_y + 100
    parts.append(_text(PANEL_X, seats_y, "Seats", size=15, weight="bold"))
    for index, seat in enumerate(view.get("seats", [])):
        y = seats_y + 14 + index * 92
        number = seat["seat"]
        highlight = "#fff4c2" if number == active and view.get("winner") is None else "#ffffff"
        parts.append(_rect(PANEL_X, y, 586, 84, highlight, extra='rx="6"'))
        parts.append(f'<circle cx="{PANEL_X + 18}" cy="{y + 20}" r="10" '
                     f'fill={quoteattr(SEAT_COLOURS[number % len(SEAT_COLOURS)])} stroke="#222"/>')
        parts.append(_text(PANEL_X + 36, y + 25, _seat_label(number, seat_names), size=14, weight="bold"))
        parts.append(_text(PANEL_X + 576, y + 25, f"score {seat['score_now']}", size=14, anchor="end",
                           weight="bold"))
        gems = seat.get("gems", {})
        parts.append(_text(PANEL_X + 12, y + 46,
                           f"markers left {seat['markers_left']}   gold {gems.get('gold', 0)}   white "
                           f"{gems.get('white', 0)}   dragon fires {seat['fires']}   superjokers "
                           f"{len(seat.get('superjokers', []))}", size=12))
        cards = "  ".join(f"{card['card']}({card['joker'][0]}{card['joker'][1]})"
                          for card in seat.get("front_cards", []))
        parts.append(_text(PANEL_X + 12, y + 68, "cards: " + (cards or "none"), size=11))
    parts.append("</svg>")
    return "\n".join(parts)
