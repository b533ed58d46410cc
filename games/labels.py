"""The words on screen for a game of Mus: acts, lances, phases and everything the live table says.

Each word is defined here once, in Spanish, translated through the catalogs (gettext). The game
page's replay (``rankings.replay``) reads these dictionaries, and the live table's page emits
:func:`for_table` once as JSON (``{% table_labels %}``), for its scripts, which have no words of
their own. Placeholders are ``{name}``, filled by :func:`fill` here and by the same rule in
``static/js/table/format.js``: a placeholder without a value stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .models import BotLevel, Table
from .templatetags.cards import back_name

#: The four lances, and punto (juego's place when nobody has juego).
LANCES: dict[str, Promise] = {
    "grande": _("Grande"),
    "chica": _("Chica"),
    "pares": _("Pares"),
    "juego": _("Juego"),
    "punto": _("Punto"),
}

#: The phases of a hand (``state.phase``); ``lance`` is the betting over the lances.
PHASES: dict[str, Promise] = {
    "mus": _("Mus"),
    "descarte": _("Descarte"),
    "lance": _("Lances"),
    "recuento": _("Recuento"),
    "terminada": _("Fin de la partida"),
    "cancelada": _("Partida cancelada"),
}

#: The buttons of the acts (what the player does). A raise's button says it as players do
#: (``SAID["raise"]``: «Dos más»).
ACTS: dict[str, Promise] = {
    "mus": _("Mus"),
    "corto": _("Corto"),
    "descarte": _("Descartar"),
    "descarte_n": _("Descartar {n}"),
    "paso": _("Paso"),
    "quiero": _("Quiero"),
    "no_quiero": _("No quiero"),
    "envido_open": _("Envido 2"),
    "envido_chosen": _("Envido {n}"),
    "ordago": _("Órdago"),
    "repartir": pgettext_lazy("recuento", "Seguir"),
}

#: What a player said, in the speech bubbles and the logs. A raise is said as the tantos it
#: puts over the bet (``raise``, with ``{n}`` a number word: «Cinco más»), and the total it
#: leaves on the table in small print (``raise_total``). ``clock``: an act the turn clock
#: played for the player (docs/rules.md §8.2).
SAID: dict[str, Promise] = {
    "mus": _("¡Mus!"),
    "corto": _("Corto"),
    "descarte": _("Cambia {n}"),
    "paso": _("Paso"),
    "envido": _("Envido {n}"),
    "raise": _("{n} más"),
    "raise_total": _("{n} en la mesa"),
    "ordago": _("¡Órdago!"),
    "quiero": _("Quiero"),
    "no_quiero": _("No quiero"),
    "ready": _("Listo"),
    "clock": _("{said} (tiempo)"),
}

#: How players say small amounts («dos más», «cinco más»); larger ones are said in figures.
NUMBERS: dict[str, Promise] = {
    "1": _("Uno"),
    "2": _("Dos"),
    "3": _("Tres"),
    "4": _("Cuatro"),
    "5": _("Cinco"),
    "6": _("Seis"),
    "7": _("Siete"),
    "8": _("Ocho"),
    "9": _("Nueve"),
    "10": _("Diez"),
}

#: The lance an órdago was played at, as a phrase.
AT_LANCE: dict[str, Promise] = {
    "grande": _("a la grande"),
    "chica": _("a la chica"),
    "pares": _("a pares"),
    "juego": _("a juego"),
    "punto": _("al punto"),
}

#: The parts of a lance's tantos at the recuento (the engine's ``breakdown``), each followed
#: by its tantos: «deje 1 + duples de Maite 3 + par de Iñaki 1».
PARTS: dict[str, Promise] = {
    "deje": _("deje"),
    "envite": _("envite"),
    "paso": _("en paso"),
    "par": _("par de {name}"),
    "medias": _("medias de {name}"),
    "duples": _("duples de {name}"),
    "31": _("31 de {name}"),
    "juego": _("juego de {name} ({points})"),
    "punto": _("punto de {name} ({points})"),
    "punto_bare": _("punto"),
}

#: The name of the combination a hand won a lance with.
COMBOS: dict[str, Promise] = {
    "par": _("par"),
    "medias": _("medias"),
    "duples": _("duples"),
    "31": _("31"),
    "juego": _("juego de {points}"),
    "punto": _("{points} de punto"),
}

#: How a lance was settled (the engine's ``how``); ``querido_bet`` names the bet too.
HOWS: dict[str, Promise] = {
    "paso": _("en paso"),
    "querido": _("querido"),
    "querido_bet": _("querido, {n}"),
    "no_querido": _("no querido"),
    "sin_apuesta": _("sin envite: solo una pareja lleva"),
    "ordago": _("órdago querido"),
    "no_jugado": _("nadie lleva"),
}

#: Why a game was cancelled (``state.cancel_reason``): the codes' own words, from the model.
CANCEL_REASONS: dict[str, Promise | str] = dict(Table.CancelReason.choices)

#: The rest of what the live table shows.
TABLE: dict[str, Promise] = {
    "us": _("Nosotros"),
    "them": _("Ellos"),
    "team_a": _("Pareja A"),
    "team_b": _("Pareja B"),
    "you": _("tú"),
    "and": _("{a} y {b}"),
    "pares_yes": _("Pares: sí"),
    "pares_no": _("Pares: no"),
    "juego_yes": _("Juego: sí"),
    "juego_no": _("Juego: no"),
    "changed": _("Cambió {n}"),
    "changed_title": _("Cartas cambiadas: {n} en el último descarte, {total} en esta mano"),
    "bet_none": _("Envite: —"),
    "bet": _("Envite: {n} · {name}"),
    "bet_short": _("Envite: {n}"),
    "bet_ordago": _("¡Órdago! · {name}"),
    "turn_you": _("Tu turno"),
    "turn_of": _("Turno de {names}"),
    "turn_answer": _("Contestan {names}"),
    "turn_answer_you": _("Te envidan: contesta"),
    "turn_discard": _("Descartando: {names}"),
    "deal_you": _("Pulsa «Seguir» cuando quieras la siguiente mano"),
    "deal_other": _("Esperando a que {name} pulse «Seguir»"),
    "deal_others": _("Esperando a que {names} pulsen «Seguir»"),
    "next_hand": _("Siguiente mano"),
    "seconds": _("{n} s"),
    # A seat whose player dropped (docs/rules.md §8.3): the time left is their wait for the whole
    # game, not for this time; at 0 the game is cancelled. Short: it fits a phone's side seat.
    "away_title": _("Sin conexión"),
    "away": _("Le quedan {n} s para toda la partida; a 0, se cancela."),
    "away_bare": _("esperando…"),
    "hint_discard": _("Toca de 1 a 4 cartas para cambiarlas."),
    "tantos_ordago": _("la partida"),
    "tantos_pending": _("al recuento"),
    # A vote a partner's overrode (a raise beats a «No quiero»), and what the pair answered.
    "overruled": _("no cuenta"),
    "pair_decided": _("{names}: {said}"),
    "lances_none": _("Todavía no se ha jugado ningún lance en esta mano."),
    "not_counted": _("no se cuentan: la partida ya estaba ganada"),
    "result_win": _("¡Habéis ganado la partida!"),
    "result_lose": _("Han ganado ellos."),
    "result_team": _("Gana la partida: {team}."),
    "by_ordago": _("La partida se decidió con un órdago."),
    "by_points": _("Resultado final: {score}."),
    "cancelled": _("La partida se ha cancelado."),
    "redirect": _("Volvéis a las mesas en {n} s…"),
    "rating_title": _("puntuación {n} en esta modalidad"),
    "provisional": _("«?»: provisional, menos de 30 partidas puntuadas"),
    "sound_on": _("Sonido: sí"),
    "sound_off": _("Sonido: no"),
    "offline": _("Sin conexión con la mesa: reconectando…"),
    "denied": _("No puedes conectarte a esta mesa. Recarga la página o vuelve a entrar."),
    "denied_login": _("Entra con tu cuenta para ver esta mesa."),
    "log_in": _("Entrar"),
    "unreachable": _(
        "No hay manera de conectar con la mesa. Recarga la página para intentarlo otra vez."
    ),
    "cut_mano": _("{name} corta y pasa a ser mano: en la primera mano, quien corta es mano."),
    # Under the hand that won a lance the cards decided: the hand it beat, or that it tied with
    # and won by speaking first (docs/rules.md §1.3: ties go to whoever is closer to the mano).
    "beat": _("gana a {hand}"),
    "beat_tie": _("empata con {hand}: gana por mano"),
    "hand_with": _("{name} ({combo})"),
    "ordago_end": _("Órdago {lance}, querido: las cartas de {win} ganan a las de {beat}."),
    "ordago_end_tie": _(
        "Órdago {lance}, querido: las cartas de {win} empatan con las de {beat} y ganan por mano."
    ),
    "ordago_end_bare": _("Órdago {lance}, querido: ganan las cartas de {win}."),
    "amount_open": _("Tantos"),
    "amount_more": _("Tantos más"),
    "unread": _("{n} sin leer"),
    "hand_of": _("Cartas de {name}"),
    "your_hand": _("Tus cartas"),
    # A bot's name with its level, wherever a bot is named: «Bot Nerea (fuerte)».
    "bot_name": _("{name} ({level})"),
    # A player's own bot account (docs/bot-api.md), wherever it is named: «Trasto (bot de Ana)».
    "bot_of": _("{name} (bot de {owner})"),
}

#: Words quoted in running text: «Paso» in Spanish, “Pass” in English.
QUOTED: Promise = _("«{quoted}»")

#: The bots' levels by code (games.models.BotLevel), as their names show them.
BOT_LEVELS: dict[str, Promise] = {level.value: level.label for level in BotLevel}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: object, **params: object) -> str:
    """``text`` with each ``{name}`` replaced by ``params[name]``; unknown ones stay as they are."""
    return _PLACEHOLDER.sub(
        lambda m: str(params[m[1]]) if m[1] in params else m[0], str(text or "")
    )


def said(act: str, **params: object) -> str:
    """What saying ``act`` reads like, in the active language (the act itself when unknown)."""
    return fill(SAID[act], **params) if act in SAID else act


def number_word(n: object) -> str:
    """How players say an amount: small ones in words («Cinco»), larger ones in figures."""
    return str(NUMBERS[str(n)]) if str(n) in NUMBERS else str(n)


def said_text(entry: Mapping[str, Any]) -> tuple[str, str]:
    """What one entry of a view's ``said`` reads like, and the small print beside it (a raise's
    total on the table); the live table's ``saidText`` (format.js) says the same."""
    act = str(entry.get("act"))
    small = ""
    if act == "descarte":
        text = said(act, n=entry.get("n"))
    elif act == "envido" and entry.get("more"):
        text = said("raise", n=number_word(entry["more"]))
        small = said("raise_total", n=entry.get("to"))
    elif act == "envido":
        text = said(act, n=entry.get("to"))
    else:
        text = said(act)
    if entry.get("by") == "clock":
        text = said("clock", said=text)
    return text, small


def combo_name(hand: Mapping[str, Any] | None) -> str:
    """The combination a hand of the engine's ``breakdown`` won with («duples», «31»), or ""."""
    if not hand or not hand.get("combo"):
        return ""
    combo = str(hand["combo"])
    return fill(COMBOS.get(combo, combo), points=hand.get("points"))


def beaten(row: Mapping[str, Any], names: Sequence[str]) -> str:
    """What the winning hand of a breakdown ``row`` beat: «gana a Iñaki (par)», or that it tied
    and won by mano; "" when it beat nothing shown. The live table's ``beatText`` says the same."""
    if not row.get("beat"):
        return ""
    return fill(TABLE["beat_tie" if row.get("tie") else "beat"], hand=hand_name(row["beat"], names))


def hand_name(hand: Mapping[str, Any], names: Sequence[str]) -> str:
    """A hand of the breakdown with its player's name: «Maite (duples)», or «Maite»."""
    name = names[hand["seat"]]
    combo = combo_name(hand)
    return fill(TABLE["hand_with"], name=name, combo=combo) if combo else name


def part_label(part: Mapping[str, Any], names: Sequence[str]) -> str:
    """One part of a lance's tantos at the recuento, without its tantos: «duples de Maite»."""
    kind = str(part.get("kind"))
    seat = part.get("seat")
    if kind == "punto" and seat is None:
        kind = "punto_bare"
    name = names[seat] if isinstance(seat, int) else ""
    return fill(PARTS.get(kind, kind), name=name, points=part.get("points"))


def seat_name(name: str, level: str | None, bot_of: str | None = None) -> str:
    """How a seat's player is named: a bot with its level («Bot Nerea (fuerte)»), a player's
    bot account with its owner («Trasto (bot de Ana)»), a person as they chose (the live
    table's ``seatName`` in format.js says the same)."""
    if level in BOT_LEVELS:
        return fill(TABLE["bot_name"], name=name, level=BOT_LEVELS[level])
    if bot_of:
        return fill(TABLE["bot_of"], name=name, owner=bot_of)
    return name


def seat_label(seat: Any) -> str:
    """`seat_name` of a `Seat` (with its user) or of a `state` message's seat entry."""
    if seat is None:
        return ""
    if isinstance(seat, Mapping):
        return seat_name(str(seat.get("name") or ""), seat.get("bot_level"), seat.get("bot_of"))
    level = seat.bot_level if seat.user.is_bot else None
    owner = seat.user.bot_owner.public_name if seat.user.bot_owner_id else None
    return seat_name(seat.user.public_name, level, owner)


def _active(words: Mapping[str, Promise | str]) -> dict[str, str]:
    return {key: str(text) for key, text in words.items()}


def for_table() -> dict[str, Any]:
    """Every word of the live table, in the active language, for its scripts (as JSON)."""
    return {
        "lances": _active(LANCES),
        "phases": _active(PHASES),
        "acts": _active(ACTS),
        "said": _active(SAID),
        "hows": _active(HOWS),
        "numbers": _active(NUMBERS),
        "at_lance": _active(AT_LANCE),
        "parts": _active(PARTS),
        "combos": _active(COMBOS),
        "cancel_reasons": _active(CANCEL_REASONS),
        "bot_levels": _active(BOT_LEVELS),
        "table": {**_active(TABLE), "card_back": back_name()},
    }
