"""A knockout bracket drawn on the server as SVG (no JavaScript): the geometry of its boxes and
the lines between them; `tournaments/_bracket.html` draws it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COLUMN = 200  # a round's width, its box and the gap to the next
BOX_WIDTH = 168
LINE = 22  # one pair's line in a box
GAP = 14  # between two boxes of the first round
PAD = 6
TITLE = 20  # the rounds' names above the columns


@dataclass(frozen=True, slots=True)
class Side:
    """One pair in a box: its name, shortened to fit, and in full (both already isolated for
    SVG text), whether it won, and its tantos."""

    name: str
    full: str = ""
    won: bool = False
    tantos: str = ""


def _n(value: float) -> str:
    """A coordinate as SVG wants it, whatever the page's language («12.5», never «12,5»)."""
    return f"{value:.1f}"


def bracket(rounds: list[list[tuple[Side, Side, str]]], titles: list[str]) -> dict[str, Any]:
    """Geometry for `rounds` (first round first; each match its two sides and a link, or ""):
    a box per match, the line from each box to the one its winner goes on to."""
    first = max(1, len(rounds[0]) if rounds else 1)
    box_h = 2 * LINE
    unit = box_h + GAP
    height = TITLE + first * unit + PAD
    width = len(rounds) * COLUMN + PAD
    boxes = []
    links = []
    for r, matches in enumerate(rounds):
        span = unit * 2**r
        x = PAD + r * COLUMN
        for m, (a, b, url) in enumerate(matches):
            centre = TITLE + span * (m + 0.5)
            top = centre - LINE
            boxes.append(
                {
                    "x": _n(x),
                    "y": _n(top),
                    "w": BOX_WIDTH,
                    "h": box_h,
                    "mid": _n(centre),
                    "text_x": _n(x + 6),
                    "score_x": _n(x + BOX_WIDTH - 6),
                    "a_y": _n(top + LINE * 0.5),
                    "b_y": _n(top + LINE * 1.5),
                    "a": a,
                    "b": b,
                    "url": url,
                }
            )
            if r + 1 < len(rounds):
                nxt = TITLE + unit * 2 ** (r + 1) * (m // 2 + 0.5)
                x1, x2 = x + BOX_WIDTH, x + COLUMN
                xm = (x1 + x2) / 2
                links.append(f"M{_n(x1)} {_n(centre)} H{_n(xm)} V{_n(nxt)} H{_n(x2)}")
    return {
        "width": width,
        "height": height,
        "boxes": boxes,
        "links": links,
        "titles": [
            {"x": _n(PAD + r * COLUMN + BOX_WIDTH / 2), "text": t} for r, t in enumerate(titles)
        ],
        "title_y": _n(TITLE - 6),
    }
