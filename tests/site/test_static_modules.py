"""The live table's JavaScript is native modules, served as they are (no build step): in
production each module imports the others by their hashed names, as the page loads main."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from tests.security.test_deploy import production_env, run

IMPORT = re.compile(r"""^(?:import|export)\b[^;]*?\bfrom\s*["'](\.[^"']+)["']""", re.M)
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_production_uses_the_storage_that_hashes_module_imports() -> None:
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.STORAGES['staticfiles']['BACKEND'])"
    )
    result = run(["-c", code], production_env())
    assert result.stdout.strip() == "musweb.storage.StaticFiles", result.stderr


def test_each_table_module_imports_the_others_by_their_hashed_names(tmp_path: Path) -> None:
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": "musweb.storage.StaticFiles"}}
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
    paths = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    modules = sorted(name for name in paths if name.startswith("js/table/"))
    assert "js/table/main.js" in modules and len(modules) > 5
    seen = set()
    for name in modules:
        hashed = tmp_path / paths[name]
        for target in IMPORT.findall(hashed.read_text()):
            assert HASHED.search(target), f"{paths[name]} imports {target}"
            assert (hashed.parent / target).resolve().is_file()
            seen.add(target)
    assert len(seen) >= len(modules) - 1  # every module but main is imported somewhere
