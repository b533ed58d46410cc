"""Refusals of the service layer: a stable `code` for clients, a translatable message for people."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import redis
from django import db
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from .. import engine

#: What a service that is down raises: PostgreSQL restarting or unreachable (through Django or
#: psycopg directly, a pool that cannot hand out a connection), Redis the same (the channel layer,
#: the cache, presence). Callers turn them into `unavailable()` and pages into a 503.
OUTAGES: tuple[type[BaseException], ...] = (
    db.OperationalError,
    db.InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    ConnectionError,
)


class ServiceError(Exception):
    """A refused request: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: Any) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return str(self.message)


class Conflict(ServiceError):
    """A compare-and-set found the table at another version: somebody else changed it first."""

    def __init__(self) -> None:
        super().__init__("conflict", _("La mesa acaba de cambiar. Inténtalo otra vez."))


# Player-facing messages for the engine's refusal codes (the engine speaks English and has no
# Django; here they become translatable Spanish-first text).
ENGINE_MESSAGES: dict[str, Any] = {
    "not_your_turn": _("No es tu turno."),
    "unknown_act": _("Esa acción no existe."),
    "bad_amount": _("Esa cantidad no vale aquí."),
    "game_over": _("La partida ya ha terminado."),
    "bad_cards": _("Esas cartas no valen para el descarte."),
    "malformed": _("Mensaje mal formado."),
    "no_raise_on_ordago": _("Con un órdago sobre la mesa solo cabe quiero o no quiero."),
}


def engine_error(exc: engine.IllegalAction) -> ServiceError:
    message = ENGINE_MESSAGES.get(exc.code, _("Esa jugada no está permitida ahora."))
    return ServiceError(exc.code, message)


class Unavailable(ServiceError):
    """PostgreSQL or Redis does not answer (a restart): the request could not be done, or not
    be confirmed; the table is sent again to everybody at it once the service is back. The socket gets `{"type": "error", "code": "unavailable"}` (docs/protocol.md)."""

    def __init__(self) -> None:
        super().__init__(
            "unavailable",
            _(
                "El servidor se está reconectando. En unos segundos la mesa se pondrá al día; "
                "si sigue siendo tu turno, vuelve a jugar."
            ),
        )


def no_table() -> ServiceError:
    return ServiceError("no_table", _("Esa mesa no existe."))


def not_seated() -> ServiceError:
    return ServiceError("not_seated", _("No estás sentado en esta mesa."))


class SeatsRefused(ServiceError):
    """Some players of a table set up for them cannot sit now (`tables.start_arranged`):
    `refused` maps each of their seats to its refusal; the first one is this error's own."""

    def __init__(self, refused: dict[int, ServiceError]) -> None:
        first = refused[min(refused)]
        super().__init__(first.code, first.message)
        self.refused = refused


@contextmanager
def unique_or(refusal: ServiceError) -> Iterator[None]:
    """A transaction whose rows a unique constraint guards: broken by a request that won a race
    (two clicks, two tabs), it means `refusal` and writes nothing."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError:
        raise refusal from None
