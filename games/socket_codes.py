"""Close codes of the table WebSocket.

One definition for the consumer, which closes sockets, and for the clients (docs/protocol.md
lists them).
"""

from accounts import sockets

#: Refused: no logged-in session; or closed: the session ended (a log-out, a password change or
#: reset) since the socket opened.
CLOSE_NOT_LOGGED_IN = 4401
#: Refused: an unknown table, a private one without the invitation, or a banned player (whose
#: open sockets are closed with it too, at every table).
CLOSE_REFUSED = 4403
#: Refused: no WebSocket at that path (`/ws/mesas/-1/`, `/ws/otra-cosa/`; for a bot's token,
#: any socket but a table's).
CLOSE_NOT_FOUND = 4404
#: Closed: a bot's socket broke the protocol `BOT_API_PROTOCOL_ERRORS` times (malformed frames,
#: unknown message types or acts, actions over its rate); docs/bot-api.md.
CLOSE_PROTOCOL_ERRORS = 4400
#: Refused: a bot's token opened more sockets than `BOT_API_CONNECTIONS_PER_MINUTE` in a minute.
CLOSE_RATE_LIMITED = 4429

#: Closed, or refused, because PostgreSQL or Redis does not answer (a restart): connect again
#: in a moment (RFC 6455's «try again later»; the table page says «Reconectando…» meanwhile).
CLOSE_TRY_AGAIN = 1013

#: The close for each reason a socket's session stopped signing it in
#: (`accounts.sockets.session_verdict`).
CLOSE_FOR_VERDICT = {sockets.SIGNED_OUT: CLOSE_NOT_LOGGED_IN, sockets.BANNED: CLOSE_REFUSED}


def browser_module() -> str:
    """The close codes as the native module the pages' scripts import
    (``static/js/socket_codes.js``), written by ``scripts/socket_codes_js.py`` and checked
    against this module by ``tests/site/test_socket_codes_js.py``: the browser never spells a
    close code itself."""
    lines = [
        "// Generated from games/socket_codes.py by scripts/socket_codes_js.py: do not edit.",
        "// The close codes of the site's WebSockets (docs/protocol.md).",
    ]
    for name, value in globals().items():
        if name.startswith("CLOSE_") and isinstance(value, int):
            lines.append(f"export const {name} = {value};")
    return "\n".join(lines) + "\n"
