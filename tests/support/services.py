"""Start real PostgreSQL, Redis and Celery worker processes for the tests.

Each starter returns a handle with a `stop()`; when a binary is missing the caller skips
loudly, except under CI (`CI` set), where a missing service fails the run instead.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0  # seconds a service may take to answer before we give up


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> None:
    """Skip a test whose service binary is absent; in CI that is a failure."""
    message = f"!!! {what} is not installed: this test cannot run here !!!"
    if in_ci():
        pytest.fail(f"{message} (CI must install it: see .ci/run)", pytrace=False)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing answered on port {port} within {timeout:.0f} s")


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_postgres_user(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root; CI runs as root, so drop to the postgres user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@dataclass
class Postgres:
    port: int
    datadir: Path
    bindir: Path

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        subprocess.run(
            _as_postgres_user(
                [str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "stop"]
            ),
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.datadir.parent, ignore_errors=True)

    def pause(self) -> None:
        """Shut the server down but keep its data, as an outage would; resume() restarts it."""
        subprocess.run(
            _as_postgres_user(
                [str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "fast", "-w", "stop"]
            ),
            check=True,
            capture_output=True,
        )

    def resume(self) -> None:
        """Start the paused server again, on the same port."""
        _pg_ctl_start(self.bindir, self.datadir, self.port)


def start_postgres() -> Postgres:
    """A throwaway cluster on a free port, tuned for speed (no fsync), trust auth on loopback."""
    bindir = postgres_bin()
    if bindir is None:
        raise FileNotFoundError("initdb")
    base = Path(tempfile.mkdtemp(prefix="ladder-pg-"))
    datadir = base / "data"
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    subprocess.run(
        _as_postgres_user(
            [
                str(bindir / "initdb"),
                "-D",
                str(datadir),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        ),
        check=True,
        capture_output=True,
    )
    port = free_port()
    _pg_ctl_start(bindir, datadir, port)
    return Postgres(port=port, datadir=datadir, bindir=bindir)


def _pg_ctl_start(bindir: Path, datadir: Path, port: int) -> None:
    base = datadir.parent
    options = (
        f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    subprocess.run(
        _as_postgres_user(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(datadir),
                "-o",
                options,
                "-l",
                str(base / "log"),
                "-w",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    wait_for_port(port)


@dataclass
class Process:
    """A child process we started; stop() terminates it (kill() for the rude way)."""

    proc: subprocess.Popen[bytes]
    log: Path
    extra: dict[str, str] = field(default_factory=dict)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=20)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _spawn(cmd: list[str], env: dict[str, str] | None, name: str) -> Process:
    log = Path(tempfile.mkstemp(prefix=f"ladder-{name}-", suffix=".log")[1])
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT, start_new_session=True
        )
    return Process(proc=proc, log=log)


def start_redis(port: int | None = None) -> Process:
    binary = shutil.which("redis-server")
    if binary is None:
        raise FileNotFoundError("redis-server")
    port = port or free_port()
    process = _spawn(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        None,
        "redis",
    )
    wait_for_port(port)
    process.extra["url"] = f"redis://127.0.0.1:{port}/0"
    process.extra["port"] = str(port)
    return process


def start_celery_worker(broker_url: str, database_url: str, *extra_args: str) -> Process:
    """A real worker process on the given broker and database, ready when it says so."""
    env = {
        **os.environ,
        "CELERY_BROKER_URL": broker_url,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "PYTHONUNBUFFERED": "1",
    }
    process = _spawn(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "ladder",
            "worker",
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            *extra_args,
        ],
        env,
        "celery",
    )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if "ready." in process.output():
            return process
        if process.proc.poll() is not None:
            break
        time.sleep(0.1)
    output = process.output()
    process.stop()
    raise RuntimeError(f"the Celery worker did not start:\n{output[-3000:]}")


def start_gunicorn(env_extra: dict[str, str], *extra_args: str) -> Process:
    """The site under gunicorn (several worker processes) on a free port, ready when it answers.

    The access log lines are "PID STATUS PATH", so a test can see which process answered."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "PYTHONUNBUFFERED": "1",
        **env_extra,
    }
    process = _spawn(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "ladder.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--access-logfile",
            "-",
            "--access-logformat",
            "%(p)s %(s)s %(U)s",
            *extra_args,
        ],
        env,
        "gunicorn",
    )
    try:
        wait_for_port(port)
    except RuntimeError:
        output = process.output()
        process.stop()
        raise RuntimeError(f"gunicorn did not start:\n{output[-3000:]}") from None
    process.extra["url"] = f"http://127.0.0.1:{port}"
    return process
