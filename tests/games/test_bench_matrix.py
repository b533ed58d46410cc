"""The site-against-floor harness (tools/bench_matrix.py): its search, its table, its runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.live import daphne_server, free_port
from tools import bench_matrix
from tools.bench_matrix import Figures, Row, find_capacity


def search(p99: dict[int, float] | None, slope: float, *args: int) -> tuple[object, list[int]]:
    """find_capacity over a site whose p99 grows `slope` ms a table; the tables it tried."""
    tried: list[int] = []

    def p99_at(tables: int) -> float:
        tried.append(tables)
        return (p99 or {}).get(tables, slope * tables)

    return find_capacity(p99_at, *args), tried


def test_the_search_steps_up_until_the_p99_passes_150_ms_then_bisects_once() -> None:
    # 0.6 ms a table: 250 tables is the limit.
    assert search(None, 0.6, 150, 60, 600) == ((240, 270), [150, 210, 270, 240])
    # The bisection beyond the limit narrows the other side.
    assert search(None, 0.7, 150, 60, 600) == ((210, 240), [150, 210, 270, 240])


def test_the_search_steps_down_when_the_first_is_already_beyond() -> None:
    # 2 ms a table: 75 tables is the limit; 90 beyond, 30 within, then the bisection at 60.
    assert search(None, 2.0, 150, 60, 600) == ((60, 90), [150, 90, 30, 60])
    # Not even the fewest: nothing found within, and nothing to bisect.
    assert search(None, 10.0, 150, 60, 600) == ((0, 30), [150, 90, 30])


def test_the_search_stops_at_the_ceiling_and_a_run_without_moves_is_beyond() -> None:
    assert search(None, 0.1, 150, 60, 300) == ((270, None), [150, 210, 270])
    assert search({210: math.nan}, 0.1, 150, 60, 300) == ((180, 210), [150, 210, 180])
    assert bench_matrix.capacity_text((270, None)) == "≥ 270"
    assert bench_matrix.capacity_text((240, 270)) == "240 (< 270)"
    assert bench_matrix.capacity_text((0, 30)) == "< 30"


def test_the_table_puts_the_floor_beside_the_site_with_the_issues_ratios() -> None:
    site = Figures(240, 320.0, 8.0, 140.0, 2.4, 0.6, 0.9)
    floor = Figures(240, 239.0, 2.5, 25.0, 1.6)
    rows = [
        Row(1, "nginx", site, floor, (225, 270), (450, 510)),
        Row(2, "direct", site),
        Row(2, "nginx"),  # (a sitting stopped before it: left out)
    ]
    lines = bench_matrix.table(rows, "no floor (no --floor)").splitlines()
    assert lines[0].count("|") == lines[1].count("|") == lines[2].count("|") == 12
    cells = [c.strip() for c in lines[2].split("|")[1:-1]]
    assert cells == [
        "1 daphne, nginx",
        "240",
        "320.0",
        "8.0",
        "140",
        "2.40",
        "0.60 · 0.90",
        "239.0 · 2.5 · 25 · 1.60",
        "1.50",  # daphne CPU per move ÷ the floor's (the target: ≤ 1.2)
        "225 (< 270) · 450 (< 510)",
        "0.50",  # tables within p99 150 ms ÷ the floor's (the target: ≥ 0.7)
    ]
    cells = [c.strip() for c in lines[3].split("|")[1:-1]]
    assert cells[7:] == ["no floor (no --floor)", "–", "– · –", "–"]
    assert len(lines) == 4


def test_without_the_floor_at_hand_the_harness_skips_it(tmp_path: Path) -> None:
    args = bench_matrix.parse(["--floor", str(tmp_path), "--daphne", "1", "--via", "nginx"])
    assert not args.floor_present and args.daphne == [1] and args.via == ["nginx"]
    (tmp_path / "wsload.py").touch()
    assert bench_matrix.parse(["--floor", str(tmp_path)]).floor_present
    assert not bench_matrix.parse([]).floor_present
    with pytest.raises(SystemExit):
        bench_matrix.parse(["--via", "carrier-pigeon"])


def test_the_commands_are_noted_as_one_types_them_from_the_project() -> None:
    sitting = bench_matrix.Sitting(bench_matrix.parse([]), {})
    root = bench_matrix.ROOT
    sitting.ran([f"{root}/.venv/bin/python", "manage.py", "migrate"])
    sitting.ran([f"{root}/.venv/bin/python", "wsload.py", "--tables=3"], Path("/elsewhere"))
    assert sitting.commands == [
        ".venv/bin/python manage.py migrate",
        "(cd /elsewhere && $ROOT/.venv/bin/python wsload.py --tables=3)",
    ]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_run_measures_the_site_moves_latency_and_the_cpu_of_daphne_and_postgresql() -> None:
    port = free_port()
    sitting = bench_matrix.Sitting(bench_matrix.parse(["--think", "0.2"]), {})
    with daphne_server(port) as (_url, proc):
        site = bench_matrix.Site(port, {port: proc.pid})
        figures = bench_matrix.site_run(sitting, site, "direct", 2, 8)
    # 8 clients at 0.2 s a thought, over the 6 s of steady state: a few dozen moves.
    assert figures.tables == 2 and figures.moves_per_s > 2
    assert 0 < figures.p50_ms <= figures.p99_ms < 5000
    assert figures.daphne_ms > 0 and figures.pg_cpu_ms > 0 and figures.pg_active_ms > 0
    assert figures.failures == 0
    assert sitting.commands[-1].startswith(".venv/bin/python manage.py loadtest --tables=2 ")
