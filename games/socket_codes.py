"""Close codes of the table WebSocket and the group message that closes a player's sockets.

One definition for the consumer, which closes sockets, and for whoever asks it to (moderation,
on a ban). docs/protocol.md lists them for clients.
"""

#: Refused: no logged-in session.
CLOSE_NOT_LOGGED_IN = 4401
#: Refused: an unknown table, a private one without the invitation, or a banned player (whose
#: open sockets are closed with it too).
CLOSE_REFUSED = 4403

#: Sent to a table's group to close one player's sockets there with `CLOSE_REFUSED`;
#: carries `user_id`. The consumer handles it as `user_banned`.
USER_BANNED = "user.banned"
