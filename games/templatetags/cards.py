"""Template library ``cards``: the site's own Spanish deck in templates.

    {% load cards %}
    {% card "12o" %}                 -> <img class="card-img" src=".../cards/12o.svg" alt="rey de oros" ...>
    {% card code size="small" %}     -> the same with class="card-img small"
    {% card_back %}                  -> the back of a card («carta boca abajo»)
    {{ code|card_name }}             -> «rey de oros» / «king of coins»
    {% card_data as cards %}         -> every card's image and name, for the table's renderer

Card codes are rank + suit letter (docs/rules.md §2): ranks 1–7, 10 (sota), 11 (caballo), 12 (rey);
suits o (oros), c (copas), e (espadas), b (bastos). The images are drawn by
``scripts/make_cards.py`` into ``static/cards/``.

An unknown code is a programming error, not a value to hide: ``card_name`` and both tags raise
:class:`UnknownCardError`, which is a ``TemplateSyntaxError`` (so a template fails loudly) and a
``ValueError`` (so Python callers can catch it as one).
"""

from __future__ import annotations

from django import template
from django.template import TemplateSyntaxError
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language

register = template.Library()

RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS: tuple[str, ...] = ("o", "c", "e", "b")

#: All 40 codes, suit by suit (oros, copas, espadas, bastos), each from the as to the rey.
CARD_CODES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)
_CODE_SET = frozenset(CARD_CODES)

# Plain dictionaries per language (no .po needed): rank names, suit names, how they join.
RANK_NAMES: dict[str, dict[int, str]] = {
    "es": {
        1: "as",
        2: "dos",
        3: "tres",
        4: "cuatro",
        5: "cinco",
        6: "seis",
        7: "siete",
        10: "sota",
        11: "caballo",
        12: "rey",
    },
    "en": {
        1: "ace",
        2: "two",
        3: "three",
        4: "four",
        5: "five",
        6: "six",
        7: "seven",
        10: "jack",
        11: "knight",
        12: "king",
    },
}
SUIT_NAMES: dict[str, dict[str, str]] = {
    "es": {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"},
    "en": {"o": "coins", "c": "cups", "e": "swords", "b": "clubs"},
}
NAME_PATTERN: dict[str, str] = {"es": "{rank} de {suit}", "en": "{rank} of {suit}"}
BACK_NAME: dict[str, str] = {"es": "carta boca abajo", "en": "face-down card"}

#: Intrinsic size attributes (2:3) of the two sizes; CSS may scale them.
SIZES: dict[str, tuple[int, int]] = {"": (72, 108), "small": (48, 72)}


class UnknownCardError(TemplateSyntaxError, ValueError):
    """A card code that is not one of the 40 of the Spanish deck."""


def _language(lang: str | None) -> str:
    """ "en" for any English language code, otherwise "es" (the site's default)."""
    code = (lang or get_language() or "es").lower()
    return "en" if code.split("-")[0].split("_")[0] == "en" else "es"


def _check(code: object) -> str:
    if not isinstance(code, str) or code not in _CODE_SET:
        raise UnknownCardError(
            f"Unknown card code {code!r}: expected rank 1-7, 10, 11 or 12 followed by a suit "
            "letter o, c, e or b (for example '12o')."
        )
    return code


def _size(size: str | None) -> tuple[str, int, int]:
    key = size or ""
    if key not in SIZES:
        raise TemplateSyntaxError(f'Unknown card size {size!r}: use size="small" or nothing.')
    width, height = SIZES[key]
    return ("card-img small" if key else "card-img"), width, height


@register.filter(name="card_name")
def card_name(code: str, lang: str | None = None) -> str:
    """Human name of a card: «rey de oros», or «king of coins» when the language is English."""
    code = _check(code)
    language = _language(lang)
    rank, suit = int(code[:-1]), code[-1]
    return NAME_PATTERN[language].format(
        rank=RANK_NAMES[language][rank], suit=SUIT_NAMES[language][suit]
    )


def back_name(lang: str | None = None) -> str:
    """What a face-down card is called: «carta boca abajo», or «face-down card» in English."""
    return BACK_NAME[_language(lang)]


@register.simple_tag
def card(code: str, size: str | None = None) -> SafeString:
    """``<img>`` of one face-up card, with its name as alt text."""
    code = _check(code)
    css_class, width, height = _size(size)
    return format_html(
        '<img class="{}" src="{}" alt="{}" width="{}" height="{}">',
        css_class,
        static(f"cards/{code}.svg"),
        card_name(code),
        width,
        height,
    )


@register.simple_tag
def card_back(size: str | None = None) -> SafeString:
    """``<img>`` of a face-down card."""
    css_class, width, height = _size(size)
    return format_html(
        '<img class="{}" src="{}" alt="{}" width="{}" height="{}">',
        css_class,
        static("cards/back.svg"),
        back_name(),
        width,
        height,
    )


@register.simple_tag
def card_data() -> dict[str, object]:
    """Every card's image and name (in the active language), and the back's image: the table's
    renderer (static/js/table/felt.js) draws cards from it (``json_script`` as ``card-data``),
    so no text or URL is built in the browser."""
    return {
        "back": static("cards/back.svg"),
        "cards": {
            code: {"src": static(f"cards/{code}.svg"), "name": card_name(code)}
            for code in CARD_CODES
        },
    }
