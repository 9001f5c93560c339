"""Draw a Carcassonne dice-game ``view()`` as a standalone SVG (for replays and the site).

``render(view, seat_names=...)`` is a pure function of the view. The picture shows, top to bottom: the
scoreboard (scores, reserved knights, whose turn), the state of the active turn (rolls, collected knights,
catapults handed on, what stopping now would score), the pool of rolled dice, and the active player's
planes as tiles with their city edges drawn (black city, white field). City edges that face an empty cell
are marked red (open); dice of closed cities get a green frame. Every text is escaped: seat names are
user input.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from engines.carcassonne_dice.faces import FACE_BY_ID, FACE_ID, STEPS

WIDTH = 820
TILE = 44
PAD = 16

# Corners of a unit tile (screen y down) per direction N, E, S, W, and the inner square's matching corners.
_OUTER = {0: ((0, 0), (1, 0)), 1: ((1, 0), (1, 1)), 2: ((1, 1), (0, 1)), 3: ((0, 1), (0, 0))}
_INNER = {0: ((0.3, 0.3), (0.7, 0.3)), 1: ((0.7, 0.3), (0.7, 0.7)), 2: ((0.7, 0.7), (0.3, 0.7)),
          3: ((0.3, 0.7), (0.3, 0.3))}


def _text(x: float, y: float, content: str, *, size: int = 14, weight: str = "normal", fill: str = "#222",
          anchor: str = "start") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="{anchor}" font-family="sans-serif">{escape(content)}</text>')


def _tile(x: float, y: float, size: float, edges: str, *, open_sides=(), frame: str = "#888") -> str:
    """A city face: white square, a black trapezoid per city edge, joined in the middle; open sides red."""
    parts = [(f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" fill="#fff" '
              f'stroke={quoteattr(frame)} stroke-width="2"/>')]
    city = [d for d in range(4) if edges[d] == "C"]
    for d in city:
        (ax, ay), (bx, by) = _OUTER[d]
        (cx, cy), (ex, ey) = _INNER[d]
        points = " ".join(f"{x + px * size:.1f},{y + py * size:.1f}"
                          for px, py in ((ax, ay), (bx, by), (ex, ey), (cx, cy)))
        parts.append(f'<polygon points="{points}" fill="#111"/>')
    if len(city) > 1:
        parts.append(f'<rect x="{x + 0.3 * size:.1f}" y="{y + 0.3 * size:.1f}" width="{0.4 * size:.1f}" '
                     f'height="{0.4 * size:.1f}" fill="#111"/>')
    for d in open_sides:
        (ax, ay), (bx, by) = _OUTER[d]
        parts.append(f'<line x1="{x + ax * size:.1f}" y1="{y + ay * size:.1f}" x2="{x + bx * size:.1f}" '
                     f'y2="{y + by * size:.1f}" stroke="#d22" stroke-width="4"/>')
    return "".join(parts)


def _knight(x: float, y: float, size: float) -> str:
    """A meeple on a die face."""
    s = size
    body = (f"{x + 0.5 * s:.1f},{y + 0.15 * s:.1f} {x + 0.65 * s:.1f},{y + 0.35 * s:.1f} "
            f"{x + 0.85 * s:.1f},{y + 0.45 * s:.1f} {x + 0.7 * s:.1f},{y + 0.6 * s:.1f} "
            f"{x + 0.8 * s:.1f},{y + 0.88 * s:.1f} {x + 0.5 * s:.1f},{y + 0.75 * s:.1f} "
            f"{x + 0.2 * s:.1f},{y + 0.88 * s:.1f} {x + 0.3 * s:.1f},{y + 0.6 * s:.1f} "
            f"{x + 0.15 * s:.1f},{y + 0.45 * s:.1f} {x + 0.35 * s:.1f},{y + 0.35 * s:.1f}")
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{s:.1f}" height="{s:.1f}" rx="4" fill="#f4f0e0" '
            f'stroke="#888" stroke-width="2"/><polygon points="{body}" fill="#2a5db0"/>')


def _catapult(x: float, y: float, size: float) -> str:
    s = size
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{s:.1f}" height="{s:.1f}" rx="4" fill="#f4f0e0" '
            f'stroke="#888" stroke-width="2"/>'
            f'<line x1="{x + 0.2 * s:.1f}" y1="{y + 0.75 * s:.1f}" x2="{x + 0.8 * s:.1f}" y2="{y + 0.75 * s:.1f}" '
            f'stroke="#7a4b1c" stroke-width="4"/>'
            f'<line x1="{x + 0.35 * s:.1f}" y1="{y + 0.75 * s:.1f}" x2="{x + 0.75 * s:.1f}" '
            f'y2="{y + 0.25 * s:.1f}" stroke="#7a4b1c" stroke-width="3"/>'
            f'<circle cx="{x + 0.75 * s:.1f}" cy="{y + 0.22 * s:.1f}" r="{0.1 * s:.1f}" fill="#555"/>')


def _die(x: float, y: float, size: float, face: str) -> str:
    if face == "KNIGHT":
        return _knight(x, y, size)
    if face == "CATAPULT":
        return _catapult(x, y, size)
    return _tile(x, y, size, FACE_BY_ID[FACE_ID[face]].edges)


def _scoreboard(view: dict, names: list[str], top: float) -> tuple[list[str], float]:
    parts = []
    players = view["players"]
    column = (WIDTH - 2 * PAD) / players
    winners = set(view["winner"] or [])
    for seat in range(players):
        x = PAD + seat * column
        active = seat == view["active"] and view["phase"] != "game_over"
        fill = "#fff3c4" if active else ("#d8f5d0" if seat in winners else "#f3f3f3")
        parts.append(f'<rect x="{x + 2:.1f}" y="{top:.1f}" width="{column - 4:.1f}" height="58" rx="6" '
                     f'fill="{fill}" stroke="#999"/>')
        label = names[seat] + (" \u2605" if seat in winners else "")
        parts.append(_text(x + 10, top + 20, label[:40], size=14, weight="bold"))
        parts.append(_text(x + 10, top + 46, f"{view['scores'][seat]} pts", size=20, weight="bold"))
        if view["reserved_knight"][seat]:
            parts.append(_knight(x + column - 40, top + 22, 30))
            parts.append(_text(x + column - 44, top + 46, "knight", size=10, anchor="end"))
    return parts, top + 70


def _status(view: dict, names: list[str], top: float) -> tuple[list[str], float]:
    turn = view["turn"]
    seat = view["active"]
    parts = []
    if view["phase"] == "game_over":
        winners = ", ".join(names[s] for s in view["winner"] or [])
        reason = {"42_points": "42 points", "nine_catapults": "nine catapults", "equal_turns": "equal turns",
                  "round_cap": "round cap"}.get(view["end_reason"], view["end_reason"] or "")
        headline = f"Game over after round {view['round']}: {winners} won ({reason})"
    elif view["phase"] == "knight_choice":
        headline = f"Round {view['round']}: {names[seat]} chooses: score or keep a knight"
    else:
        headline = f"Round {view['round']}: {names[seat]} to play"
    parts.append(_text(PAD, top + 18, headline, size=16, weight="bold"))
    doubled = " (doubled turn)" if turn["doubled"] else ""
    facts = (f"rolls {turn['rolls_made']}/3  \u00b7  knights collected {turn['collected_knights']}  \u00b7  "
             f"catapults handed on {turn['catapults']} \u2192 {names[(seat + 1) % view['players']]}  \u00b7  "
             f"stop now: {turn['score_if_stop']} pts{doubled}")
    parts.append(_text(PAD, top + 40, facts, size=13))
    return parts, top + 52


def _row_of_dice(label: str, faces: list[str], top: float) -> tuple[list[str], float]:
    parts = [_text(PAD, top + 24, label, size=13, weight="bold")]
    x = PAD + 160
    for face in faces:
        parts.append(_die(x, top + 4, 32, face))
        x += 38
    if not faces:
        parts.append(_text(x, top + 24, "none", size=13, fill="#777"))
    return parts, top + 42


def _planes(view: dict, top: float) -> tuple[list[str], float]:
    turn = view["turn"]
    closed_dice = {(c["plane"], die) for c in turn["cities"] if c["closed"] for die in c["dice"]}
    parts = [_text(PAD, top + 16, "City area (this turn)", size=13, weight="bold")]
    top += 26
    x = PAD
    row_height = 0.0
    if not turn["planes"]:
        parts.append(_text(PAD, top + 16, "nothing built yet", size=13, fill="#777"))
        return parts, top + 30
    for plane in turn["planes"]:
        cells = {(d["x"], d["y"]): d for d in plane["dice"]}
        xs = [cx for cx, _ in cells]
        ys = [cy for _, cy in cells]
        width = (max(xs) - min(xs) + 1) * TILE
        height = (max(ys) - min(ys) + 1) * TILE
        if x + width > WIDTH - PAD and x > PAD:
            x = PAD
            top += row_height + 30
            row_height = 0.0
        parts.append(_text(x, top + 12, f"plane {plane['plane']}", size=11, fill="#555"))
        for (cx, cy), die in sorted(cells.items()):
            open_sides = [d for d in range(4) if die["edges"][d] == "C"
                          and (cx + STEPS[d][0], cy + STEPS[d][1]) not in cells]
            frame = "#1a9a2a" if (plane["plane"], die["die"]) in closed_dice else "#888"
            px = x + (cx - min(xs)) * TILE
            py = top + 18 + (max(ys) - cy) * TILE
            parts.append(_tile(px, py, TILE - 2, die["edges"], open_sides=open_sides, frame=frame))
        x += width + 24
        row_height = max(row_height, height)
    return parts, top + 18 + row_height + 12


def render(view: dict, *, seat_names: list[str] | None = None) -> str:
    """An SVG picture of ``view``; ``seat_names`` (escaped) label the seats, default "Seat n"."""
    players = view["players"]
    names = [str(name) for name in (seat_names or [])][:players]
    names += [f"Seat {seat}" for seat in range(len(names), players)]
    body: list[str] = []
    top = PAD
    for section in (_scoreboard, _status):
        parts, top = section(view, names, top)
        body += parts
    turn = view["turn"]
    parts, top = _row_of_dice("Pool (latest roll)", [p["face"] for p in turn["pool"]], top)
    body += parts
    parts, top = _row_of_dice("Collected / thrown",
                              ["KNIGHT"] * turn["collected_knights"] + ["CATAPULT"] * turn["catapults"], top)
    body += parts
    parts, top = _planes(view, top)
    body += parts
    height = top + PAD
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0f}" width="100%" '
            f'preserveAspectRatio="xMidYMin meet" role="img">'
            f'<title>{escape("Carcassonne: The Dice Game")}</title>'
            f'<rect x="0" y="0" width="{WIDTH}" height="{height:.0f}" fill="#fbfaf6"/>'
            + "".join(body) + "</svg>")
