"""Draw Barajamos' own Spanish deck as SVG: static/cards/<code>.svg for the 40 cards and back.svg.

Pure Python, no dependencies. Run it from anywhere:

    python scripts/make_cards.py            # writes into static/cards/
    python scripts/make_cards.py OUT_DIR    # writes somewhere else

Every card is a 200 × 300 viewBox with a cream face, rounded corners, the traditional «pintas»
(breaks in the frame line: none for oros, one for copas, two for espadas, three for bastos), a
big corner index coloured by suit, and either the right number of suit symbols or a simple
geometric figure (sota, caballo, rey) holding its suit symbol. The files reference nothing
outside themselves and contain no scripts.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent.parent / "static" / "cards"

RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS = ("o", "c", "e", "b")

# Per suit: index/frame ink, main garment colour, second garment colour, number of pintas.
STYLE = {
    "o": {"ink": "#9a6a00", "main": "#d9a21b", "alt": "#b3261e", "pintas": 0},
    "c": {"ink": "#b3261e", "main": "#c0392b", "alt": "#2a5aa8", "pintas": 1},
    "e": {"ink": "#1d4f91", "main": "#2a5aa8", "alt": "#d9a21b", "pintas": 2},
    "b": {"ink": "#2f6b2a", "main": "#3f8a36", "alt": "#c0392b", "pintas": 3},
}

CREAM = "#fbf4e2"
EDGE = "#7d6a4a"
OUTLINE = "#3b2a1a"
SKIN = "#f3cfa6"
GOLD = "#e2b136"

# Suit symbols, drawn around (0, 0), roughly 44 wide and 60 tall.
SYMBOLS = {
    # A gold coin: rim, inner ring and a small rosette.
    "o": (
        f'<circle r="21" fill="{GOLD}" stroke="#8a5a00" stroke-width="2.5"/>'
        '<circle r="14" fill="none" stroke="#8a5a00" stroke-width="2"/>'
        '<circle r="6" fill="#c0392b" stroke="#8a5a00" stroke-width="1.5"/>'
    ),
    # A goblet: red bowl with a gold rim band, stem and foot.
    "c": (
        '<path d="M-19-24H19C19-4 11 4 0 4S-19-4-19-24Z" fill="#c0392b" stroke="#6e1a12" '
        'stroke-width="2"/>'
        f'<rect x="-19" y="-26" width="38" height="6" rx="2" fill="{GOLD}" stroke="#6e1a12" '
        'stroke-width="1.5"/>'
        f'<path d="M-3 4H3L5 18H-5Z" fill="{GOLD}" stroke="#6e1a12" stroke-width="1.5"/>'
        f'<ellipse cy="21" rx="14" ry="5" fill="{GOLD}" stroke="#6e1a12" stroke-width="1.5"/>'
    ),
    # A sword, point up: blade, gold cross-guard, brown grip and pommel.
    "e": (
        '<path d="M0-31L7-21V11H-7V-21Z" fill="#8fb0d9" stroke="#1d3f73" stroke-width="2.5"/>'
        '<path d="M0-24V9" stroke="#1d3f73" stroke-width="1.5"/>'
        f'<rect x="-16" y="10" width="32" height="7" rx="3.5" fill="{GOLD}" stroke="#6b4a00" '
        'stroke-width="2"/>'
        '<rect x="-4" y="17" width="8" height="9" fill="#7a4a1e"/>'
        f'<circle cy="29" r="5" fill="{GOLD}" stroke="#6b4a00" stroke-width="2"/>'
    ),
    # A cudgel: a knobbly tapered stick with two green shoots.
    "b": (
        '<path d="M-6 30L-12-21Q0-35 12-21L6 30Q0 34-6 30Z" fill="#b57a3c" stroke="#4a2c10" '
        'stroke-width="2.5"/>'
        '<circle cx="-8" cy="-6" r="3" fill="#8a5526"/><circle cx="7" cy="6" r="2.6" '
        'fill="#8a5526"/><circle cx="-5" cy="16" r="2.2" fill="#8a5526"/>'
        '<path d="M7-14q9-6 12 1q-8 2-12-1Z" fill="#3f8a36" stroke="#24521f" stroke-width="1"/>'
        '<path d="M-7 2q-9-5-12 2q8 2 12-2Z" fill="#3f8a36" stroke="#24521f" stroke-width="1"/>'
    ),
}

# Pip positions (x, y) for the number cards, plus per-pip scale.
PIPS: dict[int, tuple[float, list[tuple[float, float]]]] = {
    2: (1.3, [(100, 96), (100, 204)]),
    3: (1.1, [(100, 80), (100, 150), (100, 220)]),
    4: (1.15, [(64, 96), (136, 96), (64, 204), (136, 204)]),
    5: (1.05, [(64, 90), (136, 90), (100, 150), (64, 210), (136, 210)]),
    6: (1.0, [(64, 84), (136, 84), (64, 150), (136, 150), (64, 216), (136, 216)]),
    7: (
        0.92,
        [(60, 80), (140, 80), (100, 116), (60, 152), (140, 152), (64, 220), (136, 220)],
    ),
}

NAMES = {1: "1", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "10", 11: "11", 12: "12"}


def use(x: float, y: float, scale: float = 1.0, rotate: float = 0.0) -> str:
    parts = [f"translate({x:g} {y:g})"]
    if rotate:
        parts.append(f"rotate({rotate:g})")
    if scale != 1.0:
        parts.append(f"scale({scale:g})")
    return f'<use href="#s" transform="{" ".join(parts)}"/>'


def frame(suit: str) -> str:
    """The cream face, the inner frame line and the pintas (gaps) at its top and bottom."""
    ink = STYLE[suit]["ink"]
    out = [
        f'<rect x="1" y="1" width="198" height="298" rx="14" fill="{CREAM}" stroke="{EDGE}" '
        'stroke-width="2"/>',
        f'<rect x="9" y="9" width="182" height="282" rx="8" fill="none" stroke="{ink}" '
        'stroke-width="2.5"/>',
    ]
    count = STYLE[suit]["pintas"]
    for i in range(count):
        x = 100 + (i - (count - 1) / 2) * 18 - 5
        for y in (6, 288):
            out.append(f'<rect x="{x:g}" y="{y}" width="10" height="6" fill="{CREAM}"/>')
    return "".join(out)


def index(rank: int, suit: str) -> str:
    """Big rank number top-left and, upside down, bottom-right."""
    ink = STYLE[suit]["ink"]
    label = NAMES[rank]
    spacing = ' letter-spacing="-5"' if len(label) > 1 else ""
    text = (
        f'<text x="36" y="56" text-anchor="middle" font-family="Georgia,serif" '
        f'font-weight="bold" font-size="54" fill="{ink}"{spacing}>{label}</text>'
    )
    return f'{text}<g transform="rotate(180 100 150)">{text}</g>'


def pips(rank: int) -> str:
    if rank == 1:
        return (
            '<ellipse cx="100" cy="150" rx="52" ry="66" fill="#f3e6c4" stroke="#d8c49a" '
            'stroke-width="2"/>' + use(100, 150, 2.0)
        )
    scale, positions = PIPS[rank]
    return "".join(use(x, y, scale) for x, y in positions)


def sota(suit: str) -> str:
    """A standing page with a cap, tunic and hose, holding the suit symbol up."""
    main, alt = STYLE[suit]["main"], STYLE[suit]["alt"]
    return (
        # legs and shoes
        f'<rect x="85" y="190" width="12" height="52" fill="{alt}" stroke="{OUTLINE}" '
        'stroke-width="2"/>'
        f'<rect x="103" y="190" width="12" height="52" fill="{alt}" stroke="{OUTLINE}" '
        'stroke-width="2"/>'
        f'<ellipse cx="89" cy="245" rx="11" ry="5" fill="{OUTLINE}"/>'
        f'<ellipse cx="111" cy="245" rx="11" ry="5" fill="{OUTLINE}"/>'
        # tunic with belt and collar
        f'<path d="M80 118H120L130 196H70Z" fill="{main}" stroke="{OUTLINE}" stroke-width="2"/>'
        f'<rect x="76" y="160" width="48" height="7" fill="{GOLD}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        f'<path d="M88 118L100 134L112 118Z" fill="{CREAM}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        # left arm down, right arm raised to the symbol
        f'<path d="M80 122L66 168" stroke="{main}" stroke-width="11" stroke-linecap="round"/>'
        f'<circle cx="66" cy="170" r="6" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="1.5"/>'
        f'<path d="M120 122L138 108" stroke="{main}" stroke-width="11" stroke-linecap="round"/>'
        # head, hair and feathered cap
        f'<rect x="95" y="108" width="10" height="12" fill="{SKIN}"/>'
        f'<circle cx="100" cy="96" r="16" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="2"/>'
        '<path d="M84 96Q84 84 100 82Q116 84 116 96Q112 88 100 88Q88 88 84 96Z" fill="#6b3f1d"/>'
        f'<ellipse cx="100" cy="80" rx="21" ry="7" fill="{alt}" stroke="{OUTLINE}" '
        'stroke-width="2"/>'
        f'<path d="M112 76Q124 60 134 64Q124 68 116 78Z" fill="{CREAM}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        '<circle cx="94" cy="97" r="1.8" fill="#3b2a1a"/><circle cx="106" cy="97" r="1.8" '
        'fill="#3b2a1a"/>'
        + use(146, 92, 0.95)
        + f'<circle cx="140" cy="106" r="6" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="1.5"/>'
    )


def caballo(suit: str) -> str:
    """A rider on a horse, the symbol held up over the horse's head."""
    main, alt = STYLE[suit]["main"], STYLE[suit]["alt"]
    horse, dark = "#f1ead8", "#6b5a44"
    legs = "".join(
        f'<path d="M{x} 200L{x + dx} 240" stroke="{dark}" stroke-width="9" stroke-linecap="round"/>'
        for x, dx in ((60, -8), (76, 4), (124, -4), (140, 2))
    )
    return (
        legs
        # tail, body, neck, head, mane
        + f'<path d="M46 186Q26 196 32 234Q40 208 52 200Z" fill="{dark}"/>'
        f'<ellipse cx="98" cy="192" rx="54" ry="24" fill="{horse}" stroke="{dark}" '
        'stroke-width="2.5"/>'
        f'<path d="M128 182L140 140L160 148L150 196Z" fill="{horse}" stroke="{dark}" '
        'stroke-width="2.5"/>'
        f'<path d="M143 136L146 122L153 136Z" fill="{horse}" stroke="{dark}" stroke-width="2"/>'
        f'<ellipse cx="158" cy="152" rx="21" ry="10" transform="rotate(38 158 152)" '
        f'fill="{horse}" stroke="{dark}" stroke-width="2.5"/>'
        f'<path d="M140 136L128 178L136 180L148 142Z" fill="{dark}"/>'
        f'<circle cx="155" cy="146" r="2.2" fill="{OUTLINE}"/>'
        f'<circle cx="170" cy="164" r="1.6" fill="{dark}"/>'
        # saddle cloth and bridle
        f'<path d="M78 172H122L118 206H82Z" fill="{alt}" stroke="{OUTLINE}" stroke-width="2"/>'
        f'<path d="M146 150L168 160L120 166" fill="none" stroke="{GOLD}" stroke-width="2"/>'
        # rider: leg, body, arm, head, hat
        f'<path d="M102 176L112 214" stroke="{main}" stroke-width="12" '
        'stroke-linecap="round"/>'
        f'<ellipse cx="116" cy="218" rx="9" ry="4.5" fill="{OUTLINE}"/>'
        f'<path d="M88 124H116L118 178H86Z" fill="{main}" stroke="{OUTLINE}" stroke-width="2"/>'
        f'<rect x="85" y="150" width="34" height="6" fill="{GOLD}"/>'
        f'<path d="M90 130L70 106" stroke="{main}" stroke-width="10" stroke-linecap="round"/>'
        f'<circle cx="102" cy="108" r="13" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="2"/>'
        f'<path d="M86 100Q102 76 118 100Z" fill="{alt}" stroke="{OUTLINE}" stroke-width="2"/>'
        '<circle cx="107" cy="109" r="1.6" fill="#3b2a1a"/>'
        + use(62, 84, 0.85)
        + f'<circle cx="69" cy="104" r="5.5" fill="{SKIN}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
    )


def rey(suit: str) -> str:
    """A crowned, bearded king in a long robe with a cape, holding the symbol."""
    main, alt = STYLE[suit]["main"], STYLE[suit]["alt"]
    return (
        # robe, cape edges, ermine band, feet
        f'<path d="M76 124H124L144 234H56Z" fill="{main}" stroke="{OUTLINE}" stroke-width="2"/>'
        f'<path d="M76 124L56 234H74L90 130Z" fill="{alt}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        f'<path d="M124 124L144 234H126L110 130Z" fill="{alt}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        f'<path d="M94 134H106L109 234H91Z" fill="{CREAM}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        '<circle cx="100" cy="160" r="2" fill="#3b2a1a"/><circle cx="100" cy="190" r="2" '
        'fill="#3b2a1a"/><circle cx="100" cy="214" r="2" fill="#3b2a1a"/>'
        f'<rect x="52" y="231" width="96" height="7" rx="3" fill="{GOLD}" stroke="{OUTLINE}" '
        'stroke-width="1.5"/>'
        # arms: left holds the symbol, right a sceptre
        f'<path d="M82 132L68 160" stroke="{main}" stroke-width="11" stroke-linecap="round"/>'
        f'<path d="M118 132L134 160" stroke="{main}" stroke-width="11" stroke-linecap="round"/>'
        f'<path d="M140 96V226" stroke="{GOLD}" stroke-width="4" stroke-linecap="round"/>'
        f'<circle cx="140" cy="94" r="6" fill="{GOLD}" stroke="{OUTLINE}" stroke-width="1.5"/>'
        f'<circle cx="136" cy="162" r="6" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="1.5"/>'
        + use(58, 178, 0.8)
        + f'<circle cx="66" cy="164" r="6" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="1.5"/>'
        # head, beard, crown
        f'<circle cx="100" cy="100" r="17" fill="{SKIN}" stroke="{OUTLINE}" stroke-width="2"/>'
        '<path d="M83 102Q84 132 100 136Q116 132 117 102Q108 114 100 112Q92 114 83 102Z" '
        'fill="#ece6da" stroke="#8a8275" stroke-width="1.5"/>'
        '<circle cx="94" cy="98" r="1.8" fill="#3b2a1a"/><circle cx="106" cy="98" r="1.8" '
        'fill="#3b2a1a"/>'
        f'<path d="M81 88L79 62L90 74L100 56L110 74L121 62L119 88Z" fill="{GOLD}" '
        f'stroke="{OUTLINE}" stroke-width="2" stroke-linejoin="round"/>'
        '<circle cx="100" cy="78" r="3" fill="#c0392b"/>'
    )


FIGURES = {10: sota, 11: caballo, 12: rey}


def card_svg(rank: int, suit: str) -> str:
    body = FIGURES[rank](suit) if rank in FIGURES else pips(rank)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 300" width="200" height="300">'
        f'<defs><g id="s">{SYMBOLS[suit]}</g></defs>'
        f"{frame(suit)}{body}{index(rank, suit)}</svg>\n"
    )


def back_svg() -> str:
    """Deep red back with a lattice of small diamonds, a cream border and the site's name."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 300" width="200" height="300">'
        '<defs><pattern id="p" width="20" height="20" patternUnits="userSpaceOnUse">'
        '<rect width="20" height="20" fill="#8c1c13"/>'
        '<path d="M10 2L18 10L10 18L2 10Z" fill="none" stroke="#c9473a" stroke-width="1.5"/>'
        '<circle cx="10" cy="10" r="2" fill="#e2b136"/></pattern></defs>'
        f'<rect x="1" y="1" width="198" height="298" rx="14" fill="{CREAM}" stroke="{EDGE}" '
        'stroke-width="2"/>'
        '<rect x="10" y="10" width="180" height="280" rx="8" fill="url(#p)" stroke="#5e120c" '
        'stroke-width="2"/>'
        '<rect x="18" y="18" width="164" height="264" rx="5" fill="none" stroke="#e2b136" '
        'stroke-width="2"/>'
        f'<ellipse cx="100" cy="150" rx="62" ry="44" fill="{CREAM}" stroke="#e2b136" '
        'stroke-width="4"/>'
        '<text x="100" y="140" text-anchor="middle" font-family="Georgia,serif" '
        'font-weight="bold" font-size="22" fill="#8c1c13">Barajamos</text>'
        '<path d="M58 152H142" stroke="#e2b136" stroke-width="2"/>'
        '<text x="100" y="176" text-anchor="middle" font-family="Georgia,serif" '
        'font-size="16" fill="#8c1c13">mus</text></svg>\n'
    )


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else OUT_DIR
    out.mkdir(parents=True, exist_ok=True)
    for suit in SUITS:
        for rank in RANKS:
            (out / f"{rank}{suit}.svg").write_text(card_svg(rank, suit), encoding="utf-8")
    (out / "back.svg").write_text(back_svg(), encoding="utf-8")
    print(f"wrote {len(RANKS) * len(SUITS) + 1} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
