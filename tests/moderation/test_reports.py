"""Reports: the form after a game, each refusal, and the moderators' queue."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Table
from moderation.models import ModerationAction, Report
from tests.factories import ended_table, login, seat_all, started_table

from .support import action_post, confirm_post

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:moderation_report_changelist")


def report_url(table: Table) -> str:
    return reverse("moderation:report", args=[table.pk])


def errors_of(response) -> str:
    form = response.context["form"]
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def test_the_report_url_is_under_the_table() -> None:
    assert reverse("moderation:report", args=[7]) == "/mesas/7/denunciar/"


def test_the_form_offers_the_other_human_players_of_the_game(
    client: Client, four_players: list[User], make_user: Callable[..., User]
) -> None:
    User.objects.filter(pk=four_players[3].pk).update(is_bot=True)
    table = ended_table(four_players)
    response = login(four_players[0], client).get(report_url(table))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'value="p1"' in page and 'value="p2"' in page
    assert 'value="p0"' not in page and 'value="p3"' not in page
    assert 'name="csrfmiddlewaretoken"' in page
    for reason in ("insultos", "trampas", "abandono", "nombre", "otro"):
        assert f'value="{reason}"' in page


def test_the_report_form_is_in_english_for_an_english_player(
    client: Client, four_players: list[User]
) -> None:
    table = ended_table(four_players)
    User.objects.filter(pk=four_players[0].pk).update(language="en")
    page = login(four_players[0], client).get(report_url(table)).content.decode()
    for text in ("Report a player", "Insults or harassment", "Send the report", "Back to the game"):
        assert text in page
    assert "Enviar la denuncia" not in page


def test_the_measure_page_is_in_english_for_an_english_moderator(
    admin_client: Client, four_players: list[User], moderator: User
) -> None:
    table = ended_table(four_players)
    User.objects.filter(pk=moderator.pk).update(language="en")
    page = action_post(
        admin_client, reverse("admin:games_table_changelist"), "recompute_ratings", [table.pk]
    ).content.decode()
    for text in ("Recalculate the ranking", "Go back without changing anything", "Home"):
        assert text in page
    assert "Volver sin cambiar nada" not in page


@pytest.mark.parametrize("status", [Table.Status.FINISHED, Table.Status.CANCELLED])
def test_a_player_reports_another_player_after_the_game(
    client: Client, four_players: list[User], status: str
) -> None:
    table = ended_table(four_players, status)
    response = login(four_players[0], client).post(
        report_url(table), {"jugador": "p1", "motivo": "insultos", "texto": "Me insultó."}
    )
    assert response.status_code == 302
    assert response.url == reverse("game_detail", args=[table.pk])
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.table) == (
        four_players[0],
        four_players[1],
        table,
    )
    assert (report.reason, report.text, report.status) == ("insultos", "Me insultó.", "abierta")
    shown = [str(m) for m in client.get("/").context["messages"]]
    assert any("Denuncia enviada" in m for m in shown)


def test_anonymous_visitors_are_sent_to_log_in(client: Client, four_players: list[User]) -> None:
    table = ended_table(four_players)
    response = client.get(report_url(table))
    assert response.status_code == 302 and "/cuentas/entrar/" in response.url


def test_only_the_games_players_may_report(
    client: Client, four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = ended_table(four_players)
    login(make_user("mirona"), client)
    response = client.get(report_url(table))
    assert response.status_code == 403
    assert "Solo los jugadores" in response.content.decode()
    refused = client.post(report_url(table), {"jugador": "p1", "motivo": "insultos"})
    assert refused.status_code == 403
    assert not Report.objects.exists()


def test_a_private_game_does_not_reveal_itself_to_outsiders(
    client: Client, four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = services.create_table(four_players[0], "4-reyes", private=True)
    login(make_user("mirona"), client)
    assert client.get(report_url(table)).status_code == 404


def test_a_missing_table_is_404(client: Client, four_players: list[User]) -> None:
    login(four_players[0], client)
    assert client.get("/mesas/999999/denunciar/").status_code == 404


@pytest.mark.parametrize("when", ["abierta", "jugando"])
def test_a_game_that_has_not_ended_cannot_be_reported_yet(
    client: Client, four_players: list[User], when: str
) -> None:
    table = seat_all(four_players) if when == "abierta" else started_table(four_players)
    login(four_players[0], client)
    response = client.post(report_url(table), {"jugador": "p1", "motivo": "insultos"})
    assert response.status_code == 400
    assert "terminado" in response.content.decode()
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"jugador": "p0", "motivo": "insultos"}, "jugador", "a ti mismo"),
        ({"jugador": "p3", "motivo": "trampas"}, "jugador", "bots"),
        ({"jugador": "mirona", "motivo": "trampas"}, "jugador", "no jugó esta partida"),
        ({"jugador": "", "motivo": "trampas"}, "jugador", "Elige a qué jugador"),
        ({"jugador": "p1", "motivo": "robo"}, "motivo", "no existe"),
        ({"jugador": "p1"}, "motivo", "Elige un motivo"),
        ({"jugador": "p1", "motivo": "otro"}, "texto", "explica qué pasó"),
        ({"jugador": "p1", "motivo": "otro", "texto": "x" * 1001}, "texto", "1000"),
    ],
)
def test_each_refused_report_says_why(
    client: Client,
    four_players: list[User],
    make_user: Callable[..., User],
    data: dict[str, str],
    field: str,
    message: str,
) -> None:
    make_user("mirona")
    User.objects.filter(pk=four_players[3].pk).update(is_bot=True)
    table = ended_table(four_players)
    response = login(four_players[0], client).post(report_url(table), data)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert message in errors_of(response)
    assert message in response.content.decode().replace("&#x27;", "'").replace("&quot;", '"')
    assert not Report.objects.exists()


def test_a_1000_character_explanation_is_accepted(client: Client, four_players: list[User]) -> None:
    table = ended_table(four_players)
    response = login(four_players[0], client).post(
        report_url(table), {"jugador": "p1", "motivo": "otro", "texto": "x" * 1000}
    )
    assert response.status_code == 302
    assert len(Report.objects.get().text) == 1000


def test_one_open_report_per_reporter_reported_and_game(
    client: Client, four_players: list[User], moderator: User
) -> None:
    table = ended_table(four_players)
    login(four_players[0], client)
    data = {"jugador": "p1", "motivo": "insultos"}
    assert client.post(report_url(table), data).status_code == 302
    again = client.post(report_url(table), {**data, "motivo": "trampas"})
    assert again.status_code == 400
    assert "Ya denunciaste" in errors_of(again)
    # Another player of the same game, or the same player by another reporter, is fine.
    assert client.post(report_url(table), {"jugador": "p2", "motivo": "trampas"}).status_code == 302
    login(four_players[3], client)
    assert client.post(report_url(table), data).status_code == 302
    assert Report.objects.count() == 3
    # Once resolved, the same report can be made again.
    from moderation import actions

    first = Report.objects.get(reporter=four_players[0], reported=four_players[1])
    actions.resolve_report(moderator, first, Report.Resolution.NO_ACTION)
    login(four_players[0], client)
    assert client.post(report_url(table), data).status_code == 302


def test_the_report_form_needs_the_csrf_token(four_players: list[User]) -> None:
    table = ended_table(four_players)
    client = Client(enforce_csrf_checks=True)
    login(four_players[0], client)
    response = client.post(report_url(table), {"jugador": "p1", "motivo": "insultos"})
    assert response.status_code == 403
    assert not Report.objects.exists()


def test_the_report_page_refuses_other_methods(client: Client, four_players: list[User]) -> None:
    table = ended_table(four_players)
    login(four_players[0], client)
    assert client.put(report_url(table)).status_code == 405


# --------------------------------------------------------------------------------------------
# The queue.
# --------------------------------------------------------------------------------------------
@pytest.fixture
def reports(four_players: list[User]) -> list[Report]:
    table = ended_table(four_players)
    made = [
        Report.objects.create(
            reporter=four_players[0], reported=four_players[1], table=table, reason="insultos"
        ),
        Report.objects.create(
            reporter=four_players[2], reported=four_players[1], table=table, reason="trampas"
        ),
        Report.objects.create(
            reporter=four_players[1],
            reported=four_players[0],
            table=table,
            reason="nombre",
            status="resuelta",
            resolution="sin_medidas",
        ),
    ]
    return made


def queued(response) -> list[int]:
    return sorted(response.context["cl"].queryset.values_list("pk", flat=True))


def test_the_queue_shows_open_reports_unless_told_otherwise(
    admin_client: Client, reports: list[Report]
) -> None:
    assert queued(admin_client.get(QUEUE)) == [reports[0].pk, reports[1].pk]
    assert queued(admin_client.get(QUEUE, {"estado": "resuelta"})) == [reports[2].pk]
    assert len(queued(admin_client.get(QUEUE, {"estado": "todas"}))) == 3
    assert queued(admin_client.get(QUEUE, {"reason__exact": "trampas"})) == [reports[1].pk]
    page = admin_client.get(QUEUE).content.decode()
    for action in ("resolve_no_action", "resolve_mute", "resolve_ban"):
        assert action in page


def test_a_report_cannot_be_added_or_deleted_in_the_admin(
    admin_client: Client, reports: list[Report]
) -> None:
    assert admin_client.get(reverse("admin:moderation_report_add")).status_code == 403
    url = reverse("admin:moderation_report_delete", args=[reports[0].pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    detail = admin_client.get(reverse("admin:moderation_report_change", args=[reports[0].pk]))
    assert detail.status_code == 200


def test_resolving_without_measures_closes_the_report_with_a_note_and_is_logged(
    admin_client: Client, reports: list[Report], moderator: User
) -> None:
    form = action_post(admin_client, QUEUE, "resolve_no_action", [reports[0].pk])
    assert form.status_code == 200 and 'name="note"' in form.content.decode()
    done = confirm_post(
        admin_client, QUEUE, "resolve_no_action", [reports[0].pk], note="El chat no lo muestra."
    )
    assert done.status_code == 302
    report = Report.objects.get(pk=reports[0].pk)
    assert (report.status, report.resolution, report.resolved_by) == (
        "resuelta",
        "sin_medidas",
        moderator,
    )
    assert report.resolution_note == "El chat no lo muestra."
    assert report.resolved_at is not None
    reported = User.objects.get(pk=report.reported_id)
    assert not reported.is_banned and not reported.is_muted
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.report, entry.target, entry.table_id, entry.reason) == (
        "resolver",
        report,
        reported,
        report.table_id,
        "El chat no lo muestra.",
    )


def test_resolving_and_muting_silences_the_reported_player(
    admin_client: Client, reports: list[Report]
) -> None:
    confirm_post(admin_client, QUEUE, "resolve_mute", [reports[0].pk], note="")
    report = Report.objects.get(pk=reports[0].pk)
    assert report.resolution == "silenciado"
    assert User.objects.get(pk=report.reported_id).is_muted
    kinds = list(ModerationAction.objects.order_by("pk").values_list("kind", "report_id"))
    assert kinds == [("silenciar", report.pk), ("resolver", report.pk)]


def test_resolving_and_banning_bans_the_reported_player_for_seven_days(
    admin_client: Client, reports: list[Report]
) -> None:
    confirm_post(admin_client, QUEUE, "resolve_ban", [reports[1].pk], note="Colusión clara")
    report = Report.objects.get(pk=reports[1].pk)
    assert report.resolution == "expulsado"
    reported = User.objects.get(pk=report.reported_id)
    assert reported.is_banned
    assert abs(reported.banned_until - (timezone.now() + timedelta(days=7))) < timedelta(minutes=1)
    ban = ModerationAction.objects.get(kind="expulsar")
    assert ban.report == report and ban.reason == "Colusión clara"


def test_a_resolved_report_is_not_resolved_again(
    admin_client: Client, reports: list[Report]
) -> None:
    confirm_post(admin_client, QUEUE + "?estado=todas", "resolve_ban", [reports[2].pk])
    report = Report.objects.get(pk=reports[2].pk)
    assert report.resolution == "sin_medidas"
    assert not User.objects.get(pk=report.reported_id).is_banned
    assert not ModerationAction.objects.exists()
    shown = [str(m) for m in admin_client.get(QUEUE).context["messages"]]
    assert any("ya está resuelta" in m for m in shown), shown


def test_resolving_with_a_7_day_ban_never_shortens_a_longer_ban(
    admin_client: Client, reports: list[Report], moderator: User
) -> None:
    from moderation import actions

    reported = User.objects.get(pk=reports[0].reported_id)
    actions.ban(moderator, reported, "Trampas reiteradas")  # no end
    confirm_post(admin_client, QUEUE, "resolve_ban", [reports[0].pk], note="Otra vez")
    reported.refresh_from_db()
    assert reported.is_banned and reported.banned_until is None
    assert reported.ban_reason == "Trampas reiteradas"
    report = Report.objects.get(pk=reports[0].pk)
    assert (report.status, report.resolution) == ("resuelta", "expulsado")
