"""Name claims (accounts.models.NameClaim): the confusable skeletons of every player's names,
filled for the players there already; the log-in's case-insensitive manager."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import accounts.models
from accounts import names


def claim_existing_names(apps, schema_editor):
    """Each player claims the skeletons of their username and display name, oldest account
    first: where two existing players already look alike, the newer one claims only what is left
    (nobody is renamed; the next change of name is checked in full)."""
    User = apps.get_model("accounts", "User")
    NameClaim = apps.get_model("accounts", "NameClaim")
    batch = []
    for user in User.objects.filter(is_bot=False).order_by("pk").iterator(chunk_size=2000):
        keys = names.skeletons(user.username) | names.skeletons(user.display_name)
        batch.extend(NameClaim(skeleton=key, user_id=user.pk) for key in keys)
        if len(batch) >= 5000:
            NameClaim.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    NameClaim.objects.bulk_create(batch, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_moderation_models_move_out"),
    ]

    operations = [
        migrations.AlterModelManagers(
            name="user",
            managers=[
                ("objects", accounts.models.UserManager()),
            ],
        ),
        migrations.CreateModel(
            name="NameClaim",
            fields=[
                ("skeleton", models.TextField(primary_key=True, serialize=False)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="name_claims",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "nombre reservado",
                "verbose_name_plural": "nombres reservados",
            },
        ),
        migrations.RunPython(claim_existing_names, migrations.RunPython.noop),
    ]
