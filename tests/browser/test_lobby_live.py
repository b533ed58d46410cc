"""The lobby updates itself: a table created in one browser appears in another without reloading
(pushed over /ws/sala/ by beat's lobby task), and a visitor who may not sit sees «libre»."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import services
from games.models import Seat, Table
from games.services import lobby, presence
from tests.factories import PASSWORD, establish, make_user, started_table
from tests.live import celery_worker, screenshot

from .support import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000


def between_tags(html: str) -> str:
    """HTML without the spaces between tags (the page's indentation)."""
    return re.sub(r">\s+<", "><", html).strip()


def sign_up(browser: Any, base_url: str, username: str, viewport: dict[str, int]) -> Any:
    """A new visitor creates an account through the form and lands on the lobby."""
    page = browser.new_context(viewport=viewport, locale="es-ES").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.goto(f"{base_url}/cuentas/registro/")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password1"]', PASSWORD)
    page.fill('input[name="password2"]', PASSWORD)
    page.locator('form[action="/cuentas/registro/"] button[type="submit"]').click()
    page.wait_for_url(f"{base_url}/", timeout=TIMEOUT)
    assert username in page.inner_text(".site-header")
    return page


def test_a_new_table_appears_in_the_lobby_without_reloading(
    live_site: str, browser: Any, orm: Any
) -> None:
    with celery_worker(beat=True, MUS_LOBBY_SECONDS="1"):
        play_the_scene(live_site, browser, orm)


def play_the_scene(live_site: str, browser: Any, orm: Any) -> None:
    visitor = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    visitor_errors: list[str] = []
    visitor.on("pageerror", lambda exc: visitor_errors.append(str(exc)))
    visitor.goto(f"{live_site}/")
    host = sign_up(browser, live_site, "lucia", DESKTOP)
    guest = sign_up(browser, live_site, "mateo", PHONE)

    # The guest watches the lobby; a marker on `window` proves the page is never reloaded.
    guest.evaluate("() => { window.sameLobbyPage = true; }")
    assert guest.locator("li.table-card").count() == 0
    screenshot(guest, "lobby-1-empty-phone")

    host.locator('form[action="/mesas/nueva/"] button[type=submit]').click()
    host.wait_for_url(f"{live_site}/mesas/*/", timeout=TIMEOUT)
    table_id = int(host.url.rstrip("/").rsplit("/", 1)[1])
    assert orm(lambda: Table.objects.get(pk=table_id).host.username) == "lucia"
    screenshot(host, "lobby-2-host-waiting")

    card = guest.locator(f'li.table-card[data-table="{table_id}"]')
    card.wait_for(timeout=TIMEOUT)  # pushed within a second or two
    assert guest.evaluate("() => window.sameLobbyPage === true")
    assert "lucia" in card.inner_text()
    screenshot(guest, "lobby-3-table-appeared-phone")

    # A visitor (in English) sees the same table, its seats free but no form to sit.
    seen = visitor.locator(f'li.table-card[data-table="{table_id}"]')
    seen.wait_for(timeout=TIMEOUT)
    assert seen.locator("button", has_text="Sit down").first.is_hidden()
    assert seen.locator(".seat-free", has_text="free").first.is_visible()

    card.locator("button", has_text="Sentarse").first.click()
    guest.wait_for_url(f"{live_site}/mesas/{table_id}/", timeout=TIMEOUT)
    assert "mateo" in guest.inner_text(".seats-big")

    # The visitor's card changes in place (an update without the lists, whose order is the same).
    visitor.locator(f'li.table-card[data-table="{table_id}"]', has_text="mateo").wait_for(
        timeout=TIMEOUT
    )
    assert visitor.locator("li.table-card").count() == 1

    # The card the visitor's script built from the pushed data is the card the page renders
    # itself (one template, games/_table_card.html, for both).
    built = visitor.locator(f'li.table-card[data-table="{table_id}"]').evaluate("e => e.outerHTML")
    served = visitor.context.request.get(f"{live_site}/", headers={"Accept-Language": "en"}).text()
    rendered = visitor.evaluate(
        """([html, id]) => {
            const page = document.createElement("template");
            page.innerHTML = html;
            const card = page.content.querySelector(`li.table-card[data-table="${id}"]`);
            card.querySelectorAll("[name=csrfmiddlewaretoken]").forEach((e) => e.remove());
            return card.outerHTML;
        }""",
        [served, table_id],
    )
    assert "mateo" in built and "Sit down" in built
    assert between_tags(built) == between_tags(rendered)

    # The host's waiting page is told over the table's socket (its poll is every 30 s, beyond
    # this wait): the guest shows up in a seat.
    host.locator(".seats-big .seat-name", has_text="mateo").wait_for(timeout=TIMEOUT)
    seated = orm(
        lambda: sorted(Table.objects.get(pk=table_id).seats.values_list("seat", flat=True))
    )
    assert seated == [0, 2]  # the first seat offered: pair A, the host's partner
    screenshot(host, "lobby-4-guest-seated-host")
    screenshot(guest, "lobby-5-guest-seated-phone")

    assert host.js_errors == [] and guest.js_errors == [] and visitor_errors == []


def test_every_kind_of_card_the_script_builds_is_the_card_the_page_renders(
    live_site: str, browser: Any, orm: Any
) -> None:
    """A game in play (score, free-seat-less, settled and provisional ratings) and a waiting table
    with a bot and free seats, in both languages: the cards the page's script builds from the
    whole lobby it gets on connecting are, tag for tag, the ones the page rendered."""

    def tables() -> None:
        playing = [make_user(f"juega{i}") for i in range(4)]
        establish(playing[:2])
        establish(playing[2:3], games=3)
        table = started_table(playing)
        # Seated by quick play (no host on its card), with somebody watching.
        Table.objects.filter(pk=table.pk).update(scores=[12, 7], quick=True)
        services.socket_opened(table.pk, make_user("mira").pk, "watching")
        host = make_user("espera")
        waiting = services.create_table(host, "8-reyes", rated=False)
        services.fill_with_bots(host, waiting.pk, "fuerte")
        services.leave_seat(Seat.objects.get(table=waiting, seat=1).user, waiting.pk)
        # Who is online, one with the characters a username may have that a link escapes or not.
        for user in [*playing, make_user("ana+b@c.es", display_name="Ana <b>")]:
            presence.touch(user.pk)
        lobby.publish()

    orm(tables)
    try:
        for locale, language in (("es-ES", "es"), ("en-GB", "en")):
            page = browser.new_context(viewport=DESKTOP, locale=locale).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, seen=errors: seen.append(str(exc)))
            served = page.context.request.get(
                f"{live_site}/", headers={"Accept-Language": language}
            ).text()
            page.goto(f"{live_site}/")
            page.locator("#lobby-live[data-version]").wait_for(timeout=TIMEOUT)
            built = page.eval_on_selector_all(
                "li.table-card, #lobby-online-list", "all => all.map(e => e.outerHTML)"
            )
            rendered = page.evaluate(
                """(html) => {
                    const whole = document.createElement("template");
                    whole.innerHTML = html;
                    const parts = whole.content.querySelectorAll(
                        "#lobby-live li.table-card, #lobby-online-list"
                    );
                    for (const e of whole.content.querySelectorAll("[name=csrfmiddlewaretoken]")) {
                        e.remove();
                    }
                    return Array.from(parts, (e) => e.outerHTML);
                }""",
                served,
            )
            online = built.pop()
            assert 'href="/jugadores/ana+b@c.es/"' in online and "Ana &lt;b&gt;" in online
            assert online.count("<a ") == 5 and between_tags(online) == between_tags(rendered.pop())
            assert len(built) == 2 and any("12 – 7" in card for card in built)
            watching = {"es": "1 mirando", "en": "1 watching"}[language]
            assert sum(watching in card for card in built) == 1
            assert sum('class="muted host"' in card for card in built) == 1
            bot = {"es": "(fuerte)", "en": "(strong)"}[language]
            assert bot in "".join(built) and "1500?" in "".join(built)
            assert "seat-closed" not in "".join(built) and "seat-free" in "".join(built)
            assert [between_tags(card) for card in built] == [
                between_tags(card) for card in rendered
            ]
            assert errors == []
    finally:
        orm(lobby.forget)
