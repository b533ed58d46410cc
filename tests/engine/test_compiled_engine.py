"""What compiling the engine with mypyc (scripts/build_engine.py) must not change.

``make test`` runs every engine test against the compiled modules when the build succeeded;
these tests cover what differs between the two forms: ``Game._clone`` copies every slot by
name, and the pure-Python sources alone (the fallback when the build fails) still replay the
test vectors (tests/engine/vectors/) to the same results.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys

from games.engine import Game, apply, new_game
from tools.engine_bench import random_action

from .support import REPO, VECTORS, run_replay


def test_a_clone_copies_every_slot_and_shares_no_mutable_list():
    rng = random.Random(7)
    g = new_game("8-reyes", 1, rng)
    for _ in range(60):  # into some later hand, with results, past hands and a bet or two
        if g.phase == "terminada":
            break
        g = apply(g, random_action(g, rng), rng)
    c = g._clone()
    # (compiled, the class lists its attributes in __mypyc_attrs__; it has no __slots__)
    names = getattr(Game, "__slots__", None) or Game.__mypyc_attrs__
    assert len(names) == 41
    for name in names:
        mine, theirs = getattr(g, name), getattr(c, name)
        assert mine == theirs, name
        if isinstance(mine, list) and name not in ("_evals", "_tally"):  # replaced, not changed
            assert mine is not theirs, name
    assert all(h is not k for h, k in zip(g._hands, c._hands, strict=True))


def test_the_pure_python_sources_replay_the_vectors_like_the_engine_in_use(tmp_path):
    """The engine without its compiled modules, as a failed build leaves it."""
    pkg = tmp_path / "games" / "engine"
    pkg.mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("")
    for src in (REPO / "games" / "engine").glob("*.py"):
        shutil.copy(src, pkg / src.name)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    code = "import games.engine.game as g; print(g.__file__)"
    where = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert where.stdout.strip().endswith("game.py"), where.stderr
    jsonl = VECTORS / "random-games.jsonl"
    pure = run_replay("--jsonl", str(jsonl), root=tmp_path, timeout=120)
    assert pure.returncode == 0, pure.stderr
    in_use = run_replay("--jsonl", str(jsonl), timeout=120)
    assert in_use.returncode == 0, in_use.stderr
    assert [json.loads(x) for x in pure.stdout.splitlines()] == [
        json.loads(x) for x in in_use.stdout.splitlines()
    ]
