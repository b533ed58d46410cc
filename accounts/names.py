"""Player names: what a username or a display name may contain, and when two names are the same
name to the eye.

- A name is NFKC-normalised (full-width letters, ligatures and decomposed accents become the
  letters a keyboard types) and its runs of blanks collapsed.
- Refused: characters that show nothing or reorder the text around them (Unicode's format,
  control, private-use, surrogate, unassigned and line or paragraph separator categories, and
  every default-ignorable code point, such as the Hangul filler), and names without a single
  letter or digit («.», «..», «-_-»: a username is also a URL path segment).
- Two names are one name when their confusable skeletons (Unicode TR39, through ICU's
  SpoofChecker) meet: «Аlicia» with a Cyrillic «А» is «Alicia». Each name is compared as written
  and case-folded, since sign-up already treats «alicia» and «Alicia» as one name (and «Il»
  looks like «ll» only with its capital).

No database here: `accounts.models.NameClaim` stores the skeletons and its unique index settles
races.
"""

from __future__ import annotations

import threading
import unicodedata

import icu
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

#: Unicode general categories a name never contains.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})

_ASCII_BLANKS = frozenset(" \t\n\r\f\v")

_local = threading.local()


def normalize(value: str) -> str:
    """NFKC, trimmed, with each run of blanks made one space: «Pepe  » is «Pepe»."""
    return " ".join(unicodedata.normalize("NFKC", value).split())


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES or icu.Char.hasBinaryProperty(
        char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def clean(value: str) -> str:
    """The name `normalize` makes of `value`, refused (`ValidationError`, codes
    `hidden_character` and `no_letter`) if it has a hidden or direction-changing character or no
    letter or digit at all. Tabs and line breaks are only blanks (pasted names bring them)."""
    text = unicodedata.normalize("NFKC", value)
    for char in text:
        if char not in _ASCII_BLANKS and _hidden(char):
            raise ValidationError(
                _(
                    "El nombre lleva un carácter invisible o que cambia la dirección del texto "
                    "(%(code)s): quítalo."
                ),
                code="hidden_character",
                params={"code": f"U+{ord(char):04X}"},
            )
    name = " ".join(text.split())
    if name and not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise ValidationError(
            _("El nombre tiene que llevar al menos una letra o una cifra."), code="no_letter"
        )
    return name


def _checker() -> icu.SpoofChecker:
    # One per thread: ICU does not promise that a checker may be shared between threads.
    checker = getattr(_local, "checker", None)
    if checker is None:
        checker = _local.checker = icu.SpoofChecker()
    return checker


def skeleton(text: str) -> str:
    """The TR39 skeleton of `text` as it is (`skeletons` is a name's keys)."""
    return _checker().getSkeleton(0, text)


def skeletons(value: str) -> frozenset[str]:
    """The keys under which a name is claimed: the TR39 skeleton of the normalised name as
    written and case-folded. Two names whose keys meet look the same."""
    name = normalize(value)
    if not name:
        return frozenset()
    checker = _checker()
    return frozenset({checker.getSkeleton(0, name), checker.getSkeleton(0, name.casefold())})


#: What every page calls a player who closed their account, wherever their games, chat lines or
#: tournament results remain (`shown`).
RETIRED = _("Jugador retirado")

#: A closed account's username begins with it: no name a player may choose does (usernames are
#: letters, digits and @.+-_), so the tombstone is nobody's to take, and it marks the account.
TOMBSTONE_PREFIX = "~"


def tombstone(user_id: int) -> str:
    """The username a closed account takes, so that no page or link carries its old name."""
    return f"{TOMBSTONE_PREFIX}retirado-{user_id}"


def is_tombstone(username: str | None) -> bool:
    return bool(username) and str(username).startswith(TOMBSTONE_PREFIX)


def shown(username: str, display_name: str | None) -> str:
    """The name a player goes by on every page, from their account's two columns (the pages that
    read them in SQL call it as `User.public_name` does): «Jugador retirado» for a closed account."""
    if is_tombstone(username):
        return str(RETIRED)
    return display_name or username


def bdi(name: object) -> SafeString:
    """A user-supplied name for HTML, isolated from the text around it: a right-to-left name (or
    one kept from before these rules, with direction characters) cannot reorder its neighbours."""
    return format_html("<bdi>{}</bdi>", name)


def isolate(name: object) -> str:
    """The same for plain text (a page title, a form's option): Unicode's first-strong isolate
    and pop directional isolate around the name."""
    return f"\u2068{name}\u2069"
