"""daphne as the site runs it (`python -m musweb.server`, same options as `daphne`), with two
things its command line lacks.

autobahn, under daphne, answers a WebSocket frame or message over daphne's size limit (1 MiB,
`--websocket_max_message_size`) by dropping the TCP connection: the client only sees a reset.
With autobahn's `failByDrop` off it closes the socket as RFC 6455 says, with code 1009 (message
too big); protocol errors get their close frame (1002) too.

daphne pings a socket that has sent nothing for `--ping-interval` (20 s), from a check of every
connection every 2 s. Sockets that only listen (the lobby's) and opened together (a page of
viewers, a restart's reconnections) were then all pinged in the same check, and their pongs came
back together: with 1,000 lobby sockets and no lobby change at all, the live tables' p99 went
from 88–123 ms to 400–523 ms, and back to 41–52 ms with pings every 600 s (docs/performance.md).
Each socket's first ping now comes at a random point of the interval, so they stay spread, and
the check runs every second instead of every two (half as many pings in each).
"""

from __future__ import annotations

import random
import time
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet import reactor


class SpreadPingsProtocol(WebSocketProtocol):
    def onOpen(self) -> None:
        super().onOpen()
        self.last_ping = time.time() - random.uniform(0, self.server.ping_interval)


#: How often every connection's timeouts and pings are checked (daphne: every 2 s).
CHECK_SECONDS = 1.0


class SiteServer(Server):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # `run` builds the WebSocket factory, then calls `ready_callable` before the reactor
        # accepts the first connection (each connection copies the factory's options).
        ready = self.ready_callable

        def configure() -> None:
            self.ws_factory.setProtocolOptions(failByDrop=False)
            self.ws_factory.protocol = SpreadPingsProtocol
            if ready is not None:
                ready()

        self.ready_callable = configure

    def timeout_checker(self) -> None:
        for protocol in list(self.connections):
            protocol.check_timeouts()
        reactor.callLater(CHECK_SECONDS, self.timeout_checker)


class SiteCommandLine(CommandLineInterface):
    server_class = SiteServer


if __name__ == "__main__":
    SiteCommandLine.entrypoint()
