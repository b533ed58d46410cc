"""The production topology (`make run-prod`, scripts/run_prod.py, docs/deploy.md): nginx in front
of two daphne processes for the sockets and one for the pages, a Celery worker and beat, DEBUG
off, started for each test. Everything goes through nginx's port, as a browser's would; the
sockets of one table land on both live processes, the pages on the pages' one, and the table
carries on when a live process is killed with SIGKILL."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from axes.models import AccessAttempt
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from accounts.models import User
from games.models import Connection, Seat, Table
from tests.factories import make_user, session_cookie, started_table
from tests.live import Topology, production_topology, wait_until
from tests.sockets import keep_going, leaked_cards

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]


@pytest.fixture
def site(transactional_db: None) -> Iterator[Topology]:
    """The topology for one test, stopped before the test database is flushed (its processes
    query the tables every second: a flush under them deadlocks).

    Beats every second and a process given up after 3 s silent, so a killed one's sockets are
    dropped quickly; turns of 5 minutes, so no clock plays for a test that waits; a killed
    daphne started again after 4 s, once its players have reconnected to the other one.
    """
    with production_topology(
        MUS_PROCESS_BEAT_SECONDS="1",
        MUS_PROCESS_TIMEOUT_SECONDS="3",
        MUS_TURN_SECONDS="300",
        RESTART_SECONDS="4",
    ) as topology:
        yield topology


# ------------------------------------------------------------------------------------------------
# Sockets through nginx.
# ------------------------------------------------------------------------------------------------
def open_socket(site: Topology, table: Table, user: User) -> ClientConnection:
    ws = site.url.replace("http://", "ws://")
    return connect(
        f"{ws}/ws/mesas/{table.pk}/",
        additional_headers={"Cookie": session_cookie(user), "Origin": site.url},
        open_timeout=15,
    )


def next_state(sock: ClientConnection, seat: int, after: int = -1) -> dict[str, Any]:
    """The next `state` with a version above `after`; no message shows another player's cards."""
    while True:
        message = json.loads(sock.recv(timeout=15))
        assert not leaked_cards(message, seat), message
        if message["type"] == "state" and message["v"] > after:
            return message


class Game:
    """Four players' sockets and their latest states; one real move at a time."""

    def __init__(self, sockets: list[ClientConnection], states: list[dict[str, Any]]) -> None:
        self.sockets = sockets
        self.states = states
        self.discarded: set[int] = set()
        self.moves = 0

    def move(self) -> None:
        mover = next(i for i in range(4) if self.states[i]["you"]["legal"])
        state = self.states[mover]
        sent = state["v"]
        self.sockets[mover].send(
            json.dumps({"type": "action", "v": sent, **keep_going(state, self.discarded)})
        )
        for seat, sock in enumerate(self.sockets):
            self.states[seat] = next_state(sock, seat, after=sent)
            if self.states[seat]["phase"] == "descarte":
                self.discarded.add(self.states[seat]["hand_no"])
        self.moves += 1
        assert len({s["v"] for s in self.states}) == 1, "the four saw different versions"

    def until(self, done: Callable[[dict[str, Any]], bool], limit: int = 200) -> None:
        for _ in range(limit):
            if done(self.states[0]):
                return
            self.move()
        raise AssertionError(f"not reached in {limit} moves: {self.states[0]['phase']}")


def connections(table: Table) -> list[int]:
    return list(table.seats.order_by("seat").values_list("connections", flat=True))


def pid_of(process: str, pids: dict[int, int]) -> int:
    """The pid of the daphne process a `Connection.process` names (host-pid-token)."""
    return next(pid for pid in pids.values() if f"-{pid}-" in process)


def process_of(table: Table, user: User, pids: dict[int, int]) -> int:
    row = Connection.objects.filter(table=table, user=user).latest("opened_at")
    return pid_of(row.process, pids)


def answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=2)
        conn.request("GET", "/reglas/")
        return conn.getresponse().status == 200
    except OSError:
        return False


# ------------------------------------------------------------------------------------------------
# The tests.
# ------------------------------------------------------------------------------------------------
def test_a_table_played_through_nginx_carries_on_when_a_daphne_is_killed(
    site: Topology, four_players: list[User]
) -> None:
    table = started_table(four_players)
    sockets = [open_socket(site, table, player) for player in four_players]
    game = Game(sockets, [next_state(sock, seat) for seat, sock in enumerate(sockets)])
    wait_until(lambda: Connection.objects.filter(table=table).count() == 4)
    pids = site.daphne_pids()
    assert len(pids) == 2
    on = [process_of(table, player, pids) for player in four_players]
    # nginx spread the table's four sockets over both processes (least_conn: two each).
    assert sorted(on.count(pid) for pid in pids.values()) == [2, 2]

    # Mus, the four discards (each seen by all four across the two processes), then the lances.
    game.until(lambda s: s["phase"] == "lance")
    before = [dict(s) for s in game.states]
    killed = on[0]
    port = next(p for p, pid in pids.items() if pid == killed)
    survivor = next(pid for pid in pids.values() if pid != killed)
    os.kill(killed, signal.SIGKILL)

    # The killed process's sockets are closed by nginx at once; the others stay open.
    dead = [seat for seat in range(4) if on[seat] == killed]
    for seat in dead:
        with pytest.raises(ConnectionClosed):
            while True:
                message = json.loads(sockets[seat].recv(timeout=10))
                assert not leaked_cards(message, seat), message
    # Their players reconnect through nginx, which sends them to the survivor, and find the
    # hand as they left it.
    for seat in dead:
        sockets[seat] = open_socket(site, table, four_players[seat])
        game.states[seat] = next_state(sockets[seat], seat)
        assert game.states[seat]["v"] == before[seat]["v"]
        assert game.states[seat]["you"]["cards"] == before[seat]["you"]["cards"]
        assert process_of(table, four_players[seat], pids) == survivor
    # The worker's sweep drops the dead process's rows; every seat still has its player.
    wait_until(
        lambda: not Connection.objects.filter(process__contains=f"-{killed}-").exists(),
        timeout=20,
        message="the killed process's sockets were not dropped",
    )
    # (each seat is counted again right after its rows go)
    wait_until(lambda: connections(table) == [1, 1, 1, 1], message="seats not counted again")
    assert not Seat.objects.filter(table=table, reconnect_deadline__isnull=False).exists()

    # The rest of the hand, the recuento, and into the next hand, all on the survivor.
    game.until(lambda s: s["phase"] == "recuento")
    game.until(lambda s: s["hand_no"] == 2 and s["phase"] == "lance")
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING

    # run_prod.py starts the killed daphne again; nginx sends it sockets again once it answers
    # (it holds none: least_conn), here a second tab of the first player.
    wait_until(
        lambda: site.daphne_pids().get(port) not in (None, killed),
        timeout=30,
        message="the killed daphne was not started again",
    )
    restarted = site.daphne_pids()[port]
    wait_until(lambda: answers(f"http://127.0.0.1:{port}"), timeout=60)
    landed = None
    for _ in range(30):
        extra = open_socket(site, table, four_players[0])
        next_state(extra, 0)
        landed = process_of(table, four_players[0], site.daphne_pids())
        if landed == restarted:
            break
        extra.close()
        time.sleep(1)  # nginx retries a failed server after its fail_timeout
    assert landed == restarted
    extra.close()
    for sock in sockets:
        sock.close()


def test_the_log_in_limits_count_the_address_nginx_saw_not_one_the_client_claims(
    site: Topology,
) -> None:
    """daphne takes the client's address from nginx's X-Forwarded-For (and nginx replaces
    whatever the client put there): without it every player would share nginx's address and
    ten failed log-ins anywhere would lock everybody out (AXES_IP_FAILURE_LIMIT)."""
    make_user("marta")
    parts = urlsplit(site.url)

    def request(method: str, path: str, body: str = "", **headers: str) -> Any:
        # From 127.0.0.2: an address that is neither nginx's (127.0.0.1) nor the claimed one.
        conn = http.client.HTTPConnection(
            parts.hostname or "", parts.port, timeout=10, source_address=("127.0.0.2", 0)
        )
        conn.request(method, path, body=body, headers=headers)
        return conn.getresponse()

    page = request("GET", "/cuentas/entrar/")
    cookie = next(
        c.split(";")[0] for c in page.msg.get_all("Set-Cookie") if c.startswith("csrftoken=")
    )
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
    assert token is not None
    response = request(
        "POST",
        "/cuentas/entrar/",
        f"csrfmiddlewaretoken={token.group(1)}&username=marta&password=mal",
        Cookie=cookie,
        **{"Content-Type": "application/x-www-form-urlencoded"},
        **{"X-Forwarded-For": "203.0.113.9"},
    )
    assert response.status == 200  # the form again, with its error
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["127.0.0.2"]


def test_nginx_serves_the_static_files_from_disk_hashed_names_cached_for_a_year(
    site: Topology,
) -> None:
    parts = urlsplit(site.url)

    def get(path: str, **headers: str) -> Any:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        return response

    page = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    page.request("GET", "/reglas/")
    html = page.getresponse().read().decode()
    hashed = re.search(r"/static/css/site\.[0-9a-f]{12}\.css", html)
    assert hashed is not None  # DEBUG off: the manifest's names
    css = get(hashed.group(0), **{"Accept-Encoding": "gzip"})
    assert css.status == 200
    assert css.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    assert css.getheader("Content-Encoding") == "gzip"  # collectstatic's .gz, as it is
    plain = get("/static/css/site.css")
    assert plain.status == 200
    assert plain.getheader("Cache-Control") == "no-cache"
    # Pages are compressed by nginx (daphne does not).
    rules = get("/reglas/", **{"Accept-Encoding": "gzip"})
    assert rules.getheader("Content-Encoding") == "gzip"
    assert get("/static/nada.css").status == 404


def test_pages_go_to_the_pages_process_and_sockets_to_the_live_ones(
    site: Topology, four_players: list[User]
) -> None:
    live, pages = site.daphne_pids(), site.daphne_pids("pages")
    assert len(live) == 2 and len(pages) == 1
    table = started_table(four_players)
    sock = open_socket(site, table, four_players[0])
    next_state(sock, 0)
    # The socket's process is a live one (its Connection row names it)...
    assert process_of(table, four_players[0], live) in live.values()
    sock.close()
    parts = urlsplit(site.url)
    for path in ("/reglas/", "/cuentas/entrar/"):
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        conn.request("GET", path)
        assert conn.getresponse().status == 200
    # ...and nginx's log says which process answered each request ($upstream_addr; written
    # every 2 s, a socket's line when it closes).
    served: dict[str, int] = {}

    def logged() -> bool:
        for line in (site.run_dir / "nginx" / "access.log").read_text().splitlines():
            found = re.search(r'"(?:GET|POST) (\S+) [^"]*" \d+ \d+ \S+ "[^"]*:(\d+)"', line)
            if found:
                served[found.group(1)] = int(found.group(2))
        return {"/reglas/", "/cuentas/entrar/", f"/ws/mesas/{table.pk}/"} <= served.keys()

    wait_until(logged, timeout=15, message="nginx did not log the requests")
    assert served["/reglas/"] in pages and served["/cuentas/entrar/"] in pages
    assert served[f"/ws/mesas/{table.pk}/"] in live


def test_the_pages_process_and_the_heavy_worker_run_below_the_live_game(site: Topology) -> None:
    """Niced, and where the kernel groups processes by session (autogroup), their group too
    (there a process's own nice value only ranks it within its session); batch tasks, which
    never preempt another when they wake."""

    def niceness(pid: int) -> tuple[int, str | None]:
        group = Path(f"/proc/{pid}/autogroup")
        return os.getpriority(os.PRIO_PROCESS, pid), (
            group.read_text().split()[-1] if group.exists() else None
        )

    [pages] = site.daphne_pids("pages").values()
    heavy = int((site.run_dir / "celery-heavy.pid").read_text())
    for pid in site.daphne_pids().values():
        assert niceness(pid)[0] == 0
        assert os.sched_getscheduler(pid) == os.SCHED_OTHER
    for pid, expected in ((pages, 5), (heavy, 10)):
        own, group = niceness(pid)
        assert own == expected
        assert group in (None, str(expected))
        assert os.sched_getscheduler(pid) == os.SCHED_BATCH  # never preempts on waking


def test_the_health_check_answers_through_nginx(site: Topology) -> None:
    wait_until(lambda: _health(site) == 200, timeout=30, message="/salud/ is not 200")


def _health(site: Topology) -> int:
    parts = urlsplit(site.url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    conn.request("GET", "/salud/")
    response = conn.getresponse()
    response.read()
    return response.status
