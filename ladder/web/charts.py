"""Small SVG charts drawn on the server: a bot's rating history, the leaderboard's trend sparklines and
interval bars, the replay's score and think-time charts, and a version comparison's LLR with its bounds.

Every piece of text placed in the SVG goes through ``escape``; numbers are formatted by us. The charts are
plain markup, so they print, scale and work without JavaScript.

The replay's charts share one x axis, the match's steps, and carry a cursor (``line.cursor``) drawn at the
step the page opened on. Their root says how a step maps to x (``data-x0``, ``data-x1``: the x of step 0
and of step ``data-domain``), so the replay script moves the cursor, and turns a click into a step,
without redrawing anything; the score chart adds its y mapping (``data-y0``/``data-y1``: the y of
``data-low``/``data-high``) for the dots on each seat's line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.utils.html import escape

if TYPE_CHECKING:
    from ladder.web.replay import Decision

# Most points drawn on one line: enough to show the shape, few enough to keep the page small.
MAX_POINTS = 300


def downsample(values: Sequence[float], limit: int = MAX_POINTS) -> list[tuple[int, float]]:
    """``(index, value)`` pairs, at most ``limit`` of them, evenly spread and always keeping the last."""
    count = len(values)
    if count <= limit:
        return list(enumerate(values))
    stride = (count - 1) / (limit - 1)
    picks = sorted({round(i * stride) for i in range(limit)})
    return [(i, values[i]) for i in picks]


def _scale(low: float, high: float, out_low: float, out_high: float):
    span = (high - low) or 1.0
    return lambda value: out_low + (value - low) / span * (out_high - out_low)


def rating_history_svg(ratings: Sequence[float], *, title: str = "Rating history", width: int = 640,
                       height: int = 220) -> str:
    """A line chart of ``ratings`` in game order (the first value is the starting rating).

    Draws the rating axis with three labelled gridlines and the game count on the x axis.
    """
    left, right, top, bottom = 48, 12, 12, 28
    points = downsample(ratings)
    label = escape(title)
    if len(points) < 2:
        return (f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{label}" '
                f'xmlns="http://www.w3.org/2000/svg"><text x="{width / 2:.0f}" y="{height / 2:.0f}" '
                f'text-anchor="middle" fill="#666">No rated games yet</text></svg>')
    low, high = min(v for _, v in points), max(v for _, v in points)
    pad = max(10.0, (high - low) * 0.1)
    low, high = low - pad, high + pad
    x = _scale(0, len(ratings) - 1, left, width - right)
    y = _scale(low, high, height - bottom, top)
    parts = [
        (f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{label}" '
         'xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="sans-serif">'),
        f"<title>{label}</title>",
    ]
    for fraction in (0.0, 0.5, 1.0):
        value = low + pad + (high - low - 2 * pad) * fraction
        gy = y(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{gy:.1f}" y2="{gy:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 4}" y="{gy + 4:.1f}" text-anchor="end" fill="#555">{value:.0f}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}" fill="#555">game 0</text>')
    parts.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end" fill="#555">'
                 f"game {len(ratings) - 1}</text>")
    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in points)
    parts.append(f'<polyline fill="none" stroke="#2a6fdb" stroke-width="2" points="{path}"/>')
    last_i, last_v = points[-1]
    parts.append(f'<circle cx="{x(last_i):.1f}" cy="{y(last_v):.1f}" r="3.5" fill="#2a6fdb"/>')
    parts.append("</svg>")
    return "".join(parts)


def sparkline_svg(ratings: Sequence[float], *, width: int = 80, height: int = 20) -> str:
    """A tiny line of recent ratings, green when it ends higher than it started, red when lower."""
    if len(ratings) < 2:
        return ""
    low, high = min(ratings), max(ratings)
    x = _scale(0, len(ratings) - 1, 1, width - 1)
    y = _scale(low, high, height - 2, 2)
    colour = "#1a7f37" if ratings[-1] > ratings[0] else "#c62828" if ratings[-1] < ratings[0] else "#888"
    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(ratings))
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'aria-hidden="true" xmlns="http://www.w3.org/2000/svg"><polyline fill="none" stroke="{colour}" '
            f'stroke-width="1.5" points="{path}"/></svg>')


def interval_domain(lines: Sequence[dict], *, margin: float = 60.0) -> tuple[float, float]:
    """The Elo span the leaderboard's interval bars share: every row's fitted rating and online Elo with a
    margin. Intervals reaching past it are cut at its ends: a bot with no games has a prior-wide interval
    (about +-780), which would otherwise flatten every other bar."""
    values = [v for line in lines for v in (line["elo"], line["elo_interval"]["estimate"])]
    if not values:
        return 0.0, 1.0
    return min(values) - margin, max(values) + margin


def interval_bar_svg(*, low: float, high: float, estimate: float, elo: float, domain: tuple[float, float],
                     width: int = 110, height: int = 14) -> str:
    """A small bar of one leaderboard row on the board's shared ``domain`` (:func:`interval_domain`): the
    95% interval as a band, the fitted rating as a tick, the online Elo as a dot."""
    x = _scale(domain[0], domain[1], 2, width - 2)

    def clipped(value: float) -> float:
        return min(max(x(value), 1.0), width - 1.0)

    left, right = clipped(low), clipped(high)
    label = escape(f"95% interval {low:.0f}–{high:.0f}, fitted {estimate:.0f}, online Elo {elo:.0f}")
    middle = height / 2
    return (f'<svg class="interval-bar" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{label}" xmlns="http://www.w3.org/2000/svg">'
            f'<line x1="1" y1="{middle:.1f}" x2="{width - 1}" y2="{middle:.1f}" stroke="#e2e2e2" stroke-width="2"/>'
            f'<rect class="band" x="{left:.1f}" y="{middle - 4:.1f}" width="{max(right - left, 1.0):.1f}" height="8" '
            f'rx="2" fill="#9bbcf0"/>'
            f'<line class="estimate" x1="{clipped(estimate):.1f}" y1="{middle - 5:.1f}" x2="{clipped(estimate):.1f}" '
            f'y2="{middle + 5:.1f}" stroke="#14213d" stroke-width="1.5"/>'
            f'<circle class="elo" cx="{clipped(elo):.1f}" cy="{middle:.1f}" r="2.5" fill="#d9480f"/></svg>')


# Seat lines differ in dash as well as colour, so they can be told apart without colour.
SEAT_COLOURS = ("#2a6fdb", "#d9480f", "#2b8a3e", "#ae3ec9", "#8a6100")
SEAT_DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2")
OVER_CLOCK = "#c62828"
BANK = "#1a7f37"


def flat_points_dropped(values: Sequence[float]) -> list[tuple[int, float]]:
    """``(index, value)`` pairs a polyline through ``values`` needs to look exactly the same: both ends and
    every point next to a change. Scores change on few steps, so a 1,500-step match keeps a few dozen."""
    last = len(values) - 1
    return [(i, v) for i, v in enumerate(values)
            if i in (0, last) or v != values[i - 1] or v != values[i + 1]]


def _replay_root(*, cls: str, width: int, height: int, label: str, x0: float, x1: float, domain: int,
                 extra: str = "") -> str:
    return (f'<svg class="chart {cls}" viewBox="0 0 {width} {height}" role="img" aria-label="{label}" '
            f'xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="sans-serif" '
            f'data-x0="{x0:.1f}" data-x1="{x1:.1f}" data-domain="{domain}"{extra}>')


def _cursor(x: float, top: float, bottom: float) -> str:
    return (f'<line class="cursor" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{bottom}" stroke="#14213d" '
            'stroke-width="1.5" stroke-dasharray="3 2"/>')


def score_chart_svg(scores: Sequence[Sequence[float]], *, seat_names: Sequence[str], step: int,
                    title: str = "Scores after every step", width: int = 960, height: int = 200) -> str:
    """Each seat's score after every step (``scores[step][seat]``) as one line per seat, a legend naming
    the seats, and the cursor with a dot on each line at ``step``."""
    left, right, top, bottom = 40, 12, 30, 26
    label = escape(title)
    domain = max(1, len(scores) - 1)
    seats = len(scores[0]) if scores else 0
    values = [v for row in scores for v in row] or [0]
    low, high = min(0, min(values)), max(values)
    high = high if high > low else low + 1
    x = _scale(0, domain, left, width - right)
    y = _scale(low, high, height - bottom, top)
    step = max(0, min(step, len(scores) - 1))
    parts = [
        _replay_root(cls="score-chart", width=width, height=height, label=label, x0=x(0), x1=x(domain),
                     domain=domain, extra=(f' data-y0="{y(low):.1f}" data-y1="{y(high):.1f}" '
                                           f'data-low="{low:g}" data-high="{high:g}"')),
        f"<title>{label}</title>",
    ]
    finals = ", ".join(f"{escape(_seat_name(seat_names, i))} {scores[-1][i]:g}" for i in range(seats)) if scores else ""
    parts.append(f"<desc>Score of each seat after each of the {domain} steps; at the end: {finals}.</desc>")
    for value in (low, (low + high) / 2, high):
        gy = y(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{gy:.1f}" y2="{gy:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 4}" y="{gy + 4:.1f}" text-anchor="end" fill="#555">{round(value, 1):g}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}" fill="#555">step 0</text>')
    parts.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end" fill="#555">step {domain}</text>')
    slot = (width - left - right) / max(1, seats)
    for seat in range(seats):
        colour, dash = SEAT_COLOURS[seat % len(SEAT_COLOURS)], SEAT_DASHES[seat % len(SEAT_DASHES)]
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        series = [row[seat] for row in scores]
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in flat_points_dropped(series))
        parts.append(f'<polyline data-seat="{seat}" fill="none" stroke="{colour}" stroke-width="2"{dashes} '
                     f'points="{path}"/>')
        # The legend: a sample of the line, then the seat's name cut to its slot.
        lx = left + seat * slot
        name = _seat_name(seat_names, seat)
        room = max(4, int((slot - 34) / 6.5))
        shown = name if len(name) <= room else name[: room - 1] + "…"
        parts.append(f'<line x1="{lx:.1f}" x2="{lx + 24:.1f}" y1="12" y2="12" stroke="{colour}" '
                     f'stroke-width="2"{dashes}/>')
        parts.append(f'<text x="{lx + 28:.1f}" y="16" fill="#333">{escape(f"{seat} {shown}")}</text>')
    parts.append(_cursor(x(step), top, height - bottom))
    for seat in range(seats):
        parts.append(f'<circle class="cursor-dot" data-seat="{seat}" cx="{x(step):.1f}" '
                     f'cy="{y(scores[step][seat]):.1f}" r="3.5" fill="{SEAT_COLOURS[seat % len(SEAT_COLOURS)]}"/>')
    parts.append("</svg>")
    return "".join(parts)


def _seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"seat {seat}"


def think_time_svg(decisions: Sequence[Decision], *, move_ms: int, bank_ms: int, last_step: int, step: int,
                   title: str, width: int = 480, height: int = 170) -> str:
    """A seat's think time per decision as bars at the step each one led to (red beyond ``move_ms``), the
    move clock as a dashed line, the time bank left after each decision as a green line on its own axis
    (right), and the cursor at ``step``. An answer never played sits one step past the last.

    The bars are one path (two with the slow ones), not one element per decision: a seat of a long match
    takes hundreds of decisions.
    """
    left, right, top, bottom = 44, 44, 10, 26
    label = escape(title)
    domain = max([1, last_step] + [d.step + 1 for d in decisions])
    x = _scale(0, domain, left, width - right)
    root = _replay_root(cls="think-chart", width=width, height=height, label=label, x0=x(0), x1=x(domain),
                        domain=domain)
    if not decisions:
        return (f'{root}<title>{label}</title><text x="{width / 2:.0f}" y="{height / 2:.0f}" '
                f'text-anchor="middle" fill="#666">No decisions recorded</text></svg>')
    longest = max(decisions, key=lambda d: d.ms)
    over = [d for d in decisions if d.ms > move_ms]
    high = max(longest.ms, move_ms) * 1.1
    y = _scale(0, high, height - bottom, top)
    bank_y = _scale(0, bank_ms or 1, height - bottom, top)
    desc = (f"{len(decisions)} decisions; the longest took {longest.ms} ms (step {longest.step + 1}); "
            f"{len(over)} over the move clock of {move_ms} ms; bank left at the end "
            f"{decisions[-1].bank_ms / 1000:.1f} s of {bank_ms / 1000:.1f} s.")
    parts = [root, f"<title>{label}</title>", f"<desc>{desc}</desc>",
             f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#bbb"/>',
             f'<text x="{left - 4}" y="{y(0) + 4:.1f}" text-anchor="end" fill="#555">0</text>',
             f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" fill="#555">{high:.0f}</text>',
             f'<text x="{left - 4}" y="{top + 20}" text-anchor="end" fill="#555">ms</text>',
             f'<text x="{left}" y="{height - 8}" fill="#555">step 0</text>',
             f'<text x="{width - right}" y="{height - 8}" text-anchor="end" fill="#555">step {domain}</text>']
    bar = max(1.0, min(6.0, (width - left - right) / domain * 0.7))
    for cls, colour, rows in (("bars", "#2a6fdb", [d for d in decisions if d.ms <= move_ms]),
                              ("bars over", OVER_CLOCK, over)):
        if rows:
            d = " ".join(f"M{x(r.step + 1):.1f},{y(0):.1f}V{y(r.ms):.1f}" for r in rows)
            parts.append(f'<path class="{cls}" d="{d}" stroke="{colour}" stroke-width="{bar:.1f}"/>')
    parts.append(f'<line class="move-clock" x1="{left}" x2="{width - right}" y1="{y(move_ms):.1f}" '
                 f'y2="{y(move_ms):.1f}" stroke="#555" stroke-dasharray="5 3"/>')
    parts.append(f'<text x="{width - right - 2}" y="{y(move_ms) - 3:.1f}" text-anchor="end" fill="#555">'
                 f"move clock {move_ms} ms</text>")
    if bank_ms:
        bank = [bank_ms] + [d.bank_ms for d in decisions]
        at = [0] + [d.step + 1 for d in decisions]
        points = " ".join(f"{x(at[i]):.1f},{bank_y(v):.1f}" for i, v in flat_points_dropped(bank))
        parts.append(f'<polyline class="bank" fill="none" stroke="{BANK}" stroke-width="1.5" points="{points}"/>')
        parts.append(f'<text x="{width - right + 4}" y="{top + 8}" fill="{BANK}">{bank_ms / 1000:.4g} s</text>')
        parts.append(f'<text x="{width - right + 4}" y="{top + 20}" fill="{BANK}">bank</text>')
        parts.append(f'<text x="{width - right + 4}" y="{bank_y(0) + 4:.1f}" fill="{BANK}">0 s</text>')
    parts.append(_cursor(x(max(0, min(step, domain))), top, height - bottom))
    parts.append("</svg>")
    return "".join(parts)


def llr_chart_svg(llr: Sequence[float], *, lower: float, upper: float, title: str = "LLR after each pair",
                  width: int = 640, height: int = 240) -> str:
    """The SPRT's log-likelihood ratio after each complete pair of a version comparison, with its two
    stopping bounds drawn as dashed lines (green above: better; red below: no better) and 0 as a gridline.

    The vertical range always holds both bounds, so a run that crosses one is seen crossing it.
    """
    left, right, top, bottom = 48, 12, 12, 28
    label = escape(title)
    points = downsample(list(llr))
    values = [v for _, v in points]
    low, high = min([lower, *values]), max([upper, *values])
    pad = (high - low) * 0.06 or 1.0
    low, high = low - pad, high + pad
    count = max(1, len(llr))
    x = _scale(0, count, left, width - right)
    y = _scale(low, high, height - bottom, top)
    parts = [
        (f'<svg class="chart llr" viewBox="0 0 {width} {height}" role="img" aria-label="{label}" '
         'xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="sans-serif">'),
        f"<title>{label}</title>",
        f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#ddd"/>',
        f'<text x="{left - 4}" y="{y(0) + 4:.1f}" text-anchor="end" fill="#555">0</text>',
    ]
    for name, value, colour in (("upper", upper, "#1a7f37"), ("lower", lower, "#c62828")):
        gy = y(value)
        parts.append(f'<line class="bound {name}" x1="{left}" x2="{width - right}" y1="{gy:.1f}" y2="{gy:.1f}" '
                     f'stroke="{colour}" stroke-width="1.5" stroke-dasharray="6 4"/>')
        parts.append(f'<text x="{left - 4}" y="{gy + 4:.1f}" text-anchor="end" fill="{colour}">{value:.2f}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}" fill="#555">pair 0</text>')
    parts.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end" fill="#555">pair {len(llr)}</text>')
    if points:
        # The line starts at 0 before the first pair.
        path = " ".join([f"{x(0):.1f},{y(0):.1f}"] + [f"{x(i + 1):.1f},{y(v):.1f}" for i, v in points])
        parts.append(f'<polyline class="llr-line" fill="none" stroke="#2a6fdb" stroke-width="2" points="{path}"/>')
        last_i, last_v = points[-1]
        parts.append(f'<circle cx="{x(last_i + 1):.1f}" cy="{y(last_v):.1f}" r="3.5" fill="#2a6fdb"/>')
    else:
        parts.append(f'<text x="{width / 2:.0f}" y="{y(0) - 8:.1f}" text-anchor="middle" fill="#666">'
                     "No complete pair yet</text>")
    parts.append("</svg>")
    return "".join(parts)
