"""The engine's test vectors (tests/engine/vectors/) replay to their expected results, in
process and with the replay command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from games.engine import export_record, replay, replay_result, view

from .support import REPO, VECTORS, run_replay


def _load_jsonl(name: str) -> list:
    # No skipping when a vector is missing: these tests are the engine's acceptance test.
    path = VECTORS / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


RECORDS = _load_jsonl("random-games.jsonl")
EXPECTED = _load_jsonl("random-games.expected.jsonl")


def _essentials(result: dict) -> tuple:
    return (
        result["scores"],
        result["winner"],
        result["ended_by"],
        [(h["mano"], h["scores"]) for h in result["hands"]],
    )


def test_the_worked_example_replays_to_its_recuento():
    rec = json.loads((VECTORS / "worked-example.json").read_text())
    want = json.loads((VECTORS / "worked-example.expected.json").read_text())
    got = replay_result(rec)
    assert _essentials(got) == _essentials(want)
    rows = {r["lance"]: r for r in got["hands"][0]["lances"]}
    # README: team 0 = 5 (juego bet) + 3 + 3 (two 31s) = 11;
    # team 1 = 5 (grande) + 1 (chica en paso) + 4 + 2 + 1 (pares: bet, medias, par) = 13.
    assert (rows["grande"]["winner"], rows["grande"]["tantos"]) == (1, 5)
    assert (rows["chica"]["winner"], rows["chica"]["tantos"]) == (1, 1)
    assert (rows["pares"]["winner"], rows["pares"]["tantos"]) == (1, 4 + 2 + 1)
    assert (rows["juego"]["winner"], rows["juego"]["tantos"]) == (0, 5 + 3 + 3)


def test_there_are_sixty_random_games_with_expected_results():
    assert len(RECORDS) == len(EXPECTED) == 60


@pytest.mark.parametrize("i", range(len(RECORDS)))
def test_each_random_game_replays_to_the_expected_result(i):
    got = replay_result(RECORDS[i])
    assert _essentials(got) == _essentials(EXPECTED[i])


@pytest.mark.parametrize("i", range(0, len(RECORDS), 7))
def test_a_replayed_game_exports_the_same_record(i):
    g = replay(RECORDS[i])
    assert export_record(g) == RECORDS[i]
    again = replay(export_record(g))
    for seat in (None, 0, 1, 2, 3):
        assert view(again, seat) == view(g, seat)


def test_a_game_with_a_reshuffle_replays_and_exports_it():
    with_reshuffle = [r for r in RECORDS if any("reshuffles" in h for h in r["hands"])]
    assert with_reshuffle
    for rec in with_reshuffle:
        assert export_record(replay(rec)) == rec


def test_replay_upto_stops_after_that_many_actions():
    rec = RECORDS[0]
    n1 = len(rec["hands"][0]["actions"])
    g = replay(rec, upto=n1)
    assert (g.hand_no, g.phase) == (1, "recuento")
    g = replay(rec, upto=n1 + 1)
    assert g.hand_no == 2 and len(export_record(g)["hands"][1]["actions"]) == 1
    g = replay(rec, upto=0)
    assert (g.hand_no, g.phase) == (1, "mus")


# the command ---------------------------------------------------------------------------------


def test_the_replay_command_prints_the_result_of_a_record_file():
    p = run_replay(str(VECTORS / "worked-example.json"))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    want = json.loads((VECTORS / "worked-example.expected.json").read_text())
    assert _essentials(out) == _essentials(want)
    assert len(p.stdout.strip().splitlines()) == 1


def test_the_replay_command_reads_standard_input():
    p = run_replay("-", stdin=(VECTORS / "worked-example.json").read_text())
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["scores"] == [11, 13]


def test_the_replay_command_checks_a_jsonl_file_line_by_line():
    p = run_replay("--jsonl", str(VECTORS / "random-games.jsonl"))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(EXPECTED)
    for line, want in zip(lines, EXPECTED, strict=True):
        assert _essentials(json.loads(line)) == _essentials(want)


def test_the_replay_command_exits_2_with_one_line_for_an_illegal_record(tmp_path):
    rec = json.loads(json.dumps(RECORDS[0]))
    # hand 1's third action is made by the wrong seat
    actions = rec["hands"][0]["actions"]
    actions[2]["seat"] = (actions[2]["seat"] + 1) % 4
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    p = run_replay(str(path))
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("hand 1 action 3: ")


def test_the_replay_command_exits_2_for_invalid_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    p = run_replay(str(path))
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1


def test_the_bench_command_plays_and_replays_and_prints_rates():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run(
        [sys.executable, "-m", "tools.engine_bench", "--games", "4", "--runs", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "play" in p.stdout and "replay" in p.stdout and "actions/s" in p.stdout
    assert p.stdout.startswith("engine: ")  # compiled with mypyc or pure Python


def test_the_example_of_docs_game_record_replays_to_the_result_it_shows():
    text = (REPO / "docs" / "game-record.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.DOTALL)
    record, shown = (json.loads(b) for b in blocks[:2])
    assert replay_result(record) == shown
    assert export_record(replay(record)) == record
