"""Compile the Mus engine's hot modules with mypyc, in place (docs/engine.md, «Compiled»).

The sources stay the readable, type-annotated Python they are; mypyc turns them into C
extension modules (``games/engine/<module>.cpython-3XX-....so``, next to the ``.py`` files and
ignored by git) that Python imports instead of the sources. Nothing else changes: without them
the same engine runs interpreted, only slower.

    python scripts/build_engine.py           # build if missing or older than the sources
    python scripts/build_engine.py --force   # build anyway
    python scripts/build_engine.py --check   # exit 1 if a build is needed (no build)
    python scripts/build_engine.py --stale   # rebuild only if compiled modules are out of date
    python scripts/build_engine.py --clean   # remove the compiled modules (pure Python again)

A failed build says so on stderr, removes any compiled module it left (a stale one would
shadow the sources) and exits 1; ``scripts/bootstrap.sh`` then carries on without it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "games" / "engine"
#: The modules on the play/replay path. Not compiled: actions.py and errors.py (Action and the
#: exceptions are small and stay ordinary Python classes, with Python's own type checks and
#: tracebacks), bot.py, and the command-line module replay.py.
MODULES = ("cards", "evaluate", "game", "view", "record")
#: The shared library all compiled modules load (``games/engine/_compiled__mypyc...so``).
GROUP = "games.engine._compiled"


def _so_files() -> list[Path]:
    """Every compiled file in the engine folder, for any Python version."""
    return sorted(
        p for p in ENGINE.glob("*.so") if p.name.split(".")[0] in (*MODULES, "_compiled__mypyc")
    )


def _built(name: str) -> Path:
    return ENGINE / (name + EXTENSION_SUFFIXES[0])


def _targets() -> list[Path]:
    return [_built(m) for m in MODULES] + [_built("_compiled__mypyc")]


def _older_than_sources(targets: list[Path]) -> bool:
    oldest = min(t.stat().st_mtime for t in targets)
    sources = [ENGINE / f"{m}.py" for m in (*MODULES, "actions", "errors")] + [Path(__file__)]
    return any(s.stat().st_mtime > oldest for s in sources)


def needs_build() -> bool:
    """True when a compiled module for this Python is missing or older than a source."""
    targets = _targets()
    return not all(t.exists() for t in targets) or _older_than_sources(targets)


def stale() -> bool:
    """True when compiled modules exist but are older than a source: Python would import
    them instead of the newer sources."""
    targets = [t for t in _targets() if t.exists()]
    return bool(targets) and _older_than_sources(targets)


def clean() -> None:
    for p in _so_files():
        p.unlink()


def _compile() -> None:
    """Run in a child process: mypycify + ``build_ext --inplace`` from the repository root."""
    from mypyc.build import mypycify
    from setuptools import setup

    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="mypyc-engine-") as tmp:
        setup(
            name="barajamos-engine",
            packages=[],
            ext_modules=mypycify(
                [f"--cache-dir={tmp}/mypy-cache", *(f"games/engine/{m}.py" for m in MODULES)],
                group_name=GROUP,
                target_dir=tmp,
            ),
            script_args=["-q", "build_ext", "--inplace", "--build-temp", tmp, "--build-lib", tmp],
        )


def build() -> bool:
    """Compile; on failure report on stderr and leave no compiled module behind."""
    clean()
    print("build_engine: compiling games/engine with mypyc (about half a minute)...", flush=True)
    proc = subprocess.run(
        [sys.executable, __file__, "--compile-now"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if proc.returncode == 0 and not needs_build():
        print(f"build_engine: compiled {', '.join(MODULES)}")
        return True
    clean()
    out = (proc.stdout + proc.stderr).strip().splitlines()
    print(
        "build_engine: COMPILING THE ENGINE WITH MYPYC FAILED; the engine runs as pure Python "
        "(correct, only slower). Last lines of the build:",
        *("    " + line for line in out[-25:]),
        sep="\n",
        file=sys.stderr,
    )
    return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--force", action="store_true", help="build even if up to date")
    g.add_argument("--check", action="store_true", help="exit 1 if a build is needed")
    g.add_argument("--clean", action="store_true", help="remove the compiled modules")
    g.add_argument("--stale", action="store_true", help="rebuild only if out of date")
    g.add_argument("--compile-now", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.compile_now:
        _compile()
        return 0
    if a.clean:
        clean()
        return 0
    if a.check:
        return 1 if needs_build() else 0
    if a.stale:
        return 0 if not stale() or build() else 1
    if a.force or needs_build():
        return 0 if build() else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
