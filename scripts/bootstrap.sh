#!/usr/bin/env bash
# Everything `make run` and `make test` need on a fresh machine of this kind: a Python 3.12+
# virtual environment with the project's dependencies, the engine compiled with mypyc, the
# database, and compiled translations.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  local candidates=(python3.13 python3.12 python3.14 python3)
  local c
  for c in "${candidates[@]}" /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3 /usr/local/bin/python3.1[234] /usr/bin/python3.1[234]; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
  PY=$(find_python) || { echo "bootstrap: Django 6.1 needs Python 3.12 or newer; none found" >&2; exit 1; }
  echo "bootstrap: creating .venv with $PY"
  rm -rf .venv
  "$PY" -m venv .venv
fi

stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # PyICU (the confusable-name check) builds against the system's ICU.
  if ! pkg-config --exists icu-uc 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing Debian's libicu-dev and pkg-config for PyICU"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config >/dev/null
  fi
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[test]'
  touch "$stamp"
fi

# The engine compiled with mypyc (docs/engine.md): when missing or older than its sources. A
# failed build is reported on stderr and the engine then runs as pure Python (correct, slower).
.venv/bin/python scripts/build_engine.py || echo "bootstrap: carrying on with the pure-Python engine" >&2

.venv/bin/python scripts/ensure_database.py

if command -v msgfmt >/dev/null 2>&1; then
  .venv/bin/python manage.py compilemessages --ignore=.venv --verbosity 0
fi
