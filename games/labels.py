"""The words on screen for a game of Mus: acts, lances, phases and everything the live table says.

Each word is defined here once, in Spanish, translated through the catalogs (gettext). The game
page's replay (``rankings.replay``) reads these dictionaries, and the live table's page emits
:func:`for_table` once as JSON (``{% table_labels %}``), for its scripts, which have no words of
their own. Placeholders are ``{name}``, filled by :func:`fill` here and by the same rule in
``static/js/table/format.js``: a placeholder without a value stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .models import Table
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

#: The buttons of the acts (what the player does).
ACTS: dict[str, Promise] = {
    "mus": _("Mus"),
    "corto": _("Corto"),
    "descarte": _("Descartar"),
    "descarte_n": _("Descartar {n}"),
    "paso": _("Paso"),
    "quiero": _("Quiero"),
    "no_quiero": _("No quiero"),
    "envido_open": _("Envido 2"),
    "envido_quick": _("+2 → {n}"),
    "envido_chosen": _("Envido {n}"),
    "ordago": _("Órdago"),
    "repartir": _("Seguir"),
}

#: What a player said, in the speech bubbles and the logs (``raise``: an envido over a bet).
SAID: dict[str, Promise] = {
    "mus": _("¡Mus!"),
    "corto": _("Corto"),
    "descarte": _("Cambia {n}"),
    "paso": _("Paso"),
    "envido": _("Envido {n}"),
    "raise": _("Subo a {n}"),
    "ordago": _("¡Órdago!"),
    "quiero": _("Quiero"),
    "no_quiero": _("No quiero"),
    "ready": _("Listo"),
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
    "bet_ordago": _("¡Órdago! · {name}"),
    "turn_you": _("Tu turno"),
    "turn_of": _("Turno de {names}"),
    "turn_answer": _("Contestan {names}"),
    "turn_answer_you": _("Te envidan: contesta"),
    "turn_discard": _("Descartando: {names}"),
    "deal_you": _("Pulsa «Seguir» cuando quieras la siguiente mano"),
    "deal_other": _("Esperando a que {name} pulse «Seguir»"),
    "seconds": _("{n} s"),
    "away": _("esperando… {n} s"),
    "away_bare": _("esperando…"),
    "hint_discard": _("Toca de 1 a 4 cartas para cambiarlas."),
    "tantos_ordago": _("la partida"),
    "tantos_pending": _("al recuento"),
    "not_counted": _("no se cuentan: la partida ya estaba ganada"),
    "result_win": _("¡Habéis ganado la partida!"),
    "result_lose": _("Han ganado ellos."),
    "result_team": _("Gana la partida: {team}."),
    "by_ordago": _("La partida se decidió con un órdago."),
    "by_points": _("Resultado final: {score}."),
    "cancelled": _("La partida se ha cancelado."),
    "redirect": _("Volvéis a las mesas en {n} s…"),
    "rating_title": _("puntuación {n} en esta modalidad"),
    "sound_on": _("Sonido: sí"),
    "sound_off": _("Sonido: no"),
    "offline": _("Sin conexión con la mesa: reconectando…"),
    "denied": _("No puedes conectarte a esta mesa. Recarga la página o vuelve a entrar."),
    "hand_of": _("Cartas de {name}"),
    "your_hand": _("Tus cartas"),
}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: object, **params: object) -> str:
    """``text`` with each ``{name}`` replaced by ``params[name]``; unknown ones stay as they are."""
    return _PLACEHOLDER.sub(
        lambda m: str(params[m[1]]) if m[1] in params else m[0], str(text or "")
    )


def said(act: str, **params: object) -> str:
    """What saying ``act`` reads like, in the active language (the act itself when unknown)."""
    return fill(SAID[act], **params) if act in SAID else act


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
        "cancel_reasons": _active(CANCEL_REASONS),
        "table": {**_active(TABLE), "card_back": back_name()},
    }
