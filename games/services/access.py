"""Who may do what at a table: one policy for every page, list, socket and action.

**Seeing.** Public tables are open to everybody. A private table (practice included) is open to
staff, to its host, to whoever has sat at it, and to whoever holds its invitation (kept in their
session once they followed the link). `visible_to` says it as a query, for the lists (the
history, a profile's latest games, the lobby); `can_view` says it of one table, for its page and
its socket.
Both are made of the same four facts (`tests/games/test_access.py` checks that they agree).

**Acting.** Every action names who does it (`acting_user`): a player, or the site itself
(`SYSTEM`: quick play seating four, a rematch all four asked for, a ban closing a table), which
never borrows a host's identity. The host's changes before the start (start, kick, close, bots)
are theirs or the site's: `check_manages`. Who may sit at a table: `check_may_sit_at` and
`check_standing`; an account that may play at all: `User.may_play` (accounts' rule).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, MutableMapping
from typing import Any, Final

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .. import hooks
from ..models import Seat, Table
from . import abandonment, kicks
from .errors import ServiceError
from .storage import seat_number

Session = MutableMapping[str, Any]

_PREFIX = "invite-"


class System:
    """The site acting on its own (a sweep, quick play, a rematch, a moderator's measure): no
    player's identity, and no host's rights borrowed."""

    pk = None
    is_authenticated = False
    is_staff = False

    def __repr__(self) -> str:
        return "SYSTEM"


SYSTEM: Final = System()

#: Who performs an action: a player, or the site.
Actor = User | System


def _key(table_id: int) -> str:
    return f"{_PREFIX}{table_id}"


def remember_invitation(session: Session, table: Table) -> None:
    """The session's owner followed `table`'s invitation (or opened the table)."""
    session[_key(table.pk)] = table.invite_token


def invitation(session: Session | None, table_id: int) -> str | None:
    """The invitation token the session holds for that table, if any."""
    return None if session is None else session.get(_key(table_id))


def invitations_held(session: Session | None) -> dict[int, str]:
    """Every invitation the session holds, by table id (for the lists: `visible_to`)."""
    if session is None:
        return {}
    held = {}
    for key, token in session.items():
        if key.startswith(_PREFIX) and key[len(_PREFIX) :].isdigit() and token:
            held[int(key[len(_PREFIX) :])] = str(token)
    return held


def _signed_in(user: Any) -> bool:
    return user is not None and bool(getattr(user, "is_authenticated", False))


def visible_to(user: Any, held: Mapping[int, str] | None = None) -> Q:
    """The tables `user` (holding the invitations `held`, table id -> token) may see: a filter
    on `Table` for every list, the same rule as `can_view`."""
    if _signed_in(user) and user.is_staff:
        return Q()
    rule = Q(private=False)
    if _signed_in(user):
        rule |= Q(host_id=user.pk)
        rule |= Q(Exists(Seat.objects.filter(table_id=OuterRef("pk"), user_id=user.pk)))
    for table_id, token in (held or {}).items():
        rule |= Q(pk=table_id, invite_token=token)
    return rule


def can_view(table: Table, user: Any, token: str | None = None) -> bool:
    """May `user` (holding `token`) see `table`: `visible_to`'s rule, for one table in hand."""
    if not table.private:
        return True
    if _signed_in(user) and (
        user.is_staff or table.host_id == user.pk or seat_number(table, user.pk) is not None
    ):
        return True
    return bool(token) and secrets.compare_digest(str(token), table.invite_token)


def can_view_in(table: Table, user: Any, session: Session | None) -> bool:
    """`can_view` for a request's or a socket's session (read only when the player needs an
    invitation: a seated player's socket costs no session query)."""
    return can_view(table, user) or can_view(table, user, invitation(session, table.pk))


def manages(actor: Actor, table: Table) -> bool:
    """The site, or the table's host: who changes a table before its start."""
    return isinstance(actor, System) or table.host_id == actor.pk


def check_manages(actor: Actor, table: Table, refusal: Any) -> None:
    """Refuse with `not_host` (saying `refusal`) an actor who does not manage `table`."""
    if not manages(actor, table):
        raise ServiceError("not_host", refusal)


def no_bot_accounts() -> ServiceError:
    return ServiceError(
        "no_bot_accounts",
        _("Esta mesa no admite bots de jugadores: su anfitrión no lo ha permitido."),
    )


def check_standing(user: User, *, higher: bool = True) -> None:
    """`user` is not suspended from sitting (abandonment), nor held by a higher app (`higher`:
    a tournament they checked in for); the first refusal is raised."""
    abandonment.check_may_sit(user)
    if higher:
        hooks.check_may_sit(user)


def check_may_sit_at(user: User, table: Table, token: str | None = None) -> None:
    """May `user` (holding `token`) take a seat at `table` (locked): they can see it, the host
    did not take them off it, a player's bot account only where the host admits them, and only
    before the start. Their own standing is `check_standing`'s; a rematch's reserved seats are
    the table's business (`tables`)."""
    if not can_view(table, user, token):
        raise ServiceError("private", _("Esta mesa es privada: necesitas la invitación."))
    kicks.refuse_if_kicked(table, user)
    if user.is_bot_account and not table.bots_allowed:
        raise no_bot_accounts()
    if table.status != Table.Status.OPEN:
        raise ServiceError("started", _("La partida ya ha empezado o la mesa está cerrada."))
