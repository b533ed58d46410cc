"""Let every move's UPDATE of games_table be a HOT update (heap-only tuple).

A move rewrites the table row (record, deadline, version...). While an indexed column changed
with it (the deadline), PostgreSQL added an entry to each of the table's nine indexes per move and
left every old row version for VACUUM; under load that was half a core (docs/performance.md).
Without that index and with room left on each page (fillfactor), the new row version goes on the
same page, no index is touched, and old versions are pruned as the page is read.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_step_version"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="deadline",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunSQL(
            "ALTER TABLE games_table SET (fillfactor = 50)",
            reverse_sql="ALTER TABLE games_table RESET (fillfactor)",
        ),
    ]
