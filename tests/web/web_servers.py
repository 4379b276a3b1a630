"""What the web server's tests share: ``WebServer``, a real ``referee web`` process on a
free port of 127.0.0.1 (its log, clients that sign up and log in over real HTTP), and
``Postgres``, a real PostgreSQL server of the tests' own."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
"""The CSRF field of a form."""

REFEREE = [sys.executable, "-m", "referee.cli"]
"""The referee's command line."""

START_SECONDS = 30
"""How long a server may take to answer (it takes under 2 s; the machine may be busy)."""


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def csrf_of(page: str) -> str:
    """The ``csrf_token`` field of the form on ``page``."""
    found = CSRF.search(page)
    assert found, f"no csrf_token field on the page: {page[:300]}"
    return found.group(1)


class WebServer:
    """A ``referee web`` process: ``url``, ``data`` (its folder), ``db_url`` (None: the
    SQLite file of its folder), ``log()`` (what it wrote on stderr so far)."""

    def __init__(self, data: Path, db_url: str | None, *options: str) -> None:
        self.data = data
        self.db_url = db_url
        self.options = options
        self.log_path = data.parent / f"{data.name}.stderr"
        self.out_path = data.parent / f"{data.name}.stdout"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def command(self, port: int) -> list[str]:
        """The command line that serves on ``port``."""
        db = ["--db", self.db_url] if self.db_url else []
        return [*REFEREE, "web", "--data", str(self.data), "--port", str(port), *db,
                *self.options]

    def start(self) -> WebServer:
        """Start the server on a free port and wait until it answers ``/``."""
        port = free_port()
        with self.log_path.open("ab") as err, self.out_path.open("ab") as out:
            self.process = subprocess.Popen(self.command(port), stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the server did not start:\n{self.log()}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 15 s)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> WebServer:
        """Stop the server and start it again on the same folder and database."""
        self.stop()
        return self.start()

    def log(self) -> str:
        """What the server wrote on its standard error so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def client(self) -> httpx.Client:
        """A client of the server with a cookie jar of its own (a browser)."""
        return httpx.Client(base_url=self.url, timeout=20)

    def signed_up(self, name: str, password: str = "a-long-secret") -> httpx.Client:
        """A client logged in as ``name``, who signed up through the form."""
        client = self.client()
        answer = client.post("/signup", data={
            "csrf_token": csrf_of(client.get("/signup").text), "name": name,
            "password": password, "password2": password})
        assert answer.status_code == 303, answer.text[:500]
        return client

    def logged_in(self, name: str, password: str) -> httpx.Client:
        """A client logged in as ``name`` through the log-in form."""
        client = self.client()
        answer = client.post("/login", data={
            "csrf_token": csrf_of(client.get("/login").text), "name": name,
            "password": password})
        assert answer.status_code == 303, answer.text[:500]
        return client


class Postgres:
    """A PostgreSQL server of the tests: its own cluster in a temporary folder, on a free
    port of 127.0.0.1 (trust authentication, for the tests only), run as ``nobody`` when
    the tests run as root (PostgreSQL refuses root)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.port = free_port()
        self.user = "nobody" if os.geteuid() == 0 else None
        self.names = itertools.count(1)

    def run(self, *command: str) -> None:
        """Run a PostgreSQL program as the server's user; a failure shows its output."""
        done = subprocess.run(command, user=self.user, cwd=self.folder, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"

    def start(self) -> Postgres:
        """Make the cluster and start the server."""
        os.chmod(self.folder, 0o755)
        if self.user:
            shutil.chown(self.folder, self.user)
        data = self.folder / "data"
        self.run(str(self.bin / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                 "-E", "UTF8", "--no-sync", "--no-instructions")
        settings = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        self.run(str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "log"),
                 "-w", "-t", "60", "-o", settings, "start")
        return self

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
            self.run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast",
                     "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database: its URL."""
        import psycopg

        name = f"web_{os.getpid()}_{next(self.names)}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                             dbname="postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest version), or of ``initdb``
    on the PATH; None if PostgreSQL is not installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda path: int(path.parts[-3]) if path.parts[-3].isdigit() else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None
