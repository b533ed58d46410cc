"""The moderation app took Report and ModerationAction from accounts without touching a table.

Also its place in the layers: accounts, games and rankings never import it.
"""

from __future__ import annotations

import ast
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import User
from moderation.models import ModerationAction, Report
from tests.factories import ended_table

BEFORE_THE_MOVE = [("accounts", "0002_moderation")]


def migrate(targets: list[tuple[str, str]]) -> None:
    MigrationExecutor(connection).migrate(targets)
    ContentType.objects.clear_cache()


@pytest.mark.django_db(transaction=True)
def test_migrating_a_database_with_reports_and_a_log_keeps_every_row_and_permission(
    four_players: list[User],
) -> None:
    table = ended_table(four_players)
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    migrate(BEFORE_THE_MOVE)
    try:
        # The database as it was before the move: the models in accounts, and so their
        # content types (and the permissions given to staff on them).
        old = MigrationExecutor(connection).loader.project_state(BEFORE_THE_MOVE).apps
        assert ContentType.objects.filter(app_label="accounts", model="report").exists()
        # Through the old state's model: today's User also claims its names, in a table this
        # older schema does not have yet.
        helper = old.get_model("accounts", "User").objects.create(
            username="ayudante", is_staff=True
        )
        view_reports = Permission.objects.get(
            content_type__app_label="accounts", codename="view_report"
        )
        helper.user_permissions.add(view_reports.pk)
        report = old.get_model("accounts", "Report").objects.create(
            reporter_id=four_players[0].pk,
            reported_id=four_players[1].pk,
            table_id=table.pk,
            reason="insultos",
            text="Me insultó.",
        )
        entry = old.get_model("accounts", "ModerationAction").objects.create(
            moderator_name="moderadora",
            kind="resolver",
            target_id=four_players[1].pk,
            target_name="p1",
            table_id=table.pk,
            report_id=report.pk,
            reason="Avisado",
            details={"resolution": "sin_medidas"},
        )
    finally:
        migrate(leaves)

    moved = Report.objects.get(pk=report.pk)
    assert (moved.reporter, moved.reported, moved.table_id, moved.text, moved.status) == (
        four_players[0],
        four_players[1],
        table.pk,
        "Me insultó.",
        "abierta",
    )
    logged = ModerationAction.objects.get(pk=entry.pk)
    assert (logged.report, logged.target, logged.kind, logged.details) == (
        moved,
        four_players[1],
        "resolver",
        {"resolution": "sin_medidas"},
    )
    assert Permission.objects.get(pk=view_reports.pk).content_type.app_label == "moderation"
    assert User.objects.get(pk=helper.pk).has_perm("moderation.view_report")
    assert not ContentType.objects.filter(app_label="accounts", model="report").exists()
    tables = connection.introspection.table_names()
    assert "accounts_report" in tables and "accounts_moderationaction" in tables
    # The moved models kept their tables (the app's later models have their own).
    assert not {"moderation_report", "moderation_moderationaction"} & set(tables)


@pytest.mark.django_db
def test_the_move_runs_no_sql_on_the_tables() -> None:
    for app, name in [("accounts", "0003_moderation_models_move_out"), ("moderation", "0001")]:
        out = StringIO()
        call_command("sqlmigrate", app, name, stdout=out)
        statements = [
            line
            for line in out.getvalue().splitlines()
            if line.strip() and not line.startswith("--") and line not in ("BEGIN;", "COMMIT;")
        ]
        assert statements == [], f"{app} {name}"


LOWER_APPS = ("accounts", "games", "rankings")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_no_lower_app_imports_moderation() -> None:
    root = Path(settings.BASE_DIR)
    offenders = [
        str(path.relative_to(root))
        for app in LOWER_APPS
        for path in sorted((root / app).rglob("*.py"))
        if any(m == "moderation" or m.startswith("moderation.") for m in imported_modules(path))
    ]
    assert offenders == []
