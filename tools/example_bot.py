"""An example bot for the bot API (docs/bot-api.md): it plays random legal moves.

    python -m tools.example_bot --url https://barajamos.example --token mus_… [--table ID]
        [--seat N] [--invitation TOKEN] [--quick [MODE]] [--seed N]

It asks who it is (and whether it already sits somewhere), sits at the table given (or at the
first public table that admits bots; with `--quick`, waits in the bots' quick play until it is
seated), opens the table's WebSocket with its token and plays whatever `legal` offers until the
game is over, coming back after a dropped connection as a browser does. It prints one line per game event it cares about and exits 0 once the game is
`terminada` (1 if it was `cancelada`, 2 if it never found a table).

Only the standard library and `websockets`: copy this file and make `choose` clever.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

#: How long to wait before looking for a table again, and at most between reconnections.
POLL_SECONDS = 5.0
#: How often to ask how the wait in quick play goes: well within the time the queue holds a
#: place without asking (`hold_seconds`), and quick enough to reach the table in time once seated.
QUICK_POLL_SECONDS = 2.0


class Api:
    """The bot API's HTTP side: JSON in and out, the token in every request."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            answer = json.loads(exc.read() or b"{}")
            raise RuntimeError(
                f"{exc.code} {answer.get('error')}: {answer.get('message')}"
            ) from None


def choose(legal: list[dict[str, Any]], cards: list[str], rng: random.Random) -> dict[str, Any]:
    """A random one of the legal actions, with its amount or cards filled in."""
    option = rng.choice(legal)
    act = option["act"]
    if act == "envido":
        return {"act": act, "to": rng.randint(option["min"], min(option["max"], option["min"] + 5))}
    if act == "descarte":
        count = rng.randint(option["min"], option["max"])
        return {"act": act, "cards": rng.sample(cards, count)}
    return {"act": act}


def find_table(api: Api, table: int | None, seat: int | None, invitation: str | None) -> int:
    """The table this bot plays at: where it sits already, the one asked for, or the first
    public table that admits bots; waits for one to appear."""
    me = api.call("GET", "/api/bot/cuenta/")
    if me["table"] is not None:
        return int(me["table"]["id"])
    while True:
        if table is None:
            tables = api.call("GET", "/api/bot/mesas/")
            if not tables:
                print("no table admits bots yet; looking again shortly", flush=True)
                time.sleep(POLL_SECONDS)
                continue
            wanted = int(tables[0]["id"])
        else:
            wanted = table
        body: dict[str, Any] = {}
        if seat is not None:
            body["seat"] = seat
        if invitation:
            body["invitation"] = invitation
        sat = api.call("POST", f"/api/bot/mesas/{wanted}/sentarse/", body)
        print(f"sitting at table {sat['id']}, seat {sat['seat']}", flush=True)
        return wanted


def quick_table(api: Api, mode: str) -> int:
    """The table quick play seats this bot at (with three other bots): it joins the queue and
    asks until it has one, joining again if the queue let it go."""
    me = api.call("GET", "/api/bot/cuenta/")
    if me["table"] is not None:
        return int(me["table"]["id"])
    answer = api.call("POST", "/api/bot/cola/entrar/", {"mode": mode})
    print(f"waiting in quick play ({mode})", flush=True)
    try:
        while answer["table"] is None:
            time.sleep(QUICK_POLL_SECONDS)
            answer = api.call("GET", "/api/bot/cola/")
            if not answer["queued"] and answer["table"] is None:
                answer = api.call("POST", "/api/bot/cola/entrar/", {"mode": mode})
    except KeyboardInterrupt:
        api.call("POST", "/api/bot/cola/salir/")  # (leaving once seated would be a dodge)
        raise
    print(f"quick play: table {answer['table']['id']}, seat {answer['table']['seat']}", flush=True)
    return int(answer["table"]["id"])


async def play(url: str, token: str, table_id: int, rng: random.Random) -> dict[str, Any]:
    """Play at the table until its game is over: the last `state`."""
    ws_url = url.rstrip("/").replace("http://", "ws://").replace("https://", "wss://")
    ws_url += f"/ws/mesas/{table_id}/"
    headers = {"Authorization": f"Bearer {token}"}
    wait = 0.5
    while True:
        try:
            async with connect(ws_url, additional_headers=headers, open_timeout=30) as ws:
                wait = 0.5
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "error":
                        print(f"refused: {message['code']}", flush=True)
                        continue
                    if message["type"] != "state":
                        continue
                    if message["phase"] in ("terminada", "cancelada"):
                        return dict(message)
                    you = message.get("you") or {}
                    if you.get("legal"):
                        action = choose(you["legal"], you["cards"], rng)
                        await ws.send(json.dumps({"type": "action", "v": message["v"], **action}))
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            if code is not None and 4400 <= code < 4500:
                raise RuntimeError(f"the site closed the socket: {code}") from None
        except OSError:
            pass
        print(f"connection lost; back in {wait:.1f} s", flush=True)
        await asyncio.sleep(wait)
        wait = min(POLL_SECONDS, wait * 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--table", type=int)
    parser.add_argument("--seat", type=int)
    parser.add_argument("--invitation")
    parser.add_argument("--quick", nargs="?", const="4-reyes", metavar="MODE")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args(argv)
    api = Api(args.url, args.token)
    try:
        if args.quick:
            table_id = quick_table(api, args.quick)
        else:
            table_id = find_table(api, args.table, args.seat, args.invitation)
    except RuntimeError as exc:
        print(exc, flush=True)
        return 2
    final = asyncio.run(play(args.url, args.token, table_id, random.Random(args.seed)))
    print(
        f"game {final['phase']}: scores {final['scores']}, winner team {final['winner']}",
        flush=True,
    )
    return 0 if final["phase"] == "terminada" else 1


if __name__ == "__main__":
    sys.exit(main())
