"""Rating-over-time charts drawn on the server as SVG (no JavaScript, nothing inline to style)."""

from __future__ import annotations

import math
from typing import Any

WIDTH = 320
HEIGHT = 120
PAD_LEFT = 38
PAD_RIGHT = 6
PAD_TOP = 8
PAD_BOTTOM = 16


def _nice_step(span: float) -> int:
    raw = max(span / 3, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover


def rating_chart(
    values: list[float], *, width: int = WIDTH, height: int = HEIGHT
) -> dict[str, Any]:
    """Geometry for a line chart of ``values`` (oldest first): polyline points, grid, labels.

    Coordinates are strings with a decimal point: a template would localise floats (a Spanish
    page writes «12,5», which is not SVG).

    Returns ``{"points": "x,y …", "grid": [{"y", "label"}], "last": {"x", "y"}, …}``, or
    ``{"empty": True}`` with fewer than two values.
    """
    if len(values) < 2:
        return {"empty": True, "width": width, "height": height}
    low, high = min(values), max(values)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    step = _nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    inner_w = width - PAD_LEFT - PAD_RIGHT
    inner_h = height - PAD_TOP - PAD_BOTTOM
    n = len(values)

    def x(i: int) -> float:
        return PAD_LEFT + inner_w * i / (n - 1)

    def y(v: float) -> float:
        return PAD_TOP + inner_h * (1 - (v - low) / (high - low))

    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    grid = [
        {"y": f"{y(level):.1f}", "label": int(level)}
        for level in range(int(low), int(high) + 1, step)
    ]
    return {
        "empty": False,
        "width": width,
        "height": height,
        "left": PAD_LEFT,
        "right": width - PAD_RIGHT,
        "bottom": height - PAD_BOTTOM,
        "label_x": PAD_LEFT - 4,
        "points": points,
        "grid": grid,
        "last": {"x": f"{x(n - 1):.1f}", "y": f"{y(values[-1]):.1f}"},
        "count": n - 1,
        "first": round(values[0]),
        "final": round(values[-1]),
        "low": round(min(values)),
        "high": round(max(values)),
    }
