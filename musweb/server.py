"""daphne as the site runs it (`python -m musweb.server`, same options as `daphne`), with one
setting its command line lacks.

autobahn, under daphne, answers a WebSocket frame or message over daphne's size limit (1 MiB,
`--websocket_max_message_size`) by dropping the TCP connection: the client only sees a reset.
With autobahn's `failByDrop` off it closes the socket as RFC 6455 says, with code 1009 (message
too big); protocol errors get their close frame (1002) too.
"""

from __future__ import annotations

from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server


class SiteServer(Server):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # `run` builds the WebSocket factory, then calls `ready_callable` before the reactor
        # accepts the first connection (each connection copies the factory's options).
        ready = self.ready_callable

        def configure() -> None:
            self.ws_factory.setProtocolOptions(failByDrop=False)
            if ready is not None:
                ready()

        self.ready_callable = configure


class SiteCommandLine(CommandLineInterface):
    server_class = SiteServer


if __name__ == "__main__":
    SiteCommandLine.entrypoint()
