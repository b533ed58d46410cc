// Generated from games/socket_codes.py by scripts/socket_codes_js.py: do not edit.
// The close codes of the site's WebSockets (docs/protocol.md).
export const CLOSE_NOT_LOGGED_IN = 4401;
export const CLOSE_REFUSED = 4403;
export const CLOSE_NOT_FOUND = 4404;
export const CLOSE_PROTOCOL_ERRORS = 4400;
export const CLOSE_RATE_LIMITED = 4429;
export const CLOSE_TRY_AGAIN = 1013;
