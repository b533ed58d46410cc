"""The site's bots (accounts.bots): the pool exists from here on, before anybody can sign up as
one of them; games seat them by their is_bot flag."""

from django.db import migrations

from accounts import bots


def make_pool(apps, schema_editor):
    bots.pool(apps.get_model("accounts", "User"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_follows_and_blocks"),
    ]

    operations = [
        migrations.RunPython(make_pool, migrations.RunPython.noop),
    ]
