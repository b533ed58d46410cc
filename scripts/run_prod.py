"""The production topology on one machine (`make run-prod`, docs/deploy.md): nginx in front of
DAPHNE_PROCESSES daphne processes for the WebSockets (the live tables, the lobby) and
PAGES_PROCESSES for every other request, the Celery workers (the live game's and the heavy
work's) and Celery beat, with DEBUG off.

    python scripts/run_prod.py                 start everything, until Ctrl-C or SIGTERM
    python scripts/run_prod.py nginx-site ...  print the nginx site for a proxy machine

Every process is a child of this one, in its own session (Ctrl-C reaches only this script, which
stops them in order) and told to end if this script dies. A child that exits is started again
after RESTART_SECONDS, as systemd would; a daphne or nginx that exits before it first answered
stops everything (a port taken, a bad setting). Logs, pid files, the generated nginx
configuration and the generated secret key go to RUN_DIR (run/prod).

Environment (besides the site's own, README «Configuration»): PORT (nginx, 8000),
DAPHNE_PROCESSES (2), PAGES_PROCESSES (1; 0: the live processes answer the pages too),
PAGES_NICE (5), DAPHNE_PORT (the first daphne's port, PORT+1; the pages' follow the live ones),
DAPHNE_BIND (127.0.0.1), CELERY_CONCURRENCY (the live worker's processes, 2),
CELERY_HEAVY_CONCURRENCY (the heavy worker's, 1), RUN_DIR, RESTART_SECONDS (2), NGINX (the nginx
binary).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "deploy" / "nginx"
PYTHON = sys.executable


def say(text: str) -> None:
    print(f"run-prod: {text}", flush=True)


# ------------------------------------------------------------------------------------------------
# The nginx configuration.
# ------------------------------------------------------------------------------------------------
def render(template: str, values: dict[str, str]) -> str:
    """The template with every @NAME@ replaced; a name left unfilled is an error."""
    text = (TEMPLATES / template).read_text()
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    missing = sorted(set(re.findall(r"@([A-Z_]+)@", text)))
    if missing:
        raise SystemExit(f"run-prod: {template} needs {', '.join(missing)}")
    return text


def nginx_site(
    upstreams: Sequence[str],
    listen: str,
    static_root: Path,
    access_log: str,
    server_name: str = "_",
    pages: Sequence[str] = (),
) -> str:
    """The `server` and `upstream` blocks (deploy/nginx/barajamos.conf) for these daphne
    processes (host:port each): `upstreams` hold the WebSockets, `pages` answer the rest (the
    live ones when there is none)."""

    def servers(processes: Sequence[str]) -> str:
        return "\n".join(f"    server {u} max_fails=1 fail_timeout=5s;" for u in processes)

    return render(
        "barajamos.conf",
        {
            "SERVERS": servers(upstreams),
            "PAGES_SERVERS": servers(pages or upstreams),
            "LISTEN": listen,
            "SERVER_NAME": server_name,
            "STATIC_ROOT": str(static_root).rstrip("/"),
            "ACCESS_LOG": access_log,
        },
    )


def write_nginx_config(
    run_dir: Path, upstreams: Sequence[str], pages: Sequence[str], port: int, static_root: Path
) -> Path:
    nginx_dir = run_dir / "nginx"
    (nginx_dir / "tmp").mkdir(parents=True, exist_ok=True)
    site = nginx_site(upstreams, str(port), static_root, str(nginx_dir / "access.log"), pages=pages)
    (nginx_dir / "barajamos.conf").write_text(site)
    conf = nginx_dir / "nginx.conf"
    conf.write_text(render("nginx.conf", {"RUN_DIR": str(nginx_dir)}))
    return conf


# ------------------------------------------------------------------------------------------------
# Children.
# ------------------------------------------------------------------------------------------------
def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when this script dies, even by SIGKILL (Linux)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def lower_priority(niceness: int) -> None:
    """In the child before exec, in its own session: `niceness` for the process and for its
    session's scheduling group, and the `SCHED_BATCH` policy. Where the kernel groups tasks by
    session (autogroup, on for most desktops and these machines), a process's nice value only
    ranks it against its own session: the group's is what weighs against the other processes'
    (systemd's CPUWeight= is the same lever for a service). A batch task never preempts another
    when it wakes, so a page waking does not push a move aside (systemd's
    CPUSchedulingPolicy=batch). Best effort: a kernel without autogroup has no such file."""
    os.nice(niceness)
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write(str(niceness))
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


@dataclass
class Child:
    name: str
    argv: list[str]
    log: Path
    pid_file: Path
    stop_signal: int = signal.SIGTERM
    #: Below the live game's processes (0): `lower_priority`.
    niceness: int = 0
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    restart_at: float | None = None
    out: IO[bytes] | None = field(default=None, repr=False)

    def start(self) -> None:
        self.out = self.log.open("ab")
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            stdout=self.out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=self._before_exec,
        )
        self.started = time.monotonic()
        self.restart_at = None
        self.pid_file.write_text(f"{self.proc.pid}\n")

    def _before_exec(self) -> None:
        _die_with_parent()
        if self.niceness:
            lower_priority(self.niceness)

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(self.stop_signal)

    def reap(self, timeout: float) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.out is not None:
            self.out.close()
        self.pid_file.unlink(missing_ok=True)


def wait_for_http(url: str, child: Child, timeout: float = 90) -> None:
    """Until `url` answers HTTP at all (any status: only whether the process serves)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert child.proc is not None
        if child.proc.poll() is not None:
            raise SystemExit(f"run-prod: {child.name} exited while starting:\n{child.tail()}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return
        except (OSError, urllib.error.URLError):
            time.sleep(0.2)
    raise SystemExit(
        f"run-prod: {child.name} did not answer {url} in {timeout:.0f} s:\n{child.tail()}"
    )


def port_taken(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", port))
        except OSError:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# The settings of a production run.
# ------------------------------------------------------------------------------------------------
def production_environment(run_dir: Path) -> None:
    """DEBUG off, with what it requires, in this process's environment (the children inherit
    it). Whatever the environment already says is kept."""
    os.environ["DJANGO_DEBUG"] = "0"
    if not os.environ.get("DJANGO_SECRET_KEY"):
        key_file = run_dir / "secret_key"
        if not key_file.exists():
            key_file.touch(mode=0o600)
            key_file.write_text(secrets.token_urlsafe(50))
            say(f"DJANGO_SECRET_KEY not set: generated one into {key_file} (keep it: sessions")
            say("  and password-reset links are signed with it)")
        else:
            say(f"DJANGO_SECRET_KEY not set: using the one generated earlier in {key_file}")
        os.environ["DJANGO_SECRET_KEY"] = key_file.read_text().strip()
    if not os.environ.get("ALLOWED_HOSTS"):
        os.environ["ALLOWED_HOSTS"] = "localhost,127.0.0.1,[::1]"
        say("ALLOWED_HOSTS not set: localhost,127.0.0.1,[::1] (set it to the site's name)")
    if not os.environ.get("SECURE_SSL_REDIRECT"):
        # No certificate on this machine: plain HTTP. In production TLS ends at nginx and this
        # stays at its default, 1 (docs/deploy.md, «HTTPS»).
        os.environ["SECURE_SSL_REDIRECT"] = "0"
        say("plain HTTP (SECURE_SSL_REDIRECT=0): HTTPS belongs at the proxy, see docs/deploy.md")
    os.environ.setdefault("PYTHONUNBUFFERED", "1")


def manage(*args: str) -> None:
    if subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT).returncode:
        raise SystemExit(f"run-prod: manage.py {args[0]} failed")


def static_root() -> Path:
    """settings.STATIC_ROOT: where collectstatic wrote, for nginx to serve."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")
    from django.conf import settings

    return Path(settings.STATIC_ROOT)


# ------------------------------------------------------------------------------------------------
# The whole topology.
# ------------------------------------------------------------------------------------------------
def run() -> int:
    port = int(os.environ.get("PORT", "8000"))
    processes = int(os.environ.get("DAPHNE_PROCESSES", "2"))
    pages_processes = int(os.environ.get("PAGES_PROCESSES", "1"))
    pages_niceness = int(os.environ.get("PAGES_NICE", "5"))
    first_daphne = int(os.environ.get("DAPHNE_PORT", str(port + 1)))
    bind = os.environ.get("DAPHNE_BIND", "127.0.0.1")
    restart_seconds = float(os.environ.get("RESTART_SECONDS", "2"))
    run_dir = Path(os.environ.get("RUN_DIR", str(ROOT / "run" / "prod"))).resolve()
    nginx = os.environ.get("NGINX") or _find_nginx()
    if processes < 1:
        raise SystemExit("run-prod: DAPHNE_PROCESSES must be at least 1")
    if pages_processes < 0 or not 0 <= pages_niceness <= 19:
        raise SystemExit("run-prod: PAGES_PROCESSES must be 0 or more, PAGES_NICE 0 to 19")
    daphne_ports = [first_daphne + i for i in range(processes)]
    pages_ports = [first_daphne + processes + i for i in range(pages_processes)]
    taken = [p for p in [port, *daphne_ports, *pages_ports] if port_taken(p)]
    if taken:
        raise SystemExit(f"run-prod: port {', '.join(map(str, taken))} already in use")
    run_dir.mkdir(parents=True, exist_ok=True)

    production_environment(run_dir)
    manage("migrate", "--noinput")
    manage("collectstatic", "--noinput", "--verbosity", "0")
    static = static_root()
    host = "127.0.0.1" if bind in ("0.0.0.0", "") else bind
    upstreams = [f"{host}:{p}" for p in daphne_ports]
    pages_upstreams = [f"{host}:{p}" for p in pages_ports]
    conf = write_nginx_config(run_dir, upstreams, pages_upstreams, port, static)
    check = subprocess.run(
        [nginx, "-t", "-q", "-e", "stderr", "-c", str(conf)], capture_output=True
    )
    if check.returncode:
        raise SystemExit(f"run-prod: nginx refuses {conf}:\n{check.stderr.decode()}")

    def log(name: str) -> Path:
        return run_dir / f"{name}.log"

    def pid(name: str) -> Path:
        return run_dir / f"{name}.pid"

    celery = [PYTHON, "-m", "celery", "-A", "musweb"]
    # The live game's worker and the heavy work's, niced (docs/deploy.md, «Queues and workers»).
    worker = Child(
        "celery-worker",
        [
            PYTHON,
            "-m",
            "musweb.worker",
            "live",
            "--loglevel=INFO",
            f"--concurrency={os.environ.get('CELERY_CONCURRENCY', '2')}",
        ],
        log("celery-worker"),
        pid("celery-worker"),
    )
    heavy = Child(
        "celery-heavy",
        [
            PYTHON,
            "-m",
            "musweb.worker",
            "heavy",
            "--loglevel=INFO",
            f"--concurrency={os.environ.get('CELERY_HEAVY_CONCURRENCY', '1')}",
        ],
        log("celery-heavy"),
        pid("celery-heavy"),
        niceness=10,
    )
    beat = Child(
        "celery-beat",
        [*celery, "beat", "--loglevel=INFO", f"--schedule={run_dir / 'celerybeat-schedule'}"],
        log("celery-beat"),
        pid("celery-beat"),
    )

    def daphne(name: str, p: int, niceness: int = 0) -> Child:
        # The site's daphne (musweb.server) as `make run` starts it, plus the client's address
        # from nginx's X-Forwarded-For: only nginx can reach DAPHNE_BIND.
        argv = [PYTHON, "-m", "musweb.server", "-b", bind, "-p", str(p)]
        argv += ["--websocket_connect_timeout", "30", "--proxy-headers"]
        argv += ["--access-log", os.devnull, "musweb.asgi:application"]
        return Child(f"{name}-{p}", argv, log(f"{name}-{p}"), pid(f"{name}-{p}"), niceness=niceness)

    daphnes = [daphne("daphne", p) for p in daphne_ports]
    # The pages a little below the live tables: under a full machine a page waits rather than
    # a move (docs/deploy.md, «Pages and live tables»).
    pages = [daphne("pages", p, pages_niceness) for p in pages_ports]
    # SIGTERM is nginx's fast shutdown: its graceful one (SIGQUIT) waits for every socket.
    proxy = Child(
        "nginx",
        [nginx, "-e", str(run_dir / "nginx" / "error.log"), "-c", str(conf)],
        log("nginx"),
        pid("nginx"),
    )
    children = [worker, heavy, beat, *daphnes, *pages, proxy]

    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        for child in [worker, heavy, beat, *daphnes, *pages]:
            child.start()
        for child, upstream in zip([*daphnes, *pages], [*upstreams, *pages_upstreams], strict=True):
            wait_for_http(f"http://{upstream}/", child)
        proxy.start()
        wait_for_http(f"http://127.0.0.1:{port}/", proxy, timeout=15)
        say(f"nginx on :{port} in front of daphne on {', '.join(upstreams)} (the sockets)")
        if pages:
            pages_list = ", ".join(pages_upstreams)
            say(f"  and on {pages_list} (the pages, nice {pages_niceness}); the Celery")
        else:
            say("  (the sockets and the pages); the Celery")
        say(f"  workers (live, heavy) and beat; DEBUG off. Logs and pid files in {run_dir}")
        print(
            f"Barajamos (production topology): http://127.0.0.1:{port}/  (Ctrl-C stops it)",
            flush=True,
        )
        while not stopping:
            time.sleep(0.2)
            now = time.monotonic()
            for child in children:
                assert child.proc is not None
                if child.restart_at is not None:
                    if now >= child.restart_at and not stopping:
                        say(f"starting {child.name} again")
                        child.start()
                    continue
                code = child.proc.poll()
                if code is None:
                    continue
                how = (
                    f"was killed ({signal.Signals(-code).name})" if code < 0 else f"exited ({code})"
                )
                say(f"{child.name} {how}; starting it again in {restart_seconds:g} s")
                child.restart_at = now + restart_seconds
    finally:
        say("stopping")
        # nginx first (no new connections), then the daphne processes, then Celery.
        for group in ([proxy], [*daphnes, *pages], [beat, worker, heavy]):
            for child in group:
                child.stop()
            for child in group:
                child.reap(15)
    return 0


def _find_nginx() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if found is None:
        raise SystemExit("run-prod: nginx is missing (scripts/ensure_nginx.sh installs Debian's)")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    site = sub.add_parser("nginx-site", help="print the nginx site for these daphne processes")
    site.add_argument(
        "--upstream", action="append", required=True, help="a live daphne's host:port, repeated"
    )
    site.add_argument(
        "--pages-upstream",
        action="append",
        default=[],
        help="a pages daphne's host:port, repeated (none: the live ones answer the pages)",
    )
    site.add_argument("--listen", default="80", help="nginx's listen (default 80)")
    site.add_argument("--server-name", default="_")
    site.add_argument("--static-root", required=True, type=Path)
    site.add_argument("--access-log", default="/var/log/nginx/barajamos.access.log")
    args = parser.parse_args(argv)
    if args.command == "nginx-site":
        print(
            nginx_site(
                args.upstream,
                args.listen,
                args.static_root,
                args.access_log,
                args.server_name,
                args.pages_upstream,
            ),
            end="",
        )
        return 0
    return run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
