"""The site's bots: a fixed pool of accounts, one per name, made by a migration (accounts 0006)
before anybody can sign up, and known by their `is_bot` flag, never by their username.

Their names are reserved: no player's username or display name may read like a bot's (a word
«bot», in any case or look-alike letters, or «bot» glued to a name of the pool), or a player
could pass for one at a table.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from . import names

BOT_NAMES = [
    "Lola", "Paco", "Maite", "Iñaki", "Carmen", "Andoni", "Pili", "Txema", "Rosario", "Mikel",
    "Begoña", "Fermín", "Amaia", "Julián", "Nerea", "Koldo",
]  # fmt: skip


def display_name(name: str) -> str:
    """What a bot of the pool is called at the tables: «Bot Nerea»."""
    return f"Bot {name}"


def _plain(text: str) -> str:
    """Letters without their accents, each compared by its confusable skeleton, case-folded:
    «Bοt Nérea» with a Greek «ο» is «bot nerea»."""
    stripped = "".join(
        c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
    )
    return names.skeleton(stripped.casefold()).casefold()


_GLUED = frozenset("bot" + _plain(name) for name in BOT_NAMES)


def reads_like_bot(value: str) -> bool:
    """Whether a name reads like a bot's: «bot-lola», «Bot Nerea (normal)», «Bot Nérea»,
    «B0T_Koldo», «botnerea»; not «Botella» or «Robot»."""
    words = [w for w in re.split(r"[\W_]+", _plain(names.normalize(value))) if w]
    return any(w == "bot" or w in _GLUED for w in words)


def pool_name(display: str) -> str:
    """The name of the pool a bot's display name is made of: «Bot Nerea» is «Nerea»."""
    return display.removeprefix(display_name(""))


def clashes(display: str, seated: Iterable[str]) -> bool:
    """Whether a bot called `display` («Bot Maite») would share a name with somebody seated
    (named as they chose, «Maite», «maite_g», «Maité Ruiz»; or another bot, «Bot Maite»): a
    «Bot Maite» beside Maite makes the table's log ambiguous."""
    name = _plain(pool_name(display))
    for other in seated:
        words = [w for w in re.split(r"[\W_]+", _plain(names.normalize(other))) if w]
        if name in words:
            return True
    return False


def pool(user_model: Any) -> None:
    """Make the bots of the pool that are missing (`user_model`: the migration's historical
    model or the real one). A username a player took before the pool existed is left to them:
    the bot gets the next free one («bot-lola-2»)."""
    have = set(user_model.objects.filter(is_bot=True).values_list("display_name", flat=True))
    for name in BOT_NAMES:
        if display_name(name) in have:
            continue
        base = f"bot-{slugify(name)}"
        for n in range(1, 100):
            username = base if n == 1 else f"{base}-{n}"
            if user_model.objects.filter(username__iexact=username).exists():
                continue
            try:
                with transaction.atomic():
                    user_model.objects.create(
                        username=username,
                        display_name=display_name(name),
                        is_bot=True,
                        password=make_password(None),
                    )
                break
            except IntegrityError:
                continue  # taken at the same moment: the next one
