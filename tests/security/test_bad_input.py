"""Input that still broke the site (#13, 11): NUL characters in a path, query or form, a
WebSocket path that is no table, a frame over the size limit. Each gets a clean refusal: the
site's 400 page, a refused handshake, a close frame with a code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.test import Client
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from accounts.models import User
from accounts.sessions import session_cookie
from games import services, socket_codes
from tests.live import daphne_process

BAD_REQUEST = "Esa petición no se entiende"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/ranking/?q=%00",
        "/partidas/?jugador=%00",
        "/jugadores/a%00b/",
        "/mesas/invitacion/%00/",
        "/ranking/?%00=1",
        "/jugadores/a%00b",  # without its slash, before CommonMiddleware's redirect
    ],
)
def test_a_nul_in_the_path_or_query_gets_the_sites_400_page(url: str) -> None:
    response = Client(raise_request_exception=False).get(url)
    assert response.status_code == 400
    assert BAD_REQUEST in response.content.decode()


@pytest.mark.django_db
def test_a_nul_in_form_data_gets_the_400_page_and_changes_nothing(
    make_user: Callable[..., User],
) -> None:
    response = Client(raise_request_exception=False).post(
        "/cuentas/entrar/", {"username": "pilar\x00", "password": "x"}
    )
    assert response.status_code == 400
    assert BAD_REQUEST in response.content.decode()
    player = make_user("pilar")
    client = Client(raise_request_exception=False)
    client.force_login(player, backend="accounts.backends.ActiveAccountBackend")
    refused = client.post("/mesas/nueva/", {"mode": "4-reyes\x00"})
    assert refused.status_code == 400
    assert services.live_seat_of(player) is None


@pytest.mark.django_db
def test_requests_without_nul_are_untouched() -> None:
    assert Client().get("/ranking/?q=pepe").status_code == 200


# --------------------------------------------------------------------------------------------
# Against a real daphne, as `make run` starts it.
# --------------------------------------------------------------------------------------------
@pytest.fixture
def site(transactional_db: None) -> Iterator[str]:
    with daphne_process() as url:
        yield url


def ws_url(site: str, path: str) -> str:
    return site.replace("http://", "ws://") + path


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/ws/mesas/-1/", "/ws/otra-cosa/"])
def test_a_websocket_path_that_is_no_table_is_refused_not_a_server_error(
    site: str, path: str
) -> None:
    # Not a 500: the socket opens and is closed at once with a code the browser can read.
    with (
        connect(ws_url(site, path), origin=site, open_timeout=10) as sock,
        pytest.raises(ConnectionClosed) as closed,
    ):
        sock.recv(timeout=10)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == socket_codes.CLOSE_NOT_FOUND


@pytest.mark.slow
def test_a_frame_over_the_size_limit_gets_a_close_frame_1009_not_a_reset(
    site: str, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar")
    table = services.create_table(player, "4-reyes")
    with connect(
        ws_url(site, f"/ws/mesas/{table.pk}/"),
        origin=site,
        additional_headers={"Cookie": session_cookie(player)},
        compression=None,
        open_timeout=10,
    ) as socket:
        assert '"state"' in socket.recv(timeout=10)
        socket.recv(timeout=10)  # chat history
        with pytest.raises(ConnectionClosed) as closed:
            socket.send("x" * (1024 * 1024 + 1))
            while True:
                socket.recv(timeout=10)
    assert closed.value.rcvd is not None, "the connection was dropped without a close frame"
    assert closed.value.rcvd.code == 1009
