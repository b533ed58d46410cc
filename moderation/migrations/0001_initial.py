# The tables of Report and ModerationAction were created by accounts/migrations/0002 and keep
# their names (db_table): this migration only moves the models into the moderation app's state,
# and the content types with them, so that the permissions given to staff (and the admin's
# history) still point at the same rows. No table is created, changed or dropped.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("report", "moderationaction")


def move_content_types(apps, schema_editor, source="accounts", target="moderation"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MODELS:
        # On a fresh database the content types do not exist yet (post_migrate makes them).
        if not ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            ContentType.objects.using(db).filter(app_label=source, model=model).update(
                app_label=target
            )


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, source="moderation", target="accounts")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0003_moderation_models_move_out"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0005_table_rematch"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Report",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "reason",
                            models.CharField(
                                choices=[
                                    ("insultos", "Insultos o acoso"),
                                    ("trampas", "Trampas o colusión"),
                                    ("abandono", "Abandono de la partida"),
                                    ("nombre", "Nombre ofensivo"),
                                    ("otro", "Otro motivo"),
                                ],
                                max_length=10,
                                verbose_name="motivo",
                            ),
                        ),
                        (
                            "text",
                            models.TextField(
                                blank=True, max_length=1000, verbose_name="explicación"
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[("abierta", "Abierta"), ("resuelta", "Resuelta")],
                                db_index=True,
                                default="abierta",
                                max_length=10,
                                verbose_name="estado",
                            ),
                        ),
                        (
                            "created_at",
                            models.DateTimeField(auto_now_add=True, verbose_name="enviada el"),
                        ),
                        (
                            "resolved_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="resuelta el"),
                        ),
                        (
                            "resolution",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("sin_medidas", "Sin medidas"),
                                    ("silenciado", "Jugador silenciado"),
                                    ("expulsado", "Jugador expulsado"),
                                ],
                                max_length=12,
                                verbose_name="resolución",
                            ),
                        ),
                        (
                            "resolution_note",
                            models.TextField(blank=True, verbose_name="nota de la resolución"),
                        ),
                        (
                            "reported",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="reports_received",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="denunciado",
                            ),
                        ),
                        (
                            "reporter",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="reports_made",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="denunciante",
                            ),
                        ),
                        (
                            "resolved_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="reports_resolved",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="resuelta por",
                            ),
                        ),
                        (
                            "table",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="reports",
                                to="games.table",
                                verbose_name="partida",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "denuncia",
                        "verbose_name_plural": "denuncias",
                        "db_table": "accounts_report",
                        "ordering": ["created_at", "pk"],
                    },
                ),
                migrations.CreateModel(
                    name="ModerationAction",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "moderator_name",
                            models.CharField(max_length=150, verbose_name="nombre del moderador"),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("expulsar", "Expulsión"),
                                    ("readmitir", "Fin de la expulsión"),
                                    ("silenciar", "Silencio"),
                                    ("quitar_silencio", "Fin del silencio"),
                                    ("cancelar", "Partida cancelada"),
                                    ("resolver", "Denuncia resuelta"),
                                    ("recalcular", "Ranking recalculado"),
                                ],
                                db_index=True,
                                max_length=16,
                                verbose_name="acción",
                            ),
                        ),
                        (
                            "target_name",
                            models.CharField(
                                blank=True,
                                max_length=150,
                                verbose_name="nombre del jugador afectado",
                            ),
                        ),
                        ("reason", models.TextField(blank=True, verbose_name="motivo")),
                        (
                            "until",
                            models.DateTimeField(blank=True, null=True, verbose_name="hasta"),
                        ),
                        (
                            "details",
                            models.JSONField(blank=True, default=dict, verbose_name="detalles"),
                        ),
                        (
                            "created_at",
                            models.DateTimeField(
                                auto_now_add=True, db_index=True, verbose_name="fecha"
                            ),
                        ),
                        (
                            "moderator",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="moderation_done",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="moderador",
                            ),
                        ),
                        (
                            "table",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="moderation_actions",
                                to="games.table",
                                verbose_name="mesa",
                            ),
                        ),
                        (
                            "target",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="moderation_received",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="jugador afectado",
                            ),
                        ),
                        (
                            "report",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="moderation_actions",
                                to="moderation.report",
                                verbose_name="denuncia",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "acción de moderación",
                        "verbose_name_plural": "registro de moderación",
                        "db_table": "accounts_moderationaction",
                        "ordering": ["-created_at", "-pk"],
                    },
                ),
                migrations.AddConstraint(
                    model_name="report",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("status", "abierta")),
                        fields=("reporter", "reported", "table"),
                        name="one_open_report_per_player_and_game",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="report",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("reporter", models.F("reported")), _negated=True),
                        name="no_self_report",
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
