"""Write ``static/js/socket_codes.js``, the close codes of ``games/socket_codes.py`` for the
pages' scripts (one definition: the browser imports them, never spells them).

    python scripts/socket_codes_js.py           # write it
    python scripts/socket_codes_js.py --check   # exit 1 if it differs from games/socket_codes.py
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "static" / "js" / "socket_codes.js"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")
    django.setup()
    from games import socket_codes

    text = socket_codes.browser_module()
    if args.check:
        same = TARGET.exists() and TARGET.read_text() == text
        if not same:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run {__file__}", file=sys.stderr)
        return 0 if same else 1
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
