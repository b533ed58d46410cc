"""Close codes of the table socket (docs/protocol.md): the client stops reconnecting on these."""

#: Not logged in.
CLOSE_LOGIN_REQUIRED = 4401
#: Not allowed here: no such table, a private table without the invitation, or banned.
CLOSE_REFUSED = 4403
