"""Staff never see a live game's cards in the admin (they may be playing); once it ends they do.
A superuser may look at a live game with a reason, which goes to the audit log."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import ChatMessage, Table
from moderation.models import ModerationAction, Report
from tests.factories import ended_table, login, staff_with, started_table
from tests.sockets import CARD_RE

pytestmark = pytest.mark.django_db

HREF = re.compile(r'href="(/admin/[^"?#]*)"')
SKIPPED = ("/admin/logout/", "/admin/r/", "/delete/", "/history/")
VIEW_ALL = (
    "view_table",
    "view_chatmessage",
    "view_user",
    "view_report",
    "view_moderationaction",
    "change_table",
)


def admin_pages(client: Client, extra: list[str]) -> dict[str, str]:
    """Every admin page reachable from the index by links (without query strings), and
    `extra`: url → HTML."""
    seen: dict[str, str] = {}
    queue = deque(["/admin/", *extra])
    while queue and len(seen) < 200:
        url = queue.popleft()
        if url in seen or any(part in url for part in SKIPPED):
            continue
        response = client.get(url)
        assert response.status_code in (200, 302, 403, 404), url
        seen[url] = response.content.decode() if response.status_code == 200 else ""
        queue.extend(HREF.findall(seen[url]))
    return seen


@pytest.fixture
def live(four_players: list[User]) -> Table:
    table = started_table(four_players)
    ChatMessage.objects.create(table=table, user=four_players[1], seat=1, text="¿Vamos?")
    return table


@pytest.fixture
def staff_clients(db: None, moderator: User) -> list[Client]:
    return [login(staff_with(*VIEW_ALL)), login(moderator)]


def without_random_text(html: str) -> str:
    """A player's page shows the start of their password's salt and hash («salto: 1c****»), and
    a table's page its invitation token (URL-safe base64: «…-7o-…»); either may look like a card
    code, and neither is one."""
    html = re.sub(r"<strong>[^<]*</strong>: <bdi>[^<]*\*+</bdi>", "", html)
    for token in Table.objects.values_list("invite_token", flat=True):
        html = html.replace(token, "")
    return html


def test_no_admin_page_shows_a_card_of_a_live_game_to_any_staff_member(
    live: Table,
    four_players: list[User],
    staff_clients: list[Client],
    make_user: Callable[..., User],
) -> None:
    others = [make_user(f"otro{i}") for i in range(4)]
    over = ended_table(others)
    Report.objects.create(reporter=others[0], reported=others[1], table=over, reason="trampas")
    game = services.game_of(live)
    assert all(len(game.hand_codes(seat)) == 4 for seat in range(4))
    table_url = reverse("admin:games_table_change", args=[live.pk])
    extra = [
        table_url,
        reverse("admin:games_table_change", args=[over.pk]),
        reverse("admin:games_chatmessage_changelist") + f"?mesa={live.pk}",
        reverse("admin:games_table_reveal", args=[live.pk]),
        *(reverse("admin:accounts_user_change", args=[p.pk]) for p in four_players),
    ]
    for client in staff_clients:
        pages = admin_pages(client, extra)
        assert len(pages) > 20 and pages[table_url]
        ended_page = reverse("admin:games_table_change", args=[over.pk])
        assert CARD_RE.findall(pages[ended_page])  # an ended game's record is there
        for url, html in pages.items():
            if url != ended_page:
                assert not CARD_RE.findall(without_random_text(html)), url
                assert "&quot;deck&quot;" not in html and "&quot;format&quot;" not in html, url
        assert "Oculto mientras se juega la partida" in pages[table_url]
        assert "¿Vamos?" in pages[table_url]  # the chat is still there
        assert reverse("game_record", args=[live.pk]) not in pages[table_url]
        assert client.get(reverse("game_record", args=[live.pk])).status_code == 404


def test_once_the_game_has_ended_staff_see_its_record(
    live: Table, staff_clients: list[Client]
) -> None:
    services.cancel_game(live.pk, Table.CancelReason.MODERATOR)
    url = reverse("admin:games_table_change", args=[live.pk])
    for client in staff_clients:
        page = client.get(url).content.decode()
        assert "&quot;format&quot;: &quot;mus-record/1&quot;" in page
        assert CARD_RE.findall(page)
        assert reverse("game_record", args=[live.pk]) in page
        assert "Ver las cartas" not in page  # nothing left to reveal


def test_a_superuser_sees_a_live_games_cards_with_a_reason_in_the_audit_log(
    live: Table, admin_client: Client, moderator: User
) -> None:
    change = admin_client.get(reverse("admin:games_table_change", args=[live.pk]))
    url = reverse("admin:games_table_reveal", args=[live.pk])
    assert url in change.content.decode()
    form = admin_client.get(url)
    assert form.status_code == 200 and 'name="reason"' in form.content.decode()
    assert not CARD_RE.findall(form.content.decode())
    # No reason, no cards and nothing logged.
    refused = admin_client.post(url, {"confirmar": "1", "reason": "  "})
    assert refused.status_code == 200 and not CARD_RE.findall(refused.content.decode())
    assert not ModerationAction.objects.exists()
    shown = admin_client.post(url, {"confirmar": "1", "reason": "Denuncia de señas en directo"})
    assert shown.status_code == 200
    page = shown.content.decode()
    game = services.game_of(live)
    for seat in range(4):
        assert all(code in page for code in game.hand_codes(seat))
    assert "&quot;deck&quot;" in page  # the record, the pile's order included
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.moderator, entry.table_id, entry.reason) == (
        "ver_cartas",
        moderator,
        live.pk,
        "Denuncia de señas en directo",
    )
    assert entry.details == {"version": live.version, "hand": 1}


def test_a_plain_staff_member_cannot_see_a_live_games_cards(live: Table) -> None:
    client = login(staff_with(*VIEW_ALL))
    url = reverse("admin:games_table_reveal", args=[live.pk])
    change = client.get(reverse("admin:games_table_change", args=[live.pk])).content.decode()
    assert url not in change
    assert client.get(url).status_code == 403
    response = client.post(url, {"confirmar": "1", "reason": "Quiero mirar"})
    assert response.status_code == 403 and not CARD_RE.findall(response.content.decode())
    assert not ModerationAction.objects.exists()


def test_a_superuser_playing_at_the_table_cannot_see_the_others_cards(
    make_user: Callable[..., User],
) -> None:
    boss = make_user("jefa", is_staff=True, is_superuser=True)
    table = started_table([boss, *(make_user(f"j{i}") for i in range(3))])
    client = login(boss)
    url = reverse("admin:games_table_reveal", args=[table.pk])
    response = client.post(url, {"confirmar": "1", "reason": "Curiosidad"}, follow=True)
    assert "en la que juegas" in response.content.decode()
    assert not ModerationAction.objects.exists()
