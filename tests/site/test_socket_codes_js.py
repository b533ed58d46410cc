"""The close codes reach the browser from their one definition (games/socket_codes.py): the
generated module the pages' scripts import says the same numbers, and no script spells one."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from games import socket_codes

STATIC_JS = Path(settings.BASE_DIR) / "static" / "js"
GENERATED = STATIC_JS / "socket_codes.js"
EXPORT = re.compile(r"^export const (CLOSE_\w+) = (\d+);$", re.M)


def python_codes() -> dict[str, int]:
    return {
        name: value
        for name, value in vars(socket_codes).items()
        if name.startswith("CLOSE_") and isinstance(value, int)
    }


def test_the_browsers_close_codes_are_pythons() -> None:
    text = GENERATED.read_text()
    assert {name: int(value) for name, value in EXPORT.findall(text)} == python_codes()
    # Written by scripts/socket_codes_js.py: run it after changing games/socket_codes.py.
    assert text == socket_codes.browser_module()


def test_no_script_spells_a_close_code_of_its_own() -> None:
    codes = {str(value) for value in python_codes().values()}
    literal = re.compile(r"(?<![\w.])(" + "|".join(sorted(codes)) + r")(?![\w.])")
    scripts = [
        path
        for path in sorted(Path(settings.BASE_DIR).glob("*/static/**/*.js"))
        + sorted(STATIC_JS.glob("**/*.js"))
        if path != GENERATED and not path.name.endswith(".min.js")
    ]
    assert any(path.name == "socket.js" for path in scripts)
    found = [
        f"{path.relative_to(settings.BASE_DIR)}: {match.group(1)}"
        for path in scripts
        for match in literal.finditer(path.read_text())
    ]
    assert found == []


def test_every_socket_of_the_pages_is_opened_by_the_one_client() -> None:
    opened = [
        str(path.relative_to(settings.BASE_DIR))
        for path in sorted(STATIC_JS.glob("**/*.js"))
        if "new WebSocket(" in path.read_text()
    ]
    assert opened == ["static/js/socket.js"]
