"""Two friends find and invite each other without copying a link: they follow each other from
their profiles, one invites the other (a live notice, wherever the other is on the site), and
both end up at the same table. Real daphne, real Chromium."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Table
from games.services import queue
from tests.factories import UserFactory, session_key
from tests.live import screenshot

from .support import DESKTOP, PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 15_000


def follow(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/jugadores/{username}/")
    page.locator(f'form[action="/jugadores/{username}/seguir/"] button').click()
    page.locator(f'form[action="/jugadores/{username}/dejar-de-seguir/"]').wait_for(timeout=TIMEOUT)


def friends_pages(browser: Any, live_site: str, orm: Any) -> tuple[Any, Any, list[Any]]:
    people = orm(lambda: UserFactory("amiga").many(4))
    ana, bea = people[:2]
    ana_page = logged_in_page(browser, live_site, orm(session_key, ana), DESKTOP)
    bea_page = logged_in_page(browser, live_site, orm(session_key, bea), PHONE)
    follow(ana_page, live_site, bea.username)
    follow(bea_page, live_site, ana.username)
    return ana_page, bea_page, people


def test_a_friend_invited_to_your_table_sits_there(live_site: str, browser: Any, orm: Any) -> None:
    ana_page, bea_page, people = friends_pages(browser, live_site, orm)
    ana, bea = people[:2]
    bea_page.goto(f"{live_site}/reglas/")  # anywhere on the site
    ana_page.goto(f"{live_site}/")
    ana_page.locator('form[action="/mesas/nueva/"] button[type=submit]').click()
    ana_page.wait_for_url(f"{live_site}/mesas/*/", timeout=TIMEOUT)
    table_id = int(ana_page.url.rstrip("/").rsplit("/", 1)[1])
    ana_page.goto(f"{live_site}/")
    row = ana_page.locator(f'li.friend[data-friend="{bea.username}"]')
    row.locator("input[name=kind][value=mesa] ~ button").click()
    notice = bea_page.locator(".notice.invitation")
    notice.wait_for(timeout=TIMEOUT)
    assert ana.public_name in notice.inner_text()
    assert int(bea_page.locator("#notices").get_attribute("data-chimes") or 0) >= 1
    screenshot(bea_page, "friends-1-invited-phone")
    notice.locator("button[type=submit]").click()
    bea_page.wait_for_url(f"{live_site}/mesas/{table_id}/", timeout=TIMEOUT)
    seated = orm(
        lambda: set(Table.objects.get(pk=table_id).seats.values_list("user_id", flat=True))
    )
    assert seated == {ana.pk, bea.pk}
    answer = ana_page.locator(".notice", has_text="ha aceptado tu invitación")
    answer.wait_for(timeout=TIMEOUT)
    screenshot(ana_page, "friends-2-accepted")
    assert ana_page.js_errors == [] and bea_page.js_errors == []


def test_friends_who_play_as_partners_sit_at_one_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    ana_page, bea_page, people = friends_pages(browser, live_site, orm)
    ana, bea, carla, dani = people
    bea_page.goto(f"{live_site}/")
    ana_page.goto(f"{live_site}/")
    row = ana_page.locator(f'li.friend[data-friend="{bea.username}"]')
    row.wait_for(timeout=TIMEOUT)
    row.locator('button[name=mode][value="4-reyes"]').click()
    notice = bea_page.locator(".notice.invitation")
    notice.wait_for(timeout=TIMEOUT)
    assert "te invita a jugar de pareja" in notice.inner_text()
    notice.locator("button[type=submit]").click()
    # Both go to the queue page, as a pair.
    bea_page.wait_for_url(f"{live_site}/jugar/", timeout=TIMEOUT)
    ana_page.wait_for_url(f"{live_site}/jugar/", timeout=TIMEOUT)
    assert bea.public_name in ana_page.inner_text("#quick-queue")
    screenshot(ana_page, "friends-3-queue-as-a-pair")
    # Two more players press «Jugar ya»: the four sit down at once.
    orm(queue.join, carla, "4-reyes")
    orm(queue.join, dani, "4-reyes")
    ana_page.wait_for_url(f"{live_site}/mesas/*/", timeout=TIMEOUT)
    bea_page.wait_for_url(f"{live_site}/mesas/*/", timeout=TIMEOUT)
    assert ana_page.url == bea_page.url
    table_id = int(ana_page.url.rstrip("/").rsplit("/", 1)[1])
    seats = orm(lambda: dict(Table.objects.get(pk=table_id).seats.values_list("user_id", "seat")))
    assert seats[ana.pk] % 2 == seats[bea.pk] % 2  # partners
    ana_page.locator("#felt").wait_for(timeout=TIMEOUT)
    screenshot(bea_page, "friends-4-same-table-phone")
    assert ana_page.js_errors == [] and bea_page.js_errors == []
