"""What `make run-prod` (scripts/run_prod.py) makes of its settings before it starts anything:
nginx's two upstreams (the live processes for `/ws/`, the pages' for the rest) and the
refusal of a pages' setting it cannot run."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_prod() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_prod", ROOT / "scripts" / "run_prod.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def upstream(site: str, name: str) -> list[str]:
    block = re.search(rf"upstream {name} \{{(.*?)\n\}}", site, re.S)
    assert block is not None, name
    return re.findall(r"server (\S+) ", block.group(1))


def proxied(site: str, location: str) -> str:
    found = re.search(rf"location {re.escape(location)} \{{\s*proxy_pass http://(\w+);", site)
    assert found is not None, location
    return found.group(1)


def test_the_sockets_go_to_the_live_processes_and_everything_else_to_the_pages() -> None:
    live, pages = ["10.0.0.1:8001", "10.0.0.1:8002"], ["10.0.0.1:8009"]
    site = run_prod().nginx_site(live, "80", Path("/srv/static"), "/tmp/log", pages=pages)
    assert upstream(site, "barajamos") == live
    assert upstream(site, "barajamos_pages") == pages
    assert proxied(site, "/ws/") == "barajamos"
    assert proxied(site, "/") == "barajamos_pages"
    assert proxied(site, "= /salud/") == "barajamos_pages"


def test_without_a_pages_process_the_live_ones_answer_the_pages_too() -> None:
    live = ["127.0.0.1:8001"]
    site = run_prod().nginx_site(live, "80", Path("/srv/static"), "/tmp/log")
    assert upstream(site, "barajamos") == live == upstream(site, "barajamos_pages")


@pytest.mark.parametrize(
    ("name", "value"), [("PAGES_PROCESSES", "-1"), ("PAGES_NICE", "-1"), ("PAGES_NICE", "20")]
)
def test_a_pages_setting_it_cannot_run_is_refused_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, value: str
) -> None:
    monkeypatch.setenv("NGINX", "nginx")
    monkeypatch.setenv("RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit, match="PAGES_PROCESSES must be 0 or more, PAGES_NICE 0 to 19"):
        run_prod().run()
    assert not (tmp_path / "run").exists()  # nothing written, nothing started
