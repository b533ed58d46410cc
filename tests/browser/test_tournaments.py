"""Tournaments in a real browser: a pair registers, checks in and, when Celery beat starts the
tournament, is told «Tu mesa del torneo está lista» wherever they are and taken to the table;
the tournament pages pass the axe checks and fit a phone."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from tests.factories import make_user, session_key
from tests.live import celery_worker, screenshot
from tests.tournaments.support import (
    check_in_all,
    make_tournament,
    play_round,
    ready_tournament,
    register_pairs,
)
from tournaments.models import Match, Pair, Tournament

from .support import DESKTOP, PHONE, logged_in_page
from .test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_pair_registers_checks_in_and_is_told_and_taken_to_its_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> dict[str, Any]:
        tournament = make_tournament(rounds=1, name="Torneo del navegador")
        check_in_all(tournament, register_pairs(tournament, 1, prefix="rival"))
        ana, luis = make_user("ana"), make_user("luis")
        return {"id": tournament.pk, "ana": session_key(ana), "luis": session_key(luis)}

    data = orm(setup)
    url = f"{live_site}/torneos/{data['id']}/"
    ana = logged_in_page(browser, live_site, data["ana"], DESKTOP)
    luis = logged_in_page(browser, live_site, data["luis"], PHONE)
    ana.goto(url)
    ana.get_by_label("Nombre de usuario de tu pareja").fill("luis")
    ana.get_by_role("button", name="Inscribirnos").click()
    ana.get_by_text("Esperando a que").wait_for()
    luis.goto(url)
    luis.get_by_text("te invita a jugar este torneo").wait_for()
    luis.get_by_role("button", name="Aceptar").click()
    luis.get_by_role("button", name="Estoy").click()
    luis.get_by_text("Confirmado: estás en el torneo.").wait_for()
    ana.goto(url)
    ana.get_by_role("button", name="Estoy").click()
    ana.get_by_text("Confirmado: estás en el torneo.").wait_for()
    pair = orm(lambda: Pair.objects.get(first__username="ana"))
    assert pair.checked_in and pair.status == Pair.Status.REGISTERED
    # Ana waits on the tournament's page, Luis in the lobby.
    luis.goto(f"{live_site}/")
    luis.locator("#notices[data-connected='true']").wait_for(state="attached")
    with celery_worker(beat=True):
        # The start time comes: beat starts the tournament and pairs round 1. The tournament's
        # page takes Ana to her table; Luis gets the notice, with its chime, and follows it.
        starts = timezone.now() + timedelta(seconds=1)
        orm(
            lambda: Tournament.objects.filter(pk=data["id"]).update(
                starts_at=starts, registration_deadline=starts
            )
        )
        ana.wait_for_url(f"{live_site}/mesas/*/", timeout=30_000)
        notice = luis.locator(".notice", has_text="Tu mesa del torneo está lista")
        notice.wait_for(timeout=30_000)
        assert luis.evaluate("document.getElementById('notices').dataset.chimes") == "1"
        notice.get_by_role("link", name="Ir a la mesa").click()
        luis.wait_for_url(f"{live_site}/mesas/*/", timeout=10_000)
        for page in (ana, luis):
            page.locator(".seat .hand").first.wait_for(timeout=10_000)
    table = orm(lambda: Match.objects.get(tournament_id=data["id"]).table_id)
    assert ana.url == luis.url == f"{live_site}/mesas/{table}/"
    assert not ana.js_errors and not luis.js_errors


def site() -> dict[str, Any]:
    """A tournament open for registration with a pair in it, a Swiss one under way with its
    standings, a knockout with its bracket, and a finished one."""
    upcoming = make_tournament(name="Torneo de los jueves por la tarde en la peña")
    pairs = register_pairs(upcoming, 2, prefix="u")
    long_name = pairs[0].first
    long_name.display_name = "Bartolomé Fernández Ruiz"
    long_name.save(update_fields=["display_name"])
    swiss, swiss_pairs = ready_tournament(4, prefix="s", rounds=3, name="Suizo")
    play_round(swiss)
    knockout, _ = ready_tournament(8, prefix="k", format=Tournament.Format.KNOCKOUT, rounds=None)
    play_round(knockout)
    done, _ = ready_tournament(2, prefix="d", rounds=1, name="Terminado")
    play_round(done)
    viewer = swiss_pairs[0].first
    return {
        "key": session_key(viewer),
        "registering": session_key(pairs[1].second),
        "pages": [
            "/torneos/",
            upcoming.get_absolute_url(),
            swiss.get_absolute_url(),
            knockout.get_absolute_url(),
            done.get_absolute_url(),
        ],
    }


def test_the_tournament_pages_have_no_accessibility_violation(
    live_site: str, browser: Any, orm: Any
) -> None:
    data = orm(site)
    found: dict[str, list[str]] = {}
    for viewport, language in ((DESKTOP, "es"), (PHONE, "en")):
        orm(User.objects.update, language=language)
        for key in (data["key"], data["registering"]):
            page = logged_in_page(browser, live_site, key, viewport)
            for path in data["pages"]:
                page.goto(f"{live_site}{path}")
                found[f"{path} {viewport['width']} {language}"] = violations(page)
            assert not page.js_errors
    assert {where: v for where, v in found.items() if v} == {}


def test_the_tournament_pages_fit_a_phone(live_site: str, browser: Any, orm: Any) -> None:
    data = orm(site)
    for width in (320, 390):
        page = logged_in_page(
            browser, live_site, data["registering"], {"width": width, "height": 800}
        )
        for path in data["pages"]:
            response = page.goto(f"{live_site}{path}")
            assert response is not None and response.status == 200, path
            overflow = page.evaluate("document.documentElement.scrollWidth") - width
            if overflow > 0:
                screenshot(page, f"phone-overflow-{width}-{path.strip('/').replace('/', '-')}")
            assert overflow <= 0, f"{path} at {width} px is {overflow} px too wide"
