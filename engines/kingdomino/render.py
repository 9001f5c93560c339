"""Kingdomino position as a standalone SVG: every kingdom, the current and next lines, scores, turn.

``render(view)`` is a pure function of ``KingdominoState.view()`` (it also accepts an observation). The
SVG has a viewBox and no fixed size, so it scales to its container, and it holds no script and no
external resource. Every piece of text, seat names above all, is escaped.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from engines.base import competition_ranking
from engines.kingdomino.kingdom import bonus_points

TERRAIN_FILL = {"W": "#e9c84a", "F": "#2f7d32", "L": "#2b83d6", "G": "#9fd468", "S": "#8f8570",
                "M": "#5b4037"}
TERRAIN_FILL_BY_NAME = {"wheat": "W", "forest": "F", "lake": "L", "grassland": "G", "swamp": "S",
                        "mine": "M"}
SEAT_COLOURS = ("#e45c9c", "#e3b81f", "#3fa34d", "#2f6fd0")  # pink, yellow, green, blue (ED-12)
EMPTY_FILL = "#f3efe6"
CASTLE_FILL = "#d9d4c7"
CROWN_FILL = "#ffd700"
FONT = "font-family='sans-serif'"

MARGIN = 16
HEADER = 58
NAME_CHARS = 18  # longer seat names are cut so that they stay inside their panel
PANEL_GAP = 16
TITLE_BAND = 62  # seat name, score and crowns above each grid
LINE_CELL = 26


def _text(x: float, y: float, content: str, *, size: int = 14, weight: str = "normal",
          fill: str = "#222", anchor: str = "start") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' {FONT} font-size='{size}' font-weight='{weight}' "
            f"fill={quoteattr(fill)} text-anchor='{anchor}'>{escape(content)}</text>")


def _rect(x: float, y: float, w: float, h: float, fill: str, *, stroke: str = "none",
          stroke_width: float = 1, opacity: float = 1.0, rx: float = 0) -> str:
    extra = f" opacity='{opacity}'" if opacity != 1.0 else ""
    return (f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}' rx='{rx}' "
            f"fill={quoteattr(fill)} stroke={quoteattr(stroke)} stroke-width='{stroke_width}'{extra}/>")


def _crowns(x: float, y: float, cell: float, crowns: int) -> list[str]:
    """Small gold discs along the top of a square, one per crown."""
    radius = cell * 0.11
    return [f"<circle cx='{x + radius * (1.6 + 2.6 * i):.1f}' cy='{y + radius * 1.6:.1f}' r='{radius:.1f}' "
            f"fill='{CROWN_FILL}' stroke='#7a5c00' stroke-width='1'/>" for i in range(crowns)]


def _square(x: float, y: float, cell: float, code: str, seat_colour: str) -> list[str]:
    """One grid cell from its code: "" empty, "C" castle, else terrain letter plus crowns."""
    if not code:
        return [_rect(x, y, cell, cell, EMPTY_FILL, stroke="#e2dccd")]
    if code == "C":
        tower = cell * 0.5
        return [_rect(x, y, cell, cell, CASTLE_FILL, stroke="#999"),
                _rect(x + (cell - tower) / 2, y + cell * 0.3, tower, cell * 0.5, seat_colour, stroke="#333"),
                _rect(x + (cell - tower) / 2, y + cell * 0.18, tower * 0.3, cell * 0.14, seat_colour,
                      stroke="#333"),
                _rect(x + (cell + tower) / 2 - tower * 0.3, y + cell * 0.18, tower * 0.3, cell * 0.14,
                      seat_colour, stroke="#333")]
    parts = [_rect(x, y, cell, cell, TERRAIN_FILL.get(code[0], "#ccc"), stroke="#00000033")]
    return parts + _crowns(x, y, cell, int(code[1:] or 0))


def _window(grid: list[list[str]], k: int) -> tuple[int, int]:
    """Top-left frame cell of the K x K window shown: it covers the kingdom, centred on it."""
    rows = [r for r, line in enumerate(grid) if any(line)]
    cols = [c for c in range(len(grid)) if any(line[c] for line in grid)]
    top = rows[0] - (k - (rows[-1] - rows[0] + 1)) // 2
    left = cols[0] - (k - (cols[-1] - cols[0] + 1)) // 2
    size = len(grid)
    return max(0, min(top, size - k)), max(0, min(left, size - k))


def _kingdom(view: dict, kingdom: dict, name: str, score: int, place: int | None, x: float, y: float,
             cell: float, acting: bool) -> list[str]:
    k = view["grid_size"]
    seat = kingdom["seat"]
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    width = k * cell
    parts = [_rect(x - 6, y - 6, width + 12, TITLE_BAND + width + 12, "#ffffff",
                   stroke=colour if acting else "#cccccc", stroke_width=4 if acting else 1, rx=6)]
    parts.append(f"<circle cx='{x + 7:.1f}' cy='{y + 10:.1f}' r='7' fill='{colour}' stroke='#333'/>")
    short = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "\u2026"
    label = ("\u25b6 " if acting else "") + short
    parts.append(_text(x + 20, y + 15, label, size=14, weight="bold"))
    summary = f"{score} pts"
    if place is not None:
        summary = f"place {place} \u00b7 " + summary
    details = f"{kingdom['crowns']} crowns"
    if kingdom["discarded"]:
        details += f" \u00b7 {len(kingdom['discarded'])} discarded"
    parts.append(_text(x, y + 33, summary, size=12, weight="bold", fill="#333"))
    parts.append(_text(x, y + 49, details, size=11, fill="#555"))
    grid = kingdom["grid"]
    top, left = _window(grid, k)
    gy = y + TITLE_BAND
    for r in range(k):
        for c in range(k):
            parts += _square(x + c * cell, gy + r * cell, cell, grid[top + r][left + c], colour)
    # Outline each domino so that its two squares read as one piece.
    for _, r, c, o in kingdom["placed"]:
        r2, c2 = (r, c + 1) if o == 0 else (r + 1, c) if o == 1 else (r, c - 1) if o == 2 else (r - 1, c)
        r0, c0 = min(r, r2) - top, min(c, c2) - left
        w = (abs(c - c2) + 1) * cell
        h = (abs(r - r2) + 1) * cell
        parts.append(_rect(x + c0 * cell + 1, gy + r0 * cell + 1, w - 2, h - 2, "none", stroke="#222",
                           stroke_width=1.5, rx=2))
    return parts


def _line(view: dict, line: list[dict] | None, title: str, x: float, y: float, acting_position) -> list[str]:
    parts = [_text(x, y + 14, title, size=13, weight="bold")]
    if line is None:
        parts.append(_text(x, y + 40, "none", size=12, fill="#777"))
        return parts
    step = 2 * LINE_CELL + 28
    for entry in line:
        ex = x + entry["position"] * step
        ey = y + 22
        dim = 0.35 if entry.get("done") else 1.0
        group = [f"<g opacity='{dim}'>"]
        domino = entry["domino"]
        for i, (terrain, crowns) in enumerate((domino["a"], domino["b"])):
            letter = TERRAIN_FILL_BY_NAME.get(terrain, "")
            group += _square(ex + i * LINE_CELL, ey, LINE_CELL, f"{letter}{crowns}", "#999")
        group.append(_rect(ex, ey, 2 * LINE_CELL, LINE_CELL, "none", stroke="#222", stroke_width=1.5, rx=2))
        group.append(_text(ex + LINE_CELL, ey + LINE_CELL + 14, f"#{domino['n']}", size=11, anchor="middle"))
        group.append("</g>")
        parts += group
        king = entry["king"]
        if king is not None:
            colour = SEAT_COLOURS[king["seat"] % len(SEAT_COLOURS)]
            ring = "#000" if entry["position"] == acting_position else "#333"
            width = 3 if entry["position"] == acting_position else 1
            parts.append(f"<circle cx='{ex + 2 * LINE_CELL + 12:.1f}' cy='{ey + LINE_CELL / 2:.1f}' r='9' "
                         f"fill='{colour}' stroke='{ring}' stroke-width='{width}'/>")
    return parts


def _legend(x: float, y: float) -> list[str]:
    """One swatch per terrain, and the crown disc, so that the colours need no guessing."""
    parts = []
    for name, letter in TERRAIN_FILL_BY_NAME.items():
        parts.append(_rect(x, y, 14, 14, TERRAIN_FILL[letter], stroke="#00000055"))
        parts.append(_text(x + 18, y + 12, name, size=11, fill="#444"))
        x += 30 + 7 * len(name)
    parts.append(f"<circle cx='{x + 7}' cy='{y + 7}' r='4' fill='{CROWN_FILL}' stroke='#7a5c00'/>")
    parts.append(_text(x + 16, y + 12, "crown", size=11, fill="#444"))
    return parts


def _seat_scores(view: dict) -> tuple[list[int], list[int] | None]:
    """Each seat's match score as ``scores()`` gives it, and places once the game is over."""
    over = view["phase"] == "game_over"
    k, options = view["grid_size"], view["options"]
    scores = []
    for kingdom, earlier in zip(view["kingdoms"], view["match_scores"]):
        bonus = bonus_points(kingdom["grid"], kingdom["discarded"], k, options) if over else 0
        scores.append(earlier + kingdom["base_score"] + bonus)
    if not over:
        return scores, None
    if options.get("dynasty"):
        keys = [(score,) for score in scores]
    else:
        keys = [(score, kd["largest_property"], kd["crowns"]) for score, kd in zip(scores, view["kingdoms"])]
    return scores, competition_ranking(keys)


def render(view: dict, *, seat_names: list[str] | None = None) -> str:
    """The position of ``view`` as an SVG document (a string)."""
    players = view["players"]
    names = [str(seat_names[i]) if seat_names and i < len(seat_names) else f"Seat {i}"
             for i in range(players)]
    k = view["grid_size"]
    cell = 32 if k == 5 else 24
    panel = k * cell + 12
    width = 2 * MARGIN + players * panel + (players - 1) * PANEL_GAP
    line_step = 2 * LINE_CELL + 28
    width = max(width, 2 * MARGIN + 2 * 4 * line_step + 40)
    kingdoms_top = MARGIN + HEADER
    lines_top = kingdoms_top + TITLE_BAND + k * cell + 30
    legend_top = lines_top + 84
    height = legend_top + 20 + MARGIN

    to_act = view["to_act"]
    acting_seat = to_act["seat"] if to_act else None
    scores, places = _seat_scores(view)

    opening = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' "
               f"width='100%' preserveAspectRatio='xMidYMin meet' role='img'>")
    parts = [opening, _rect(0, 0, width, height, "#faf8f2")]
    phase = view["phase"].replace("_", " ")
    header = f"Kingdomino \u00b7 {phase}"
    if view["phase"] != "initial_pick" and view["phase"] != "game_over":
        header += f" \u00b7 round {view['round']} of {view['rounds_total']}"
    if view["options"].get("dynasty"):
        header += f" \u00b7 game {view['game_index'] + 1} of 3"
    header += f" \u00b7 {view['draw_pile_count']} in the draw pile"
    parts.append(_text(MARGIN, MARGIN + 20, header, size=18, weight="bold"))
    if acting_seat is not None:
        parts.append(_text(MARGIN, MARGIN + 38, f"to act: {names[acting_seat]} ({view['phase'].replace('_', ' ')})",
                           size=13, fill="#444"))
    elif places is not None:
        winners = [names[seat] for seat in range(players) if places[seat] == 1]
        parts.append(_text(MARGIN, MARGIN + 38, "winner: " + ", ".join(winners), size=13, fill="#444"))

    for seat, kingdom in enumerate(view["kingdoms"]):
        x = MARGIN + 6 + seat * (panel + PANEL_GAP)
        parts += _kingdom(view, kingdom, names[seat], scores[seat], places[seat] if places else None,
                          x, kingdoms_top, cell, acting=seat == acting_seat)

    acting_position = to_act["line_position"] if to_act else None
    current_title = "First line (claiming)" if view["phase"] == "initial_pick" else "Current line"
    parts += _line(view, view["current_line"], current_title, MARGIN, lines_top, acting_position)
    parts += _line(view, view["next_line"], "Next line", MARGIN + 4 * line_step + 40, lines_top, None)
    parts += _legend(MARGIN, legend_top)
    parts.append("</svg>")
    return "".join(parts)
