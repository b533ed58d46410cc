# Report and ModerationAction now belong to the moderation app (moderation/migrations/0001),
# which keeps their tables: only the migration state changes here, no table is touched.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_moderation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="ModerationAction"),
                migrations.DeleteModel(name="Report"),
            ],
            database_operations=[],
        ),
    ]
