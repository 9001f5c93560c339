"""Small SVG charts drawn on the server: a bot's rating history, the leaderboard's trend sparklines and a
version comparison's LLR with its bounds.

Every piece of text placed in the SVG goes through ``escape``; numbers are formatted by us. The charts are
plain markup, so they print, scale and work without JavaScript.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape

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
